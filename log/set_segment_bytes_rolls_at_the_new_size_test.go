package log

import (
	"errors"
	"testing"
)

// A segment size changed on an open log applies to the next roll: appends
// after it roll at the new size, and segments written before keep theirs.
func TestSetSegmentBytesRollsAtTheNewSize(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 1 << 20})
	batch := stBatch(t, 0, 1, 40, 1)
	// AppendAsLeader assigns offsets in the bytes it is given: a fresh
	// copy each time.
	fresh := func() []byte { return append([]byte(nil), batch...) }
	for range 10 {
		if _, err := l.AppendAsLeader(fresh(), 0); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(l.segments); n != 1 {
		t.Fatalf("%d segments before the change, want 1", n)
	}
	if err := l.SetSegmentBytes(int64(2 * len(batch))); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := l.AppendAsLeader(fresh(), 0); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(l.segments); n != 1+5 {
		t.Fatalf("%d segments after 10 appends at 2 batches a segment, want 6", n)
	}
	if l.SegmentBytes() != int64(2*len(batch)) {
		t.Fatalf("SegmentBytes() = %d", l.SegmentBytes())
	}
	for _, n := range []int64{0, MaxSegmentBytes + 1} {
		if err := l.SetSegmentBytes(n); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("SetSegmentBytes(%d) = %v, want ErrInvalidArgument", n, err)
		}
	}
}
