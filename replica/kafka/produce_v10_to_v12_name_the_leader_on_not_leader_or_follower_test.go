package kafka_test

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestProduceV10To12AnswerNotLeaderOrFollowerWithTheLeaderAndItsEndpoint:
// Produce v9-v12 (flexible) append at the leader and answer the base
// offset and log start; at the follower they are refused
// NOT_LEADER_OR_FOLLOWER, and from v10 (KIP-951) the refusal names the
// leader and its epoch (CurrentLeader) and the leader's Kafka listener
// (NodeEndpoints), as Kafka answers; v9 names neither.
func TestProduceV10To12AnswerNotLeaderOrFollowerWithTheLeaderAndItsEndpoint(t *testing.T) {
	const topic = "led"
	c := startCluster(t, 2)
	c.createTopic(topic, 1, 2, 1)
	ps := c.partition(topic, 0)
	var follower int32
	for _, br := range c.Brokers() {
		if br.ID != ps.Leader {
			follower = br.ID
		}
	}
	atLeader, atFollower := dialRaw(t, c.kafkaAddr(ps.Leader)), dialRaw(t, c.kafkaAddr(follower))
	next := int64(0)
	for v := int16(9); v <= 12; v++ {
		resp := roundTrip(t, atLeader, produceTo(topic, 0, recordBatch(t, 1_700_000_000_000, "a", "b")), v).(*kmsg.ProduceResponse)
		p := resp.Topics[0].Partitions[0]
		if p.ErrorCode != 0 || p.BaseOffset != next || p.LogStartOffset != 0 || p.CurrentLeader.LeaderID != -1 || len(resp.Brokers) != 0 {
			t.Errorf("Produce v%d at the leader: %+v, brokers %+v; want offset %d, log start 0, no leader hint", v, p, resp.Brokers, next)
		}
		next += 2

		resp = roundTrip(t, atFollower, produceTo(topic, 0, recordBatch(t, 1_700_000_000_000, "c")), v).(*kmsg.ProduceResponse)
		p = resp.Topics[0].Partitions[0]
		if p.ErrorCode != 6 {
			t.Fatalf("Produce v%d at the follower: error %d, want NOT_LEADER_OR_FOLLOWER (6)", v, p.ErrorCode)
		}
		wantLeader, wantEpoch, wantBrokers := int32(-1), int32(-1), 0
		if v >= 10 {
			wantLeader, wantEpoch, wantBrokers = ps.Leader, ps.LeaderEpoch, 1
		}
		if p.CurrentLeader.LeaderID != wantLeader || p.CurrentLeader.LeaderEpoch != wantEpoch || len(resp.Brokers) != wantBrokers {
			t.Fatalf("Produce v%d at the follower: CurrentLeader %+v, brokers %+v; want leader %d epoch %d and %d endpoints",
				v, p.CurrentLeader, resp.Brokers, wantLeader, wantEpoch, wantBrokers)
		}
		if wantBrokers > 0 {
			b := resp.Brokers[0]
			if got := fmt.Sprintf("%s:%d", b.Host, b.Port); b.NodeID != ps.Leader || got != c.kafkaAddr(ps.Leader) || b.Rack != nil {
				t.Fatalf("Produce v%d at the follower: endpoint %d at %s rack %v, want %d at %s", v, b.NodeID, got, b.Rack, ps.Leader, c.kafkaAddr(ps.Leader))
			}
		}
	}
}
