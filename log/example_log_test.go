package log_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kaenlog/kaenlog/log"
)

// producerBatch encodes one batch the way a producer would send it: offsets
// start at 0 and the leader restamps them on append.
func producerBatch(values ...string) []byte {
	b := log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		BaseTimestamp: 1_700_000_000_000, MaxTimestamp: 1_700_000_000_000}
	for _, v := range values {
		b.Records = append(b.Records, log.Record{Value: []byte(v)})
	}
	b.SetSequentialOffsetDeltas()
	out, err := log.AppendBatch(nil, &b)
	if err != nil {
		panic(err)
	}
	return out
}

// values lists the records in whole batches as "offset:value".
func values(batches []byte) []string {
	decoded, err := log.DecodeBatches(batches)
	if err != nil {
		panic(err)
	}
	var out []string
	for _, b := range decoded {
		for _, r := range b.Records {
			out = append(out, fmt.Sprintf("%d:%s", b.BaseOffset+uint64(r.OffsetDelta), r.Value))
		}
	}
	return out
}

// A single-replica log is in eager-HW mode: every append is committed at
// once. Replication switches that off, and then the LEO runs ahead of the
// HW: followers read to the LEO, consumers only to the HW.
func ExampleLog() {
	dir, err := os.MkdirTemp("", "kaenlog-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	l, err := log.Open(filepath.Join(dir, "orders-0"), log.Options{})
	if err != nil {
		panic(err)
	}
	defer l.Close()

	info, _ := l.AppendAsLeader(producerBatch("m1", "m2"), 0)
	fmt.Printf("append at %d: LEO %d, HW %d (eager)\n", info.FirstOffset, l.EndOffset(), l.HighWatermark())

	l.StopEagerHighWatermark()
	info, _ = l.AppendAsLeader(producerBatch("m3"), 0)
	fmt.Printf("append at %d: LEO %d, HW %d\n", info.FirstOffset, l.EndOffset(), l.HighWatermark())

	for _, iso := range []log.Isolation{log.IsolationLogEnd, log.IsolationHighWatermark} {
		out, err := l.Read(nil, 0, 1<<20, iso)
		if err != nil {
			panic(err)
		}
		fmt.Printf("read %-13s %v\n", iso, values(out))
	}

	// The replication layer commits offset 2 once the follower has it.
	if err := l.SetHighWatermark(3); err != nil {
		panic(err)
	}
	out, _ := l.Read(nil, 2, 1<<20, log.IsolationHighWatermark)
	fmt.Printf("after SetHighWatermark(3): %v\n", values(out))
	// Output:
	// append at 0: LEO 2, HW 2 (eager)
	// append at 2: LEO 3, HW 2
	// read LogEnd        [0:m1 1:m2 2:m3]
	// read HighWatermark [0:m1 1:m2]
	// after SetHighWatermark(3): [2:m3]
}

// A follower copies the leader's bytes verbatim, keeping the leader's
// offsets, and refuses batches that do not continue its log.
func ExampleLog_AppendAsFollower() {
	dir, err := os.MkdirTemp("", "kaenlog-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	leader, _ := log.Open(filepath.Join(dir, "broker-1", "orders-0"), log.Options{})
	defer leader.Close()
	follower, _ := log.Open(filepath.Join(dir, "broker-2", "orders-0"), log.Options{})
	defer follower.Close()
	leader.StopEagerHighWatermark()
	follower.StopEagerHighWatermark()

	leader.AppendAsLeader(producerBatch("a", "b"), 4)
	fetched, _ := leader.Read(nil, follower.EndOffset(), 1<<20, log.IsolationLogEnd)
	info, err := follower.AppendAsFollower(fetched)
	if err != nil {
		panic(err)
	}
	fmt.Println("follower LEO", follower.EndOffset(), "records", info.Records, values(fetched))

	_, err = follower.AppendAsFollower(fetched) // the same fetch again
	fmt.Println("replayed fetch is ErrNotAtLogEnd:", errors.Is(err, log.ErrNotAtLogEnd))
	// Output:
	// follower LEO 2 records 2 [0:a 1:b]
	// replayed fetch is ErrNotAtLogEnd: true
}
