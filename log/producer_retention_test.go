package log

import (
	"reflect"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// Retention keeps the producer state (doc.go, "Producer state": "Retention
// keeps the state, as Kafka does, until it expires"), and SyncNever
// survives a process crash. So a kill -9 after retention must not forget a
// producer whose batches retention deleted: a retry of its acknowledged
// batch must still be answered as a duplicate, not written a second time.
func TestRetentionKeepsProducerStateAcrossACrash(t *testing.T) {
	for _, mode := range []vfs.CrashMode{vfs.KeepUnsynced, vfs.LoseUnsynced} {
		t.Run(mode.String(), func(t *testing.T) {
			mem := vfs.NewMem()
			opts := Options{FS: mem, SegmentBytes: 400, Sync: SyncEveryAppend}
			l, err := Open(pdir, opts)
			if err != nil {
				t.Fatal(err)
			}
			// Producer 7 writes one batch, acknowledged (eager HW: committed).
			first := idBatch(t, 7, 0, 0, 1, 1000)
			info, err := l.AppendAsLeader(append([]byte(nil), first...), 1)
			if err != nil {
				t.Fatal(err)
			}
			// Plain appends roll segments past it.
			for i := range 20 {
				plainAppend(t, l, 2, int64(2000+i))
			}
			want, ok := l.Producer(7)
			if !ok {
				t.Fatal("producer 7 unknown before retention")
			}
			n, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1}, 0)
			if err != nil || n == 0 {
				t.Fatalf("retention deleted %d segments, %v", n, err)
			}
			if got, ok := l.Producer(7); !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("retention changed producer 7: %+v %v (as documented it keeps it)", got, ok)
			}
			// Under SyncEveryAppend every append is fsynced: this crash
			// loses nothing that was acknowledged.
			l.Abandon()
			mem.Crash(mode, 1)
			l = stOpen(t, pdir, opts)
			got, ok := l.Producer(7)
			if !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("after a crash (%v) producer 7 is %+v (known %v), want %+v as before the crash\n%s", mode, got, ok, want, l.Recovery())
			}
			// The consequence: the producer's retry of its acknowledged batch.
			leo := l.EndOffset()
			again, err := l.AppendAsLeader(append([]byte(nil), first...), 1)
			if err != nil {
				t.Fatalf("retry: %v", err)
			}
			if !again.Duplicate {
				t.Errorf("the retry of producer 7's batch (first written at offset %d) was written again at offset %d (LEO %d -> %d): a duplicate appended twice after a restart",
					info.FirstOffset, again.FirstOffset, leo, l.EndOffset())
			}
		})
	}
}
