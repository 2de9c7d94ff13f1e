package compression

import (
	"runtime"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestADecodedBatchHoldsMemoryForItsRecordsOnly: a small batch that kgo
// compressed (its lz4 frames declare 4 MiB blocks) decodes into about
// what its records inflate to, not a block's room: the records alias
// that buffer, so every decoded batch kept would keep it. (The codecs'
// own pooled buffers, an lz4 block among them, are allowed once.)
func TestADecodedBatchHoldsMemoryForItsRecordsOnly(t *testing.T) {
	for _, c := range []struct {
		codec kgo.CompressionCodec
		c     log.Compression
	}{
		{kgo.SnappyCompression(), log.CompressionSnappy},
		{kgo.Lz4Compression(), log.CompressionLZ4},
		{kgo.ZstdCompression(), log.CompressionZstd},
		{kgo.GzipCompression(), log.CompressionGzip},
	} {
		plain := plainBatch(t, 100, 100) // 10 KB of records
		sent := withBody(t, plain, kgoEncoder(c.codec)(t, plain[log.BatchHeaderSize:]), c.c)
		const decodes = 20
		kept := make([]log.Batch, decodes)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range kept {
			var err error
			if kept[i], _, err = log.DecodeBatch(sent); err != nil {
				t.Fatalf("%v: %v (seed %d)", c.c, err, testSeed)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > decodes*(256<<10)+(8<<20) {
			t.Errorf("%v: %d decoded batches of %d bytes of records hold %d bytes", c.c, decodes, len(plain), held)
		}
		runtime.KeepAlive(kept)
	}
}
