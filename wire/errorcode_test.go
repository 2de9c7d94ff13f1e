package wire

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestErrorCodeTable is the contract. kaenlog's numbers are on the wire:
// changing one breaks every peer. Kafka's numbers and retriable flags are
// Errors.java's (see errorTable's comment for the commit they were read
// from). This list repeats the table on purpose, as the independent copy
// an accidental edit of the table must also get past.
func TestErrorCodeTable(t *testing.T) {
	const none = noKafkaCode
	for _, tc := range []struct {
		code      ErrorCode
		num       int16
		name      string
		kafka     int16
		retriable bool
		err       error
	}{
		{CodeUnknownServerError, -1, "UNKNOWN_SERVER_ERROR", -1, false, ErrUnknownServerError},
		{CodeNone, 0, "NONE", 0, false, nil},
		{CodeOffsetOutOfRange, 1, "OFFSET_OUT_OF_RANGE", 1, false, ErrOffsetOutOfRange},
		{CodeNotEnoughReplicas, 2, "NOT_ENOUGH_REPLICAS", 19, true, ErrNotEnoughReplicas},
		{CodeNotEnoughReplicasAfterAppend, 3, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", 20, true, ErrNotEnoughReplicasAfterAppend},
		{CodeNotLeaderOrFollower, 4, "NOT_LEADER_OR_FOLLOWER", 6, true, ErrNotLeaderOrFollower},
		{CodeFencedLeaderEpoch, 5, "FENCED_LEADER_EPOCH", 74, true, ErrFencedLeaderEpoch},
		{CodeUnknownLeaderEpoch, 6, "UNKNOWN_LEADER_EPOCH", 75, true, ErrUnknownLeaderEpoch},
		{CodeCorruptMessage, 7, "CORRUPT_MESSAGE", 2, true, ErrCorruptMessage},
		{CodeUnknownReplica, 8, "UNKNOWN_REPLICA", none, true, ErrUnknownReplica},
		{CodeRequestTimedOut, 9, "REQUEST_TIMED_OUT", 7, true, ErrRequestTimedOut},
		{CodeInvalidRequiredAcks, 10, "INVALID_REQUIRED_ACKS", 21, false, ErrInvalidRequiredAcks},
		{CodeInvalidRequest, 11, "INVALID_REQUEST", 42, false, ErrInvalidRequest},
		{CodeMessageTooLarge, 12, "MESSAGE_TOO_LARGE", 10, false, ErrMessageTooLarge},
		{CodeInvalidRecord, 13, "INVALID_RECORD", 87, false, ErrInvalidRecord},
		{CodeUnsupportedCompressionType, 14, "UNSUPPORTED_COMPRESSION_TYPE", 76, false, ErrUnsupportedCompressionType},
		{CodeKafkaStorageError, 15, "KAFKA_STORAGE_ERROR", 56, true, ErrKafkaStorageError},
		{CodeUnknownTopicOrPartition, 16, "UNKNOWN_TOPIC_OR_PARTITION", 3, true, ErrUnknownTopicOrPartition},
		{CodeLeaderNotAvailable, 17, "LEADER_NOT_AVAILABLE", 5, true, ErrLeaderNotAvailable},
		{CodeStaleBrokerEpoch, 18, "STALE_BROKER_EPOCH", 77, false, ErrStaleBrokerEpoch},
		{CodeInvalidUpdateVersion, 19, "INVALID_UPDATE_VERSION", 95, false, ErrInvalidUpdateVersion},
		{CodeNewLeaderElected, 20, "NEW_LEADER_ELECTED", 108, false, ErrNewLeaderElected},
		{CodeIneligibleReplica, 21, "INELIGIBLE_REPLICA", 107, false, ErrIneligibleReplica},
		{CodeOperationNotAttempted, 22, "OPERATION_NOT_ATTEMPTED", 55, false, ErrOperationNotAttempted},
		{CodeEligibleLeadersNotAvailable, 23, "ELIGIBLE_LEADERS_NOT_AVAILABLE", 83, true, ErrEligibleLeadersNotAvailable},
		{CodeTopicAlreadyExists, 24, "TOPIC_ALREADY_EXISTS", 36, false, ErrTopicAlreadyExists},
		{CodeInvalidReplicationFactor, 25, "INVALID_REPLICATION_FACTOR", 38, false, ErrInvalidReplicationFactor},
		{CodeInvalidPartitions, 26, "INVALID_PARTITIONS", 37, false, ErrInvalidPartitions},
		{CodeNotController, 27, "NOT_CONTROLLER", 41, true, ErrNotController},
		{CodeBrokerIDNotRegistered, 28, "BROKER_ID_NOT_REGISTERED", 102, false, ErrBrokerIDNotRegistered},
		{CodeOutOfOrderSequenceNumber, 29, "OUT_OF_ORDER_SEQUENCE_NUMBER", 45, false, ErrOutOfOrderSequenceNumber},
		{CodeDuplicateSequenceNumber, 30, "DUPLICATE_SEQUENCE_NUMBER", 46, false, ErrDuplicateSequenceNumber},
		{CodeInvalidProducerEpoch, 31, "INVALID_PRODUCER_EPOCH", 47, false, ErrInvalidProducerEpoch},
		{CodeUnknownProducerID, 32, "UNKNOWN_PRODUCER_ID", 59, false, ErrUnknownProducerID},
		{CodeInvalidTopicException, 33, "INVALID_TOPIC_EXCEPTION", 17, false, ErrInvalidTopicException},
		{CodeUnsupportedVersion, 34, "UNSUPPORTED_VERSION", 35, false, ErrUnsupportedVersion},
		{CodeNetworkException, 35, "NETWORK_EXCEPTION", 13, true, ErrNetworkException},
		{CodeOffsetNotAvailable, 36, "OFFSET_NOT_AVAILABLE", 78, true, ErrOffsetNotAvailable},
		{CodeDuplicateBrokerRegistration, 37, "DUPLICATE_BROKER_REGISTRATION", 101, false, ErrDuplicateBrokerRegistration},
		{CodeInconsistentClusterID, 38, "INCONSISTENT_CLUSTER_ID", 104, false, ErrInconsistentClusterID},
		{CodeCoordinatorLoadInProgress, 39, "COORDINATOR_LOAD_IN_PROGRESS", 14, true, ErrCoordinatorLoadInProgress},
		{CodeCoordinatorNotAvailable, 40, "COORDINATOR_NOT_AVAILABLE", 15, true, ErrCoordinatorNotAvailable},
		{CodeNotCoordinator, 41, "NOT_COORDINATOR", 16, true, ErrNotCoordinator},
		{CodeIllegalGeneration, 42, "ILLEGAL_GENERATION", 22, false, ErrIllegalGeneration},
		{CodeInconsistentGroupProtocol, 43, "INCONSISTENT_GROUP_PROTOCOL", 23, false, ErrInconsistentGroupProtocol},
		{CodeInvalidGroupID, 44, "INVALID_GROUP_ID", 24, false, ErrInvalidGroupID},
		{CodeUnknownMemberID, 45, "UNKNOWN_MEMBER_ID", 25, false, ErrUnknownMemberID},
		{CodeInvalidSessionTimeout, 46, "INVALID_SESSION_TIMEOUT", 26, false, ErrInvalidSessionTimeout},
		{CodeRebalanceInProgress, 47, "REBALANCE_IN_PROGRESS", 27, false, ErrRebalanceInProgress},
		{CodeInvalidCommitOffsetSize, 48, "INVALID_COMMIT_OFFSET_SIZE", 28, false, ErrInvalidCommitOffsetSize},
		{CodeOffsetMetadataTooLarge, 49, "OFFSET_METADATA_TOO_LARGE", 12, false, ErrOffsetMetadataTooLarge},
		{CodeNonEmptyGroup, 50, "NON_EMPTY_GROUP", 68, false, ErrNonEmptyGroup},
		{CodeGroupIDNotFound, 51, "GROUP_ID_NOT_FOUND", 69, false, ErrGroupIDNotFound},
		{CodeMemberIDRequired, 52, "MEMBER_ID_REQUIRED", 79, false, ErrMemberIDRequired},
		{CodeGroupMaxSizeReached, 53, "GROUP_MAX_SIZE_REACHED", 81, false, ErrGroupMaxSizeReached},
		{CodeFencedInstanceID, 54, "FENCED_INSTANCE_ID", 82, false, ErrFencedInstanceID},
		{CodeGroupSubscribedToTopic, 55, "GROUP_SUBSCRIBED_TO_TOPIC", 86, false, ErrGroupSubscribedToTopic},
		{CodeInvalidConfig, 56, "INVALID_CONFIG", 40, false, ErrInvalidConfig},
		{CodeElectionNotNeeded, 57, "ELECTION_NOT_NEEDED", 84, true, ErrElectionNotNeeded},
		{CodePreferredLeaderNotAvailable, 58, "PREFERRED_LEADER_NOT_AVAILABLE", 80, true, ErrPreferredLeaderNotAvailable},
		{CodeNoReassignmentInProgress, 59, "NO_REASSIGNMENT_IN_PROGRESS", 85, false, ErrNoReassignmentInProgress},
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
		wantK, wantOK := tc.kafka, tc.kafka != none
		if !wantOK {
			wantK = 0
		}
		if k, ok := tc.code.KafkaCode(); k != wantK || ok != wantOK {
			t.Errorf("%v.KafkaCode() = %d, %v; want %d, %v", tc.code, k, ok, wantK, wantOK)
		}
		if got := tc.code.Retriable(); got != tc.retriable {
			t.Errorf("%v.Retriable() = %v, want %v", tc.code, got, tc.retriable)
		}
		if tc.err == nil {
			continue
		}
		e, ok := tc.err.(*Error)
		if !ok {
			t.Errorf("%s's sentinel is a %T, want *Error", tc.name, tc.err)
			continue
		}
		k, kok := e.KafkaCode()
		if e.Code() != tc.code || e.Name() != tc.name || k != wantK || kok != wantOK || e.Retriable() != tc.retriable {
			t.Errorf("%s's sentinel says (%d, %s, %d, %v, %v)", tc.name, e.Code(), e.Name(), k, kok, e.Retriable())
		}
		if msg := e.Error(); !strings.HasPrefix(msg, "wire: "+tc.name+": ") || !strings.HasSuffix(msg, e.Description()) || e.Description() == "" {
			t.Errorf("%q: want \"wire: %s: \" and a description, so logs can be grepped for the name", msg, tc.name)
		}
		if IsRetriable(fmt.Errorf("broker 3: %w", tc.err)) != tc.retriable {
			t.Errorf("IsRetriable(wrapped %s) = %v", tc.name, !tc.retriable)
		}
	}
	if got := len(errorTable); got != 61 {
		t.Errorf("errorTable has %d rows; add a new code to this test too", got)
	}
}

// TestErrorTableShape: the rows run from -1 with no gap (row's indexing
// relies on it), and no name or Kafka number appears twice.
func TestErrorTableShape(t *testing.T) {
	names := map[string]bool{}
	kafka := map[int16]string{}
	for i := range errorTable {
		e := &errorTable[i]
		if want := ErrorCode(i - 1); e.code != want {
			t.Fatalf("errorTable[%d] is code %d, want %d: rows must be in code order with no gap", i, e.code, want)
		}
		if row(e.code) != e {
			t.Errorf("row(%d) is not errorTable[%d]", e.code, i)
		}
		if names[e.name] {
			t.Errorf("name %s appears twice", e.name)
		}
		names[e.name] = true
		if e.name != strings.ToUpper(e.name) || strings.ContainsAny(e.name, " -") {
			t.Errorf("name %q is not in Kafka's UPPER_SNAKE style", e.name)
		}
		if e.kafka != noKafkaCode {
			if other, dup := kafka[e.kafka]; dup {
				t.Errorf("Kafka number %d is both %s and %s", e.kafka, other, e.name)
			}
			kafka[e.kafka] = e.name
		}
		if e.desc == "" || strings.HasSuffix(e.desc, ".") {
			t.Errorf("%s: description %q must be a non-empty phrase without a final period", e.name, e.desc)
		}
	}
	for _, c := range []ErrorCode{-2, ErrorCode(len(errorTable) - 1), math.MinInt16, math.MaxInt16} {
		if row(c) != nil {
			t.Errorf("row(%d) = %v, want nil for an unlisted code", c, row(c))
		}
	}
}

// goName is the Go spelling of a Kafka name: NOT_ENOUGH_REPLICAS becomes
// NotEnoughReplicas, BROKER_ID_NOT_REGISTERED BrokerIDNotRegistered.
func goName(kafkaName string) string {
	var b strings.Builder
	for _, w := range strings.Split(kafkaName, "_") {
		if w == "ID" {
			b.WriteString(w)
			continue
		}
		b.WriteString(w[:1] + strings.ToLower(w[1:]))
	}
	return b.String()
}

// TestCodeDeclarationsMatchTable reads errorcode.go's source: every Code
// constant is documented, is named after its row's Kafka name and has a
// row; every row has its constant, and every row but NONE has one
// documented Err variable, named like the constant, pointing at it.
func TestCodeDeclarationsMatchTable(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "errorcode.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]ErrorCode{} // Code constant name → value
	sentinels := map[string]string{} // Err variable name → the constant passed to row
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || (g.Tok != token.CONST && g.Tok != token.VAR) {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, id := range vs.Names {
				switch {
				case g.Tok == token.CONST && strings.HasPrefix(id.Name, "Code"):
					if vs.Doc.Text() == "" {
						t.Errorf("%s has no doc comment", id.Name)
					}
					v, err := constValue(vs.Values[i])
					if err != nil {
						t.Fatalf("%s: %v", id.Name, err)
					}
					consts[id.Name] = ErrorCode(v)
				case g.Tok == token.VAR && strings.HasPrefix(id.Name, "Err"):
					if vs.Doc.Text() == "" {
						t.Errorf("%s has no doc comment", id.Name)
					}
					call, ok := vs.Values[i].(*ast.CallExpr)
					if !ok || len(call.Args) != 1 || call.Fun.(*ast.Ident).Name != "row" {
						t.Fatalf("%s is not row(CodeX)", id.Name)
					}
					sentinels[id.Name] = call.Args[0].(*ast.Ident).Name
				}
			}
		}
	}
	for i := range errorTable {
		e := &errorTable[i]
		constName := "Code" + goName(e.name)
		if v, ok := consts[constName]; !ok || v != e.code {
			t.Errorf("row %s (%d): want a constant %s = %d, have %v (declared: %v)", e.name, e.code, constName, e.code, v, ok)
		}
		delete(consts, constName)
		if e.code == CodeNone {
			continue
		}
		errName := "Err" + goName(e.name)
		if got := sentinels[errName]; got != constName {
			t.Errorf("want %s = row(%s), have row(%q)", errName, constName, got)
		}
		delete(sentinels, errName)
	}
	for name, v := range consts {
		t.Errorf("constant %s = %d has no row in errorTable", name, v)
	}
	for name, c := range sentinels {
		t.Errorf("sentinel %s = row(%s) is not named after its row", name, c)
	}
}

// constValue evaluates the integer literals the Code constants use.
func constValue(x ast.Expr) (int64, error) {
	neg := false
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		neg, x = true, u.X
	}
	lit, ok := x.(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return 0, fmt.Errorf("value is not an integer literal")
	}
	v, err := strconv.ParseInt(lit.Value, 0, 16)
	if neg {
		v = -v
	}
	return v, err
}

// docTable renders errorTable as the block doc.go shows.
func docTable() string {
	width := len("name")
	for _, e := range errorTable {
		width = max(width, len(e.name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "//\tcode  %-*s  Kafka  retriable  meaning\n", width, "name")
	for _, e := range errorTable {
		kafka := "-"
		if k, ok := e.KafkaCode(); ok {
			kafka = strconv.Itoa(int(k))
		}
		retriable := ""
		if e.retriable {
			retriable = "yes"
		}
		fmt.Fprintf(&b, "//\t%4d  %-*s  %5s  %-9s  %s\n", e.code, width, e.name, kafka, retriable, e.desc)
	}
	return b.String()
}

// TestDocTable keeps the code table in doc.go equal to errorTable. After
// changing the table, run: go test ./wire -run TestDocTable -update
func TestDocTable(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	start := strings.Index(doc, "//\tcode  name")
	if start < 0 {
		t.Fatal(`doc.go has no block starting "//\tcode  name"`)
	}
	end := start
	for end < len(doc) && strings.HasPrefix(doc[end:], "//\t") {
		end += strings.IndexByte(doc[end:], '\n') + 1
	}
	want := docTable()
	if doc[start:end] == want {
		return
	}
	if *update {
		if err := os.WriteFile("doc.go", []byte(doc[:start]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("doc.go's code table differs from errorTable; run go test ./wire -run TestDocTable -update\nhave:\n%s\nwant:\n%s", doc[start:end], want)
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
		if got := IsRetriable(err); got != code.Retriable() {
			t.Fatalf("IsRetriable(ErrorCode(%d).Err()) = %v, want %v", c, got, !got)
		}
	}
}

func TestUnknownCode(t *testing.T) {
	code := ErrorCode(1234)
	if got := code.String(); got != "ErrorCode(1234)" {
		t.Errorf("String() = %q", got)
	}
	if k, ok := code.KafkaCode(); ok || k != 0 {
		t.Errorf("KafkaCode() = %d, %v; want 0, false", k, ok)
	}
	if code.Retriable() {
		t.Error("an unlisted code is retriable; Kafka's client treats it as UNKNOWN_SERVER_ERROR")
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
	m, derr := DecodeFetchResponse(mustEncode(t, FetchResponse{ErrorCode: code}))
	if derr != nil || m.ErrorCode != code {
		t.Fatalf("decode = %+v, %v; want the unknown code kept", m, derr)
	}
}

func TestCodeOf(t *testing.T) {
	logErr := errors.New("log: offset 9 beyond log end 4")
	_, versionErr := DecodeFetchRequest(patch(mustEncode(t, FetchRequest{}), 2, int16(1)))
	_, _, peekVersionErr := PeekHeader(patch(mustEncode(t, FetchRequest{}), 2, int16(1)))
	_, topicErr := DecodeProduceRequest(patchByte(mustEncode(t, ProduceRequest{Partitions: []ProducePartition{{Topic: "t"}}}), 20, '*'))
	_, partitionErr := DecodeProduceRequest(patch(mustEncode(t, ProduceRequest{Partitions: []ProducePartition{{Topic: "t"}}}), 21, int32(-1)))
	for _, tc := range []struct {
		name string
		err  error
		want ErrorCode
	}{
		{"nil", nil, CodeNone},
		{"wrapped sentinel", fmt.Errorf("produce: %w", ErrNotEnoughReplicas), CodeNotEnoughReplicas},
		{"wrapped new sentinel", fmt.Errorf("log: %w", ErrKafkaStorageError), CodeKafkaStorageError},
		{"sentinel wrapping a package error", fmt.Errorf("%w: %w", ErrOffsetOutOfRange, logErr), CodeOffsetOutOfRange},
		{"two sentinels: lower code wins", errors.Join(ErrFencedLeaderEpoch, ErrNotLeaderOrFollower), CodeNotLeaderOrFollower},
		{"a sentinel beside UNKNOWN_SERVER_ERROR wins", errors.Join(ErrUnknownServerError, ErrNetworkException), CodeNetworkException},
		{"our decode failure", fmt.Errorf("request: %w", ErrTruncated), CodeInvalidRequest},
		{"our version failure is UNSUPPORTED_VERSION", versionErr, CodeUnsupportedVersion},
		{"PeekHeader's version failure too", peekVersionErr, CodeUnsupportedVersion},
		{"our invalid topic is INVALID_TOPIC_EXCEPTION", topicErr, CodeInvalidTopicException},
		{"our negative partition is a plain decode failure", partitionErr, CodeInvalidRequest},
		{"unrelated error", io.ErrClosedPipe, CodeUnknownServerError},
		{"an Error that is no row", &Error{}, CodeUnknownServerError},
		{"a copy of a row is not the row", func() error { e := *ErrNotEnoughReplicas; return &e }(), CodeUnknownServerError},
		{"frame too large is ours, not the peer's fault in the table", ErrFrameTooLarge, CodeUnknownServerError},
	} {
		if got := CodeOf(tc.err); got != tc.want {
			t.Errorf("%s: CodeOf(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

func TestIsRetriable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{fmt.Errorf("produce: %w", ErrNotEnoughReplicas), true},
		{ErrCorruptMessage, true},
		{ErrUnknownReplica, true},
		{ErrOffsetOutOfRange, false},
		{ErrInvalidRequiredAcks, false},
		{ErrTruncated, false},         // INVALID_REQUEST
		{io.ErrClosedPipe, false},     // UNKNOWN_SERVER_ERROR
		{ErrorCode(999).Err(), false}, // unlisted: UNKNOWN_SERVER_ERROR
	} {
		if got := IsRetriable(tc.err); got != tc.want {
			t.Errorf("IsRetriable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	var e *Error
	if !errors.As(fmt.Errorf("broker 2: %w", ErrLeaderNotAvailable), &e) || e != ErrLeaderNotAvailable || !e.Retriable() {
		t.Errorf("errors.As did not recover ErrLeaderNotAvailable's row: %v", e)
	}
}

func TestSentinelFamilies(t *testing.T) {
	for _, err := range []error{ErrTruncated, ErrTrailingBytes, ErrUnknownAPIKey, ErrWrongAPIKey,
		errBadVersion, ErrNegativeLength, ErrNegativeOffset, ErrInvalidEpoch, ErrNegativeTimeout,
		ErrInvalidTopic, ErrInvalidPartition, ErrInvalidValue} {
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%v does not match ErrMalformed", err)
		}
	}
	if !errors.Is(errBadVersion, ErrUnsupportedVersion) {
		t.Error("a version decoding error does not match ErrUnsupportedVersion")
	}
	if !errors.Is(ErrInvalidTopic, ErrInvalidTopicException) {
		t.Error("an invalid topic name does not match ErrInvalidTopicException")
	}
	// A peer's code is the peer's verdict, never our decoding failure.
	for i := range errorTable {
		if e := &errorTable[i]; errors.Is(e, ErrMalformed) {
			t.Errorf("%v matches ErrMalformed", e)
		}
	}
	for _, err := range []error{ErrFrameTooLarge, ErrShortFrame, ErrOffsetOverflow} {
		if errors.Is(err, ErrMalformed) {
			t.Errorf("%v matches ErrMalformed; it is not a decoding error", err)
		}
	}
	if !errors.Is(ErrShortFrame, io.ErrUnexpectedEOF) {
		t.Error("ErrShortFrame does not match io.ErrUnexpectedEOF")
	}
}

func TestCodeOfWrappedDoesNotAllocate(t *testing.T) {
	err := fmt.Errorf("produce: %w", ErrNotEnoughReplicas)
	if allocs := testing.AllocsPerRun(100, func() {
		if CodeOf(err) != CodeNotEnoughReplicas {
			t.Fatal("wrong code")
		}
	}); allocs != 0 {
		t.Fatalf("CodeOf allocated %v times per call, want 0", allocs)
	}
}
