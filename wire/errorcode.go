package wire

import (
	"errors"
	"fmt"
	"math"
)

// ErrorCode is kaenlog's own error number, carried in responses. The numbers
// are kaenlog's, not Kafka's: NOT_ENOUGH_REPLICAS is 2 here and 19 in
// Kafka's Errors.java. Each constant names its Kafka counterpart so the two
// tables can be read side by side, but no Kafka number is ever put on the
// wire.
//
// A response may carry a code this table does not list (a newer peer). That
// is not malformed: decoders keep the number, String prints it, and Err maps
// it to an error matching ErrUnknownServerError that CodeOf turns back into
// the same number.
type ErrorCode int16

const (
	// CodeUnknownServerError is kaenlog's -1, like Kafka's
	// UNKNOWN_SERVER_ERROR (-1). CodeOf returns it for any error that has no
	// entry in this table, so the wire never carries an error as NONE.
	CodeUnknownServerError ErrorCode = -1

	// CodeNone is kaenlog's 0, like Kafka's NONE (0): the request succeeded.
	CodeNone ErrorCode = 0

	// CodeOffsetOutOfRange is kaenlog's 1, Kafka's OFFSET_OUT_OF_RANGE (1).
	// Returned to a fetch whose FetchOffset is below the log start offset
	// or above the log end offset.
	CodeOffsetOutOfRange ErrorCode = 1

	// CodeNotEnoughReplicas is kaenlog's 2, Kafka's NOT_ENOUGH_REPLICAS
	// (19). Returned to an acks=all produce when the ISR is smaller than
	// min.insync.replicas; it is checked before the append, so nothing was
	// written. Retriable.
	CodeNotEnoughReplicas ErrorCode = 2

	// CodeNotEnoughReplicasAfterAppend is kaenlog's 3, Kafka's
	// NOT_ENOUGH_REPLICAS_AFTER_APPEND (20). Returned to an acks=all
	// produce whose records were appended but the ISR shrank below
	// min.insync.replicas before they were committed. Retriable, which is
	// why acks=all can produce duplicates without an idempotent producer.
	CodeNotEnoughReplicasAfterAppend ErrorCode = 3

	// CodeNotLeaderOrFollower is kaenlog's 4, Kafka's
	// NOT_LEADER_OR_FOLLOWER (6). Returned when a produce or fetch reaches
	// a broker that is not the partition's leader.
	CodeNotLeaderOrFollower ErrorCode = 4

	// CodeFencedLeaderEpoch is kaenlog's 5, Kafka's FENCED_LEADER_EPOCH
	// (74). Returned when the request's CurrentLeaderEpoch is older than
	// the broker's: the sender's metadata is stale.
	CodeFencedLeaderEpoch ErrorCode = 5

	// CodeUnknownLeaderEpoch is kaenlog's 6, Kafka's UNKNOWN_LEADER_EPOCH
	// (75). Returned when the request's CurrentLeaderEpoch is newer than
	// the broker's: the broker has not caught up yet.
	CodeUnknownLeaderEpoch ErrorCode = 6

	// CodeCorruptMessage is kaenlog's 7, Kafka's CORRUPT_MESSAGE (2).
	// Returned when produced or fetched record batches fail their CRC or
	// do not parse.
	CodeCorruptMessage ErrorCode = 7

	// CodeUnknownReplica is kaenlog's 8. Kafka has no code of its own for
	// it: a leader that gets a fetch from a broker id outside the
	// partition's replicas logs that the replica "is not recognized" and
	// answers with no records. kaenlog says so explicitly instead.
	CodeUnknownReplica ErrorCode = 8

	// CodeRequestTimedOut is kaenlog's 9, Kafka's REQUEST_TIMED_OUT (7).
	// Returned to an acks=all produce whose records were not committed
	// within its TimeoutMs.
	CodeRequestTimedOut ErrorCode = 9

	// CodeInvalidRequiredAcks is kaenlog's 10, Kafka's
	// INVALID_REQUIRED_ACKS (21). Returned to a produce whose Acks is not
	// AcksAll, AcksLeader or AcksNone; the wire carries any int16, as
	// Kafka's does, and the broker refuses it.
	CodeInvalidRequiredAcks ErrorCode = 10

	// CodeInvalidRequest is kaenlog's 11, Kafka's INVALID_REQUEST (42).
	// Returned when a request does not decode (its error matches
	// ErrMalformed).
	CodeInvalidRequest ErrorCode = 11
)

// Sentinel errors for the codes, one per entry: ErrorCode.Err returns them
// and CodeOf maps them back. Package-specific errors (from log, isr, epoch)
// cross the wire by being wrapped with one of these, for example
// fmt.Errorf("%w: %w", wire.ErrOffsetOutOfRange, err).
var (
	// ErrUnknownServerError is CodeUnknownServerError's error. Err also
	// returns an error matching it for a code missing from this table.
	ErrUnknownServerError = errors.New("wire: UNKNOWN_SERVER_ERROR: unexpected broker error")
	// ErrOffsetOutOfRange is CodeOffsetOutOfRange's error.
	ErrOffsetOutOfRange = errors.New("wire: OFFSET_OUT_OF_RANGE: fetch offset outside the log")
	// ErrNotEnoughReplicas is CodeNotEnoughReplicas's error.
	ErrNotEnoughReplicas = errors.New("wire: NOT_ENOUGH_REPLICAS: ISR below min.insync.replicas, checked before append")
	// ErrNotEnoughReplicasAfterAppend is CodeNotEnoughReplicasAfterAppend's error.
	ErrNotEnoughReplicasAfterAppend = errors.New("wire: NOT_ENOUGH_REPLICAS_AFTER_APPEND: written, but ISR shrank below min.insync.replicas")
	// ErrNotLeaderOrFollower is CodeNotLeaderOrFollower's error.
	ErrNotLeaderOrFollower = errors.New("wire: NOT_LEADER_OR_FOLLOWER: broker is not the partition leader")
	// ErrFencedLeaderEpoch is CodeFencedLeaderEpoch's error.
	ErrFencedLeaderEpoch = errors.New("wire: FENCED_LEADER_EPOCH: request epoch older than the broker's")
	// ErrUnknownLeaderEpoch is CodeUnknownLeaderEpoch's error.
	ErrUnknownLeaderEpoch = errors.New("wire: UNKNOWN_LEADER_EPOCH: request epoch newer than the broker's")
	// ErrCorruptMessage is CodeCorruptMessage's error.
	ErrCorruptMessage = errors.New("wire: CORRUPT_MESSAGE: record batches failed validation")
	// ErrUnknownReplica is CodeUnknownReplica's error.
	ErrUnknownReplica = errors.New("wire: UNKNOWN_REPLICA: replica id is not assigned to the partition")
	// ErrRequestTimedOut is CodeRequestTimedOut's error.
	ErrRequestTimedOut = errors.New("wire: REQUEST_TIMED_OUT: not committed within the timeout")
	// ErrInvalidRequiredAcks is CodeInvalidRequiredAcks's error.
	ErrInvalidRequiredAcks = errors.New("wire: INVALID_REQUIRED_ACKS: acks must be -1, 0 or 1")
	// ErrInvalidRequest is CodeInvalidRequest's error: the peer could not
	// decode our request. (Our own decoding failures match ErrMalformed.)
	ErrInvalidRequest = errors.New("wire: INVALID_REQUEST: request did not decode")
)

// codeEntry is one row of the table; the slice order is CodeOf's search order.
type codeEntry struct {
	code ErrorCode
	name string
	err  error
	// kafka is the Kafka counterpart's number in Errors.java (4.0), or
	// noKafkaCode.
	kafka int16
}

// noKafkaCode marks a kaenlog code with no Kafka counterpart.
const noKafkaCode int16 = math.MinInt16

var codeTable = [...]codeEntry{
	{CodeOffsetOutOfRange, "OFFSET_OUT_OF_RANGE", ErrOffsetOutOfRange, 1},
	{CodeNotEnoughReplicas, "NOT_ENOUGH_REPLICAS", ErrNotEnoughReplicas, 19},
	{CodeNotEnoughReplicasAfterAppend, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", ErrNotEnoughReplicasAfterAppend, 20},
	{CodeNotLeaderOrFollower, "NOT_LEADER_OR_FOLLOWER", ErrNotLeaderOrFollower, 6},
	{CodeFencedLeaderEpoch, "FENCED_LEADER_EPOCH", ErrFencedLeaderEpoch, 74},
	{CodeUnknownLeaderEpoch, "UNKNOWN_LEADER_EPOCH", ErrUnknownLeaderEpoch, 75},
	{CodeCorruptMessage, "CORRUPT_MESSAGE", ErrCorruptMessage, 2},
	{CodeUnknownReplica, "UNKNOWN_REPLICA", ErrUnknownReplica, noKafkaCode},
	{CodeRequestTimedOut, "REQUEST_TIMED_OUT", ErrRequestTimedOut, 7},
	{CodeInvalidRequiredAcks, "INVALID_REQUIRED_ACKS", ErrInvalidRequiredAcks, 21},
	{CodeInvalidRequest, "INVALID_REQUEST", ErrInvalidRequest, 42},
	{CodeUnknownServerError, "UNKNOWN_SERVER_ERROR", ErrUnknownServerError, -1},
}

// String returns the Kafka-style name ("NONE", "NOT_ENOUGH_REPLICAS", ...),
// or "ErrorCode(n)" for a code not in the table.
func (c ErrorCode) String() string {
	if c == CodeNone {
		return "NONE"
	}
	for _, e := range codeTable {
		if e.code == c {
			return e.name
		}
	}
	return fmt.Sprintf("ErrorCode(%d)", int16(c))
}

// KafkaCode returns the number of c's Kafka counterpart in Kafka 4.0's
// Errors.java (NOT_ENOUGH_REPLICAS is kaenlog's 2 and Kafka's 19), with
// ok == false for a code Kafka has no counterpart for (CodeUnknownReplica)
// or that this table does not list. The number is for reading the two
// tables side by side; kaenlog never puts it on the wire.
func (c ErrorCode) KafkaCode() (code int16, ok bool) {
	if c == CodeNone {
		return 0, true
	}
	for _, e := range codeTable {
		if e.code == c {
			return e.kafka, e.kafka != noKafkaCode
		}
	}
	return 0, false
}

// unknownCodeError is what Err returns for a code missing from the table. It
// keeps the number so CodeOf can send it on unchanged.
type unknownCodeError struct{ code ErrorCode }

func (e *unknownCodeError) Error() string {
	return fmt.Sprintf("wire: unknown error code %d", int16(e.code))
}

func (e *unknownCodeError) Unwrap() error { return ErrUnknownServerError }

// Err turns a code received on the wire into an error: nil for CodeNone,
// the code's sentinel (ErrNotEnoughReplicas, ...) for a listed code, and for
// any other code an error that matches ErrUnknownServerError and keeps the
// number. CodeOf(c.Err()) == c for every c.
func (c ErrorCode) Err() error {
	if c == CodeNone {
		return nil
	}
	for _, e := range codeTable {
		if e.code == c {
			return e.err
		}
	}
	return &unknownCodeError{code: c}
}

// CodeOf turns an error into the code to put on the wire, the inverse of
// ErrorCode.Err. nil gives CodeNone. Otherwise the first sentinel in table
// order that errors.Is matches wins, so wrapped errors keep their code; an
// error from ErrorCode.Err for an unlisted code gives that code back; an
// error matching ErrMalformed (a request that did not decode) gives
// CodeInvalidRequest; and anything else gives CodeUnknownServerError, never
// CodeNone.
func CodeOf(err error) ErrorCode {
	if err == nil {
		return CodeNone
	}
	var u *unknownCodeError
	if errors.As(err, &u) {
		return u.code
	}
	for _, e := range codeTable {
		if errors.Is(err, e.err) {
			return e.code
		}
	}
	if errors.Is(err, ErrMalformed) {
		return CodeInvalidRequest
	}
	return CodeUnknownServerError
}
