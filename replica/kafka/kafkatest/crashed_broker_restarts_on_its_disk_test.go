package kafkatest_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/kafka/kafkatest"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestACrashedLeaderIsReplacedAndRestartsOnItsDiskAtItsKafkaAddress: a
// power cut of the leader leaves the partition to another ISR member
// once the session expires, with every record acknowledged with acks=all
// still there; the crashed broker restarts on what its disk kept, under
// the same id and Kafka address, and rejoins the ISR. Run on the OS's
// files (Config.Dir) and in memory.
func TestACrashedLeaderIsReplacedAndRestartsOnItsDiskAtItsKafkaAddress(t *testing.T) {
	for _, disk := range []string{"memory", "dir"} {
		t.Run(disk, func(t *testing.T) {
			cfg := kafkatest.Config{}
			if disk == "dir" {
				cfg.Dir = t.TempDir()
			}
			c := newCluster(t, cfg)
			if err := c.CreateTopic("t", 1); err != nil {
				t.Fatal(err)
			}
			seeds := c.ListenAddrs()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic("t"),
				kgo.RequiredAcks(kgo.AllISRAcks()))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			const n = 50
			for i := range n {
				if err := cl.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, "r%d", i)}).FirstErr(); err != nil {
					t.Fatal(err)
				}
			}
			old := c.Leader("t", 0)
			if err := c.Crash(old); err != nil {
				t.Fatal(err)
			}
			if _, err := c.AwaitLeader("t", 0, old); err != nil {
				t.Fatal(err)
			}
			if err := c.Restart(old); err != nil {
				t.Fatal(err)
			}
			if got := c.ListenAddrs(); !slices.Equal(got, seeds) {
				t.Fatalf("Kafka listeners %v after the restart, %v before", got, seeds)
			}
			ps, _ := c.Partition("t", 0)
			if err := c.AwaitISR("t", 0, ps.Replicas...); err != nil {
				t.Fatal(err)
			}
			cons, err := kgo.NewClient(kgo.SeedBrokers(seeds...),
				kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"t": {0: kgo.NewOffset().AtStart()}}))
			if err != nil {
				t.Fatal(err)
			}
			defer cons.Close()
			for read := 0; read < n; {
				fs := cons.PollFetches(ctx)
				if ctx.Err() != nil {
					t.Fatalf("%d of %d acknowledged records read: %v", read, n, ctx.Err())
				}
				fs.EachRecord(func(r *kgo.Record) {
					if want := fmt.Sprintf("r%d", r.Offset); string(r.Value) != want {
						t.Errorf("offset %d: %q, acknowledged %q", r.Offset, r.Value, want)
					}
					read++
				})
			}
		})
	}
}

// TestACleanElectionKeepsAValidLeader: ElectLeader with unclean false on
// a partition whose leader is live changes nothing.
func TestACleanElectionKeepsAValidLeader(t *testing.T) {
	c := newCluster(t, kafkatest.Config{})
	if err := c.CreateTopic("t", 1); err != nil {
		t.Fatal(err)
	}
	before, _ := c.Partition("t", 0)
	leader, lost, err := c.ElectLeader("t", 0, false)
	if err != nil || leader != before.Leader || lost {
		t.Fatalf("ElectLeader: leader %d, data may be lost %v, %v; leader before %d", leader, lost, err, before.Leader)
	}
	if after, _ := c.Partition("t", 0); after.LeaderEpoch != before.LeaderEpoch {
		t.Fatalf("leader epoch %d after a clean election on a valid leader, %d before", after.LeaderEpoch, before.LeaderEpoch)
	}
}
