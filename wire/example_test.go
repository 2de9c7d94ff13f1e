package wire_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kaenlog/kaenlog/wire"
)

// A follower's fetcher asks one leader for every partition it follows
// there, in one frame; the leader reads it back and decodes it into the
// value it keeps for the connection.
func ExampleReadFrame() {
	var link bytes.Buffer

	req := wire.FetchRequest{
		CorrelationID: 1,
		ReplicaID:     2, // a follower; a consumer sends wire.ConsumerReplicaID
		ReplicaEpoch:  12,
		MaxWaitMs:     500,
		MinBytes:      1,
		MaxBytes:      50 << 20,
		Partitions: []wire.FetchPartition{
			{Topic: "orders", Partition: 0, FetchOffset: 1, HasLogStartOffset: true, MaxBytes: 1 << 20},
			{Topic: "orders", Partition: 1, FetchOffset: 7, LastFetchedEpoch: 2, CurrentLeaderEpoch: 2, HasLogStartOffset: true, MaxBytes: 1 << 20},
		},
	}
	payload, err := req.AppendTo(nil)
	if err != nil {
		panic(err)
	}
	if err := wire.WriteFrame(&link, payload); err != nil {
		panic(err)
	}
	fmt.Println("bytes on the link:", link.Len())

	var (
		buf []byte
		got wire.FetchRequest // kept per connection: decoding into it is free once warm
	)
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
		if err := wire.DecodeFetchRequestInto(frame, &got); err != nil {
			panic(err)
		}
		for _, p := range got.Partitions {
			fmt.Printf("replica %d wants %s-%d from offset %d\n", got.ReplicaID, p.Topic, p.Partition, p.FetchOffset)
		}
	}
	// Output:
	// bytes on the link: 120
	// api: Fetch correlation: 1
	// replica 2 wants orders-0 from offset 1
	// replica 2 wants orders-1 from offset 7
	// link drained
}

// A server decodes whatever request arrives into a Go value and switches
// on its type; the handler never sees bytes.
func ExampleDecodeRequest() {
	payload, err := wire.ListOffsetsRequest{
		CorrelationID: 5,
		ReplicaID:     wire.ConsumerReplicaID,
		Partitions:    []wire.ListOffsetsPartition{{Topic: "orders", CurrentLeaderEpoch: wire.NoEpoch, Timestamp: wire.EarliestTimestamp}},
	}.AppendTo(nil)
	if err != nil {
		panic(err)
	}
	msg, err := wire.DecodeRequest(payload)
	if err != nil {
		panic(err)
	}
	switch m := msg.(type) {
	case *wire.FetchRequest:
		fmt.Println("fetch")
	case *wire.ListOffsetsRequest:
		fmt.Println(m.APIKey(), "correlation", m.Correlation(), "wants the start of", m.Partitions[0].Topic)
	}
	// Output:
	// ListOffsets correlation 5 wants the start of orders
}

// A TCP runtime frames a fetch answer as net.Buffers: one writev puts the
// frame out, and the records are never copied into it.
func ExampleAppendFrameBuffers() {
	records := bytes.Repeat([]byte{0x5a}, 1<<20) // one partition's batches, e.g. read from the log
	resp := wire.FetchResponse{CorrelationID: 1, Partitions: []wire.FetchPartitionResponse{
		{Topic: "orders", Partition: 0, HighWatermark: 42, Records: records},
	}}
	bufs, scratch, err := wire.AppendFrameBuffers(nil, nil, resp)
	if err != nil {
		panic(err)
	}
	fmt.Println("pieces:", len(bufs), "copied:", len(scratch), "bytes")
	fmt.Println("records by reference:", &bufs[1][0] == &records[0])

	var conn bytes.Buffer // a *net.TCPConn in a broker
	out := bufs           // WriteTo consumes its receiver; keep bufs for reuse
	n, err := out.WriteTo(&conn)
	if err != nil {
		panic(err)
	}
	fmt.Println("frame bytes written:", n)
	// Output:
	// pieces: 2 copied: 72 bytes
	// records by reference: true
	// frame bytes written: 1048648
}

// Errors cross the wire as kaenlog's own codes: the broker turns its error
// into a code, the producer turns the code back into a matchable error.
func ExampleCodeOf() {
	refused := fmt.Errorf("produce acks=all: %w", wire.ErrNotEnoughReplicas)
	resp := wire.ProduceResponse{CorrelationID: 4, Partitions: []wire.ProducePartitionResponse{
		{Topic: "orders", Partition: 0, ErrorCode: wire.CodeOf(refused)},
	}}
	p := resp.Partitions[0]
	fmt.Printf("%s-%d: error %d (%s)\n", p.Topic, p.Partition, p.ErrorCode, p.ErrorCode)

	err := p.ErrorCode.Err()
	fmt.Println("retry later:", errors.Is(err, wire.ErrNotEnoughReplicas))
	fmt.Println("base offset known:", p.HasBaseOffset)
	// Output:
	// orders-0: error 2 (NOT_ENOUGH_REPLICAS)
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
	payload, err := wire.OffsetsForLeaderEpochResponse{CorrelationID: 9, Partitions: []wire.OffsetsForLeaderEpochPartitionResponse{
		{Topic: "orders", Partition: 0},
	}}.AppendTo(nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("on the wire: % x\n", payload[len(payload)-12:])
	resp, err := wire.DecodeOffsetsForLeaderEpochResponse(payload)
	if err != nil {
		panic(err)
	}
	if p := resp.Partitions[0]; !p.Found {
		fmt.Println("leader has no such epoch for", p.Topic, p.Partition)
	}
	// Output:
	// on the wire: ff ff ff ff ff ff ff ff ff ff ff ff
	// leader has no such epoch for orders 0
}

// Topic names follow Kafka's rule, checked by every encoder and decoder;
// a bad one is answered with INVALID_TOPIC_EXCEPTION.
func ExampleValidateTopic() {
	for _, name := range []string{"orders", "orders/eu", ".."} {
		err := wire.ValidateTopic(name)
		fmt.Printf("%q: %v (%s)\n", name, err == nil, wire.CodeOf(err))
	}
	// Output:
	// "orders": true (NONE)
	// "orders/eu": false (INVALID_TOPIC_EXCEPTION)
	// "..": false (INVALID_TOPIC_EXCEPTION)
}
