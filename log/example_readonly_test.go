package log_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kaenlog/kaenlog/log"
)

// OpenReadOnly finds what recovery would find, and changes nothing: here a
// torn write at the end of the active segment, which Open would cut.
func ExampleOpenReadOnly() {
	dir, err := os.MkdirTemp("", "kaenlog-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	l, err := log.Open(dir, log.Options{})
	if err != nil {
		panic(err)
	}
	b := log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		BaseTimestamp: 1_700_000_000_000, MaxTimestamp: 1_700_000_000_000,
		Records: []log.Record{{Value: []byte("m1")}}}
	for range 3 {
		// A fresh batch each time: the append stamps its offsets.
		batch, err := log.AppendBatch(nil, &b)
		if err != nil {
			panic(err)
		}
		if _, err := l.AppendAsLeader(batch, 0); err != nil {
			panic(err)
		}
	}
	if err := l.Close(); err != nil {
		panic(err)
	}
	// A write torn by a crash: half a batch header after the last batch.
	seg := filepath.Join(dir, "00000000000000000000.log")
	f, err := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		panic(err)
	}
	f.Write(make([]byte, 30))
	f.Close()

	r, err := log.OpenReadOnly(dir, log.Options{})
	if err != nil {
		panic(err)
	}
	for _, s := range r.Segments() {
		fmt.Printf("%s: %d of %d bytes valid, %d batches\n", s.File, s.ValidBytes, s.Size, s.Batches)
	}
	if cut, ok := r.Damage(); ok {
		fmt.Printf("damage at %s byte %d, offsets from %d: %v\n", cut.File, cut.Pos, cut.FirstOffset, cut.Reason)
	}
	fmt.Println("clean shutdown:", r.CleanShutdown())
	info, err := os.Stat(seg)
	if err != nil {
		panic(err)
	}
	fmt.Println("segment still", info.Size(), "bytes")
	// Output:
	// 00000000000000000000.log: 210 of 240 bytes valid, 3 batches
	// damage at 00000000000000000000.log byte 210, offsets from 3: log: truncated record batch in 00000000000000000000.log at byte 210
	// clean shutdown: false
	// segment still 240 bytes
}
