package wire

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

// TestErrorCodeTable pins kaenlog's numbers and names. The numbers are on
// the wire: changing one breaks every peer, so this test is the contract.
func TestErrorCodeTable(t *testing.T) {
	for _, tc := range []struct {
		code ErrorCode
		num  int16
		name string
		err  error
	}{
		{CodeUnknownServerError, -1, "UNKNOWN_SERVER_ERROR", ErrUnknownServerError},
		{CodeNone, 0, "NONE", nil},
		{CodeOffsetOutOfRange, 1, "OFFSET_OUT_OF_RANGE", ErrOffsetOutOfRange},
		{CodeNotEnoughReplicas, 2, "NOT_ENOUGH_REPLICAS", ErrNotEnoughReplicas},
		{CodeNotEnoughReplicasAfterAppend, 3, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", ErrNotEnoughReplicasAfterAppend},
		{CodeNotLeaderOrFollower, 4, "NOT_LEADER_OR_FOLLOWER", ErrNotLeaderOrFollower},
		{CodeFencedLeaderEpoch, 5, "FENCED_LEADER_EPOCH", ErrFencedLeaderEpoch},
		{CodeUnknownLeaderEpoch, 6, "UNKNOWN_LEADER_EPOCH", ErrUnknownLeaderEpoch},
		{CodeCorruptMessage, 7, "CORRUPT_MESSAGE", ErrCorruptMessage},
		{CodeUnknownReplica, 8, "UNKNOWN_REPLICA", ErrUnknownReplica},
		{CodeRequestTimedOut, 9, "REQUEST_TIMED_OUT", ErrRequestTimedOut},
		{CodeInvalidRequiredAcks, 10, "INVALID_REQUIRED_ACKS", ErrInvalidRequiredAcks},
		{CodeInvalidRequest, 11, "INVALID_REQUEST", ErrInvalidRequest},
	} {
		if int16(tc.code) != tc.num {
			t.Errorf("%s = %d, want %d", tc.name, tc.code, tc.num)
		}
		if got := tc.code.String(); got != tc.name {
			t.Errorf("ErrorCode(%d).String() = %q, want %q", tc.num, got, tc.name)
		}
		if got := tc.code.Err(); got != tc.err {
			t.Errorf("ErrorCode(%d).Err() = %v, want %v", tc.num, got, tc.err)
		}
		if got := CodeOf(tc.err); got != tc.code {
			t.Errorf("CodeOf(%v) = %v, want %v", tc.err, got, tc.code)
		}
		if tc.err != nil && !strings.Contains(tc.err.Error(), tc.name) {
			t.Errorf("%v does not name %s, so logs could not be grepped for it", tc.err, tc.name)
		}
	}
	if got := len(codeTable); got != 12 {
		t.Errorf("codeTable has %d entries; update this test when adding a code", got)
	}
}

// The demo's line: "produce แบบ acks=all → error 2 (NOT_ENOUGH_REPLICAS ...".
func TestNotEnoughReplicasIsTwo(t *testing.T) {
	if got := fmt.Sprintf("error %d (%s)", CodeNotEnoughReplicas, CodeNotEnoughReplicas); got != "error 2 (NOT_ENOUGH_REPLICAS)" {
		t.Fatalf("got %q", got)
	}
}

// TestCodeErrRoundTrip: every int16 survives Err then CodeOf, including
// codes this table does not list (a newer peer's).
func TestCodeErrRoundTrip(t *testing.T) {
	for c := math.MinInt16; c <= math.MaxInt16; c++ {
		code := ErrorCode(c)
		err := code.Err()
		if got := CodeOf(err); got != code {
			t.Fatalf("CodeOf(ErrorCode(%d).Err()) = %d", c, got)
		}
		if code != CodeNone && err == nil {
			t.Fatalf("ErrorCode(%d).Err() = nil; only NONE may be nil", c)
		}
	}
}

func TestUnknownCode(t *testing.T) {
	code := ErrorCode(1234)
	if got := code.String(); got != "ErrorCode(1234)" {
		t.Errorf("String() = %q", got)
	}
	err := code.Err()
	if !errors.Is(err, ErrUnknownServerError) {
		t.Errorf("Err() = %v, want it to match ErrUnknownServerError", err)
	}
	if !strings.Contains(err.Error(), "1234") {
		t.Errorf("Err() = %q does not keep the number", err)
	}
	wrapped := fmt.Errorf("fetch from broker 1: %w", err)
	if got := CodeOf(wrapped); got != code {
		t.Errorf("CodeOf(wrapped) = %v, want %v", got, code)
	}
	// Decoding such a code is not malformed.
	m, derr := DecodeProduceResponse(mustEncode(t, ProduceResponse{ErrorCode: code}))
	if derr != nil || m.ErrorCode != code {
		t.Fatalf("decode = %+v, %v; want the unknown code kept", m, derr)
	}
}

func TestCodeOf(t *testing.T) {
	logErr := errors.New("log: offset 9 beyond log end 4")
	for _, tc := range []struct {
		name string
		err  error
		want ErrorCode
	}{
		{"nil", nil, CodeNone},
		{"wrapped sentinel", fmt.Errorf("produce: %w", ErrNotEnoughReplicas), CodeNotEnoughReplicas},
		{"sentinel wrapping a package error", fmt.Errorf("%w: %w", ErrOffsetOutOfRange, logErr), CodeOffsetOutOfRange},
		{"two sentinels: table order wins", errors.Join(ErrFencedLeaderEpoch, ErrNotLeaderOrFollower), CodeNotLeaderOrFollower},
		{"our decode failure", fmt.Errorf("request: %w", ErrTruncated), CodeInvalidRequest},
		{"bad version is an invalid request", ErrUnsupportedVersion, CodeInvalidRequest},
		{"unrelated error", io.ErrClosedPipe, CodeUnknownServerError},
		{"frame too large is ours, not the peer's fault in the table", ErrFrameTooLarge, CodeUnknownServerError},
	} {
		if got := CodeOf(tc.err); got != tc.want {
			t.Errorf("%s: CodeOf(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

func TestSentinelFamilies(t *testing.T) {
	for _, err := range []error{ErrTruncated, ErrTrailingBytes, ErrUnknownAPIKey, ErrWrongAPIKey,
		ErrUnsupportedVersion, ErrNegativeLength, ErrNegativeOffset, ErrInvalidEpoch, ErrNegativeTimeout} {
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%v does not match ErrMalformed", err)
		}
	}
	for _, err := range []error{ErrFrameTooLarge, ErrShortFrame, ErrOffsetOverflow, ErrInvalidRequest} {
		if errors.Is(err, ErrMalformed) {
			t.Errorf("%v matches ErrMalformed; it is not a decoding error", err)
		}
	}
	if !errors.Is(ErrShortFrame, io.ErrUnexpectedEOF) {
		t.Error("ErrShortFrame does not match io.ErrUnexpectedEOF")
	}
}

// The Kafka counterparts, as Kafka 4.0's Errors.java numbers them.
func TestKafkaCode(t *testing.T) {
	for _, tc := range []struct {
		code  ErrorCode
		kafka int16
		ok    bool
	}{
		{CodeNone, 0, true},
		{CodeOffsetOutOfRange, 1, true},
		{CodeCorruptMessage, 2, true},
		{CodeNotLeaderOrFollower, 6, true},
		{CodeRequestTimedOut, 7, true},
		{CodeNotEnoughReplicas, 19, true},
		{CodeNotEnoughReplicasAfterAppend, 20, true},
		{CodeInvalidRequiredAcks, 21, true},
		{CodeInvalidRequest, 42, true},
		{CodeFencedLeaderEpoch, 74, true},
		{CodeUnknownLeaderEpoch, 75, true},
		{CodeUnknownServerError, -1, true},
		{CodeUnknownReplica, 0, false},
		{ErrorCode(500), 0, false},
	} {
		k, ok := tc.code.KafkaCode()
		if ok != tc.ok || (ok && k != tc.kafka) {
			t.Errorf("%v.KafkaCode() = %d, %v; want %d, %v", tc.code, k, ok, tc.kafka, tc.ok)
		}
	}
}
