package wire_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kaenlog/kaenlog/wire"
)

// A follower and a consumer send the same FetchRequest; only the replica id
// differs, and it only changes how far the read may go.
func ExampleIsolationOf() {
	fmt.Println("follower 2:", wire.IsolationOf(2))
	fmt.Println("consumer:  ", wire.IsolationOf(wire.ConsumerReplicaID))
	// Output:
	// follower 2: LogEnd
	// consumer:   HighWatermark
}

// A follower's fetch travels as one frame; the leader reads it back, routes
// it by its header and decodes it.
func ExampleReadFrame() {
	var link bytes.Buffer

	req := wire.FetchRequest{
		CorrelationID:      1,
		ReplicaID:          2,
		FetchOffset:        1, // the follower's log end offset
		CurrentLeaderEpoch: 0,
		LastFetchedEpoch:   0,
		MaxBytes:           1 << 20,
	}
	payload, err := req.AppendTo(nil)
	if err != nil {
		panic(err)
	}
	if err := wire.WriteFrame(&link, payload); err != nil {
		panic(err)
	}
	fmt.Println("bytes on the link:", link.Len())

	var buf []byte
	for {
		frame, err := wire.ReadFrame(&link, buf, wire.DefaultMaxFrameSize)
		if err == io.EOF {
			fmt.Println("link drained")
			break
		}
		if err != nil {
			panic(err)
		}
		buf = frame

		key, corr, err := wire.PeekHeader(frame)
		if err != nil {
			panic(err)
		}
		fmt.Println("api:", key, "correlation:", corr)
		got, err := wire.DecodeFetchRequest(frame)
		if err != nil {
			panic(err)
		}
		fmt.Printf("replica %d wants offset %d, reads to %v\n", got.ReplicaID, got.FetchOffset, wire.IsolationOf(got.ReplicaID))
	}
	// Output:
	// bytes on the link: 36
	// api: Fetch correlation: 1
	// replica 2 wants offset 1, reads to LogEnd
	// link drained
}

// Errors cross the wire as kaenlog's own codes: the broker turns its error
// into a code, the producer turns the code back into a matchable error.
func ExampleCodeOf() {
	refused := fmt.Errorf("produce acks=all: %w", wire.ErrNotEnoughReplicas)
	resp := wire.ProduceResponse{CorrelationID: 4, ErrorCode: wire.CodeOf(refused)}
	fmt.Printf("error %d (%s)\n", resp.ErrorCode, resp.ErrorCode)

	err := resp.ErrorCode.Err()
	fmt.Println("retry later:", errors.Is(err, wire.ErrNotEnoughReplicas))
	fmt.Println("base offset known:", resp.HasBaseOffset)
	// Output:
	// error 2 (NOT_ENOUGH_REPLICAS)
	// retry later: true
	// base offset known: false
}

// Every code's sentinel is a *wire.Error that carries kaenlog's number, the
// Kafka counterpart and Kafka's retriable flag, however deeply it is
// wrapped.
func ExampleError() {
	err := fmt.Errorf("produce acks=all: %w", wire.ErrNotEnoughReplicas)
	var e *wire.Error
	if errors.As(err, &e) {
		kafka, _ := e.KafkaCode()
		fmt.Printf("%s: kaenlog %d, Kafka %d, retriable %v\n", e.Name(), e.Code(), kafka, e.Retriable())
	}
	fmt.Println("retry:", wire.IsRetriable(err))
	fmt.Println("retry bad acks:", wire.IsRetriable(wire.CodeInvalidRequiredAcks.Err()))
	// Output:
	// NOT_ENOUGH_REPLICAS: kaenlog 2, Kafka 19, retriable true
	// retry: true
	// retry bad acks: false
}

// Kafka's "no answer" is (-1, -1); here it is Found == false, and the -1s
// exist only in the encoded bytes.
func ExampleDecodeOffsetsForLeaderEpochResponse() {
	payload, err := wire.OffsetsForLeaderEpochResponse{CorrelationID: 9}.AppendTo(nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("on the wire: % x\n", payload[10:])
	resp, err := wire.DecodeOffsetsForLeaderEpochResponse(payload)
	if err != nil {
		panic(err)
	}
	if _, ok := endOffset(resp); !ok {
		fmt.Println("leader has no such epoch")
	}
	// Output:
	// on the wire: ff ff ff ff ff ff ff ff ff ff ff ff
	// leader has no such epoch
}

func endOffset(r wire.OffsetsForLeaderEpochResponse) (uint64, bool) {
	return r.EndOffset, r.Found
}
