package log

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// FuzzValidateLeaderBatch feeds arbitrary bytes to validateLeaderBatch. It
// must never panic nor write to its input; whatever it accepts, DecodeBatch
// must accept with the same record count and the MaxTimestamp it returned;
// and it must agree with the oracle of the property tests (vdOracle), so
// that its corruption errors are DecodeBatch's to the byte. Random bytes
// rarely have a right CRC, so each input is also tried with its CRC
// recomputed. The seeds are built in: valid batches of several shapes, the
// batches of issue 7, and a few broken ones.
func FuzzValidateLeaderBatch(f *testing.F) {
	for _, seed := range vdFuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vdFuzzOne(t, data)
		if len(data) >= BatchHeaderSize {
			fixed := bytes.Clone(data)
			vdRecrc(fixed)
			vdFuzzOne(t, fixed)
		}
	})
}

// vdFuzzOne checks one input, with a size limit that accepts it and one
// that does not.
func vdFuzzOne(t *testing.T, data []byte) {
	for _, maxBytes := range []int{len(data), len(data) / 2} {
		if msg := vdCheckAgainstOracle(data, maxBytes); msg != "" {
			t.Fatalf("max %d: %s\ninput %x", maxBytes, msg, data)
		}
		h, err := validateLeaderBatch(data, maxBytes)
		if err != nil {
			continue
		}
		b, n, derr := DecodeBatch(data)
		if derr != nil || n != h.Size() || int(h.RecordCount) != len(b.Records) || h.MaxTimestamp != vdMaxTimestamp(&b) {
			t.Fatalf("accepted with %+v; DecodeBatch = %d records, %d bytes, %v", h, len(b.Records), n, derr)
		}
	}
}

// vdFuzzSeeds returns the fuzz target's seed inputs.
func vdFuzzSeeds(t testing.TB) [][]byte {
	withHeaders := &Batch{ProducerID: 9, ProducerEpoch: 1, BaseSequence: 0, BaseTimestamp: 1_700_000_000_000, Records: make([]Record, 40)}
	for i := range withHeaders.Records {
		withHeaders.Records[i] = Record{TimestampDelta: int64(i * 300), Key: []byte("key"), Value: bytes.Repeat([]byte{'v'}, i*7),
			Headers: []Header{{Key: "h", Value: []byte{byte(i)}}, {Key: "null"}}}
	}
	withHeaders.SetSequentialOffsetDeltas()
	seeds := [][]byte{
		vdEncode(t, vdProducerBatch()),
		vdEncode(t, benchBatch(1)),
		vdEncode(t, benchBatch(20)),
		vdEncode(t, withHeaders),
		vdRaw(t, "0c 00 00 00 01 01 00", 1),                   // smallest valid batch
		vdRaw(t, vdPadRecord(0)+vdPadRecord(1), 2),            // two records in the fast path
		vdRaw(t, "", 1),                                       // "1 record" with no record bytes
		vdRaw(t, "00", math.MaxInt32),                         // 62 bytes claiming 2^31-1 records
		vdRaw(t, "ffffffffffffffffffffffffffffffffffffff", 1), // garbage records, right CRC
		vdRaw(t, "", 0),                                       // no records
		vdRaw(t, "0e 00 00 00 01 03 41 00"+vdPadRecord(1), 2), // value length -2
	}
	gzip := vdEncode(t, vdProducerBatch())
	binary.BigEndian.PutUint16(gzip[posAttributes:], 1)
	seeds = append(seeds, vdRecrc(gzip))
	return seeds
}
