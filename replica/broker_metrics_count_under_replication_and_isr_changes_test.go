package replica_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/metrics"
	"github.com/kaenlog/kaenlog/wire"
)

// metricValue is the value of family name's sample whose labels include
// want (every sample, for no labels); ok false when there is none.
func metricValue(fams []metrics.Family, name string, want ...metrics.Label) (float64, bool) {
	for _, f := range fams {
		if f.Name != name {
			continue
		}
		for _, s := range f.Samples {
			if !slices.ContainsFunc(want, func(l metrics.Label) bool { return !slices.Contains(s.Labels, l) }) {
				return s.Value, true
			}
		}
	}
	return 0, false
}

// TestBrokerMetricsCountUnderReplicationAndISRChanges walks the metrics an
// operator watches through a follower's loss and return: all in sync; the
// follower cut off until the leader shrinks the ISR (one shrink, the
// partition under-replicated and at its min ISR, the follower's lag
// growing); healed until it rejoins (one expansion, nothing
// under-replicated, lag 0).
func TestBrokerMetricsCountUnderReplicationAndISRChanges(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 2, a, b, cc)
	leader := c.LeaderOf(topic)
	follower := int32(b)
	if leader == b {
		follower = a
	}
	produce(t, c, wire.AcksAll, "v1", "v2")
	part := []metrics.Label{{Name: "topic", Value: topic.Topic}, {Name: "partition", Value: "0"}}
	check := func(when string, want map[string]float64) {
		t.Helper()
		fams := c.Broker(leader).Metrics(nil)
		if err := metrics.WriteText(new(discard), fams); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		for name, v := range want {
			var got float64
			var ok bool
			switch name {
			case "kaenlog_log_end_offset", "kaenlog_high_watermark":
				got, ok = metricValue(fams, name, part...)
			case "kaenlog_replica_lag_records":
				got, ok = metricValue(fams, name, append(part, metrics.Label{Name: "replica", Value: itoa(follower)})...)
			default:
				got, ok = metricValue(fams, name)
			}
			if !ok || got != v {
				t.Errorf("%s: %s = %v (found %v), want %v", when, name, got, ok, v)
			}
		}
	}
	check("in sync", map[string]float64{
		"kaenlog_leader_count": 1, "kaenlog_partition_count": 1, "kaenlog_broker_fenced": 0,
		"kaenlog_under_replicated_partitions": 0, "kaenlog_under_min_isr_partition_count": 0,
		"kaenlog_isr_shrinks_total": 0, "kaenlog_isr_expands_total": 0,
		"kaenlog_log_end_offset": 2, "kaenlog_high_watermark": 2, "kaenlog_replica_lag_records": 0,
	})

	c.Network().Cut(replica.BrokerAt(follower), replica.BrokerAt(leader))
	produce(t, c, wire.AcksLeader, "v3")
	if err := c.Await(func() bool {
		c.FetchRound() // the other follower keeps up
		return !slices.Contains(committedISR(c), follower)
	}, 120_000); err != nil {
		t.Fatalf("waiting for the leader to drop follower %d from the ISR: %v", follower, err)
	}
	check("follower cut off", map[string]float64{
		"kaenlog_under_replicated_partitions": 1, "kaenlog_at_min_isr_partition_count": 1,
		"kaenlog_under_min_isr_partition_count": 0,
		"kaenlog_isr_shrinks_total":             1, "kaenlog_isr_expands_total": 0,
		"kaenlog_log_end_offset": 3, "kaenlog_replica_lag_records": 1,
	})

	c.Network().Heal()
	if err := c.Await(func() bool {
		c.FetchRound()
		return slices.Contains(committedISR(c), follower)
	}, 120_000); err != nil {
		t.Fatalf("waiting for follower %d to rejoin the ISR: %v", follower, err)
	}
	c.FetchRound() // the leader learns the followers' log ends and moves the HW
	check("follower back", map[string]float64{
		"kaenlog_under_replicated_partitions": 0, "kaenlog_at_min_isr_partition_count": 0,
		"kaenlog_isr_shrinks_total": 1, "kaenlog_isr_expands_total": 1,
		"kaenlog_replica_lag_records": 0, "kaenlog_high_watermark": 3,
	})
}

// committedISR is the partition's ISR as the controller committed it.
func committedISR(c *replica.Cluster) []int32 {
	p, _ := c.Controller().Image().Partition(topic.Topic, topic.Partition)
	return p.ISR
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func itoa(id int32) string { return strconv.Itoa(int(id)) }
