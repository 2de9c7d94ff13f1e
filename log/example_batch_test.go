package log_test

import (
	"errors"
	"fmt"

	"github.com/kaenlog/kaenlog/log"
)

// A producer encodes a batch; the leader stamps its base offset and epoch in
// place. Both fields sit before the CRC'd range, so the producer's CRC stays
// valid and is not recomputed.
func ExampleAppendBatch() {
	b := log.Batch{
		BaseTimestamp: 1700000000000,
		MaxTimestamp:  1700000000005,
		ProducerID:    -1,
		ProducerEpoch: -1,
		BaseSequence:  -1,
		Records: []log.Record{
			{Key: []byte("user-1"), Value: []byte("signed up")},
			{TimestampDelta: 5, Key: []byte("user-1"), Value: []byte("logged in")},
		},
	}
	b.SetSequentialOffsetDeltas() // offset deltas 0, 1
	buf, err := log.AppendBatch(nil, &b)
	if err != nil {
		fmt.Println(err)
		return
	}
	produced, _ := log.VerifyBatch(buf)
	fmt.Printf("producer: %d bytes, base offset %d, crc %#08x\n", len(buf), produced.BaseOffset, produced.CRC)

	if err := log.SetBaseOffset(buf, 42); err != nil {
		fmt.Println(err)
		return
	}
	if err := log.SetPartitionLeaderEpoch(buf, 3); err != nil {
		fmt.Println(err)
		return
	}
	stamped, err := log.VerifyBatch(buf)
	fmt.Printf("leader:   offsets %d-%d, epoch %d, crc %#08x, verify error: %v\n",
		stamped.BaseOffset, stamped.LastOffset(), stamped.PartitionLeaderEpoch, stamped.CRC, err)

	decoded, _, err := log.DecodeBatch(buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range decoded.Records {
		fmt.Printf("offset %d at %d: %s = %s\n",
			decoded.BaseOffset+uint64(r.OffsetDelta), decoded.BaseTimestamp+r.TimestampDelta, r.Key, r.Value)
	}
	// Output:
	// producer: 105 bytes, base offset 0, crc 0x57b2f656
	// leader:   offsets 42-43, epoch 3, crc 0x57b2f656, verify error: <nil>
	// offset 42 at 1700000000000: user-1 = signed up
	// offset 43 at 1700000000005: user-1 = logged in
}

// Recovering a segment whose last write was cut short: the scanner stops at
// the torn batch, and everything before Pos is whole, verified batches.
func ExampleBatchScanner() {
	var segment []byte
	for i := range 3 {
		b := log.Batch{BaseOffset: uint64(i), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
			Records: []log.Record{{Value: []byte("payload")}}}
		var err error
		if segment, err = log.AppendBatch(segment, &b); err != nil {
			fmt.Println(err)
			return
		}
	}
	segment = segment[:len(segment)-10] // a crash tore the last batch

	var s log.BatchScanner
	s.Reset(segment)
	for s.Next() {
		fmt.Printf("batch at byte %d: offset %d, %d bytes\n", s.Pos(), s.Header().BaseOffset, len(s.Bytes()))
	}
	fmt.Printf("stopped at byte %d of %d: %v\n", s.Pos(), len(segment), s.Err())
	fmt.Println("torn tail:", errors.Is(s.Err(), log.ErrTruncated), "corrupt:", errors.Is(s.Err(), log.ErrCorrupt))
	// Output:
	// batch at byte 0: offset 0, 75 bytes
	// batch at byte 75: offset 1, 75 bytes
	// stopped at byte 150 of 215: log: truncated record batch at byte 150
	// torn tail: true corrupt: true
}
