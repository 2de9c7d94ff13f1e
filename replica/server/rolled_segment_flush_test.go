package server_test

import (
	"fmt"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// A broker's host fsyncs the segments its logs roll, unasked (no Flush, no
// FlushIntervalMs), as Kafka's scheduler does after every roll: the
// recovery point reaches the active segment's base.
func TestHostFlushesRolledSegments(t *testing.T) {
	c := clustertest.Start(t, clustertest.Options{Brokers: 1, Broker: func(cfg *replica.BrokerConfig) {
		cfg.Replica.Log.SegmentBytes = 300
	}})
	c.CreateTopic("rolls", 1, 1, 1)
	tp := replica.TopicPartition{Topic: "rolls", Partition: 0}
	for i := range 20 {
		if r := produce(c, tp, -1, fmt.Sprintf("record-%02d-%s", i, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")); r.ErrorCode != wire.CodeNone {
			t.Fatalf("produce %d: %v", i, r.ErrorCode)
		}
	}
	b := c.Broker(1)
	var leo uint64
	b.Host.Do(func(int64) {
		r, _ := b.Broker.Replica(tp)
		leo = r.LEO()
	})
	if leo != 20 {
		t.Fatalf("log end %d, want 20", leo)
	}
	// The flush runs outside the node lock and makes no event; the
	// broker's heartbeats wake the wait.
	c.Await("the rolled segments flushed", func() bool {
		done := false
		b.Host.Do(func(int64) {
			r, _ := b.Broker.Replica(tp)
			l := r.Log()
			done = !l.RolledUnflushed() && l.RecoveryPoint() > 0
		})
		return done
	})
	b.Host.Do(func(int64) {
		r, _ := b.Broker.Replica(tp)
		if rp := r.Log().RecoveryPoint(); rp < 10 {
			t.Errorf("recovery point %d: most of the 20 records were rolled into older segments", rp)
		}
		if logs := b.Broker.RolledUnflushedLogs(nil); len(logs) != 0 {
			t.Errorf("RolledUnflushedLogs: %d logs", len(logs))
		}
	})
}
