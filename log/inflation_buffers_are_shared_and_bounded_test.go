package log

import (
	"testing"
)

// TestInflationBuffersAreSharedAndBounded: validating a compressed batch
// inflates it into a buffer of the shared pool and gives the buffer back
// (a second validation takes no new one), unless the batch inflated to
// more than inflatedKeepBytes: that buffer is dropped, so the pool never
// holds one larger.
func TestInflationBuffersAreSharedAndBounded(t *testing.T) {
	small := stCompress(t, vdEncode(t, benchBatch(100)), CompressionGzip)
	big := &Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: make([]Record, 60)}
	for i := range big.Records {
		big.Records[i].Value = make([]byte, 100<<10) // 6 MB of zeros, a few KB gzipped
	}
	big.SetSequentialOffsetDeltas()
	huge := stCompress(t, vdEncode(t, big), CompressionGzip)

	if _, err := validateLeaderBatch(small, 1<<20); err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(20, func() {
		if _, err := validateLeaderBatch(small, 1<<20); err != nil {
			t.Fatal(err)
		}
	}); allocs > 0 && !raceEnabled {
		t.Errorf("a validation allocates %.0f times; the pool's buffer (and gzip's reader) should be reused", allocs)
	}
	if _, err := validateLeaderBatch(huge, 1<<20); err != nil {
		t.Fatal(err)
	}
	for range 8 {
		buf := inflationBuffers.Get().(*[]byte)
		defer inflationBuffers.Put(buf)
		if cap(*buf) > inflatedKeepBytes {
			t.Fatalf("the pool holds a buffer of %d bytes, more than the %d it may keep", cap(*buf), inflatedKeepBytes)
		}
	}
}
