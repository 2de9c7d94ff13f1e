package compression

import (
	"bytes"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/log"
)

// TestDecompressorsAreSafeForConcurrentUse: log calls a Decompressor from
// every Log's appends at once; the pooled lz4 readers and the shared zstd
// decoder give each caller its own output (run with -race).
func TestDecompressorsAreSafeForConcurrentUse(t *testing.T) {
	plain := plainBatch(t, 500, 100)
	records := plain[log.BatchHeaderSize:]
	var wg sync.WaitGroup
	for _, enc := range encoders {
		body := enc.encode(t, records)
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out []byte
				for i := range 20 {
					var err error
					out, err = decompressors[enc.codec](out[:0], body, 8<<20)
					if err != nil || !bytes.Equal(out, records) {
						t.Errorf("%s, goroutine %d, call %d: %d bytes, %v", enc.name, g, i, len(out), err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
}
