package log

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// FuzzOpenReadOnly feeds arbitrary bytes as a segment file: OpenReadOnly
// and ScanSegment never panic, never allocate past the file, and the
// valid prefix they report is made of batches that verify.
func FuzzOpenReadOnly(f *testing.F) {
	f.Add([]byte{})
	f.Add(stBatch(f, 0, 2, 5, 1000))
	f.Add(append(stBatch(f, 0, 1, 3, 1000), stBatch(f, 1, 3, 3, 1001)...))
	f.Add(append(stBatch(f, 0, 1, 3, 1000), 0, 0, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := vfs.NewMem()
		if err := m.MkdirAll(stDir, 0o755); err != nil {
			t.Fatal(err)
		}
		stMemWrite(t, m, segmentName(0, segmentSuffix), data)
		r, err := OpenReadOnly(stDir, Options{FS: m})
		if err != nil {
			t.Fatalf("OpenReadOnly: %v", err)
		}
		seg := r.Segments()[0]
		if seg.ValidBytes > seg.Size || seg.Size != int64(len(data)) {
			t.Fatalf("segment %+v for %d bytes", seg, len(data))
		}
		cut, damaged := r.Damage()
		if damaged != (seg.ValidBytes < seg.Size) || damaged && !errors.Is(cut.Reason, ErrCorrupt) {
			t.Fatalf("damage %+v %v for segment %+v", cut, damaged, seg)
		}
		var valid int64
		err = r.ScanSegment(0, func(b StoredBatch) bool {
			if b.Pos < seg.ValidBytes && b.Err != nil {
				t.Fatalf("batch at %d in the valid prefix: %v", b.Pos, b.Err)
			}
			if b.Err == nil && b.Pos == valid {
				valid += int64(b.Header.Size())
			}
			return true
		})
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("ScanSegment: %v", err)
		}
		if valid < seg.ValidBytes || cap(r.buf) > max(len(data), recoverChunkBytes) {
			t.Fatalf("scan verified %d bytes, open %d; buffer %d", valid, seg.ValidBytes, cap(r.buf))
		}
	})
}
