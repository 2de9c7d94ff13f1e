package wire_test

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// TestADecodedProduceRequestIsBoundedByItsFrame: decoding a produce
// request allocates about what its frame holds, not many times it. A
// transport's memory budget counts a request from its length prefix; a
// frame of 10-byte partitions (an empty topic name, null records) decodes
// into 48-byte ProducePartition values, so a 100 MiB frame (the default
// MaxFrameSize) would allocate 480 MB beyond the budget before the broker
// refuses more than 1<<16 partitions (replica's maxProducePartitions).
func TestADecodedProduceRequestIsBoundedByItsFrame(t *testing.T) {
	t.Skip("issue: wire's produce decoder bounds a partition count by the bytes left only (10 bytes each), not by the broker's 1<<16: " +
		"a 10 MiB frame of empty partitions allocated 50 MB (4.8x) before its first topic was refused; the Kafka listener walks the counts first (replica/kafka checkCounts)")
	const n = 1 << 20
	payload, err := (&wire.ProduceRequest{CorrelationID: 1, Acks: wire.AcksLeader, TimeoutMs: 1}).AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	payload = binary.BigEndian.AppendUint32(payload[:len(payload)-4], n)
	for range n {
		payload = append(payload, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff) // topic "", partition 0, null records
	}
	var m wire.ProduceRequest
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err = wire.DecodeProduceRequestInto(payload, &m)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*uint64(len(payload)) {
		t.Fatalf("a %d-byte produce frame allocated %d bytes to decode (%.1fx; %v)", len(payload), got, float64(got)/float64(len(payload)), err)
	}
}
