package kafka_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kadm's preferred election (Kafka's kafka-leader-election --election-type
// PREFERRED) through a broker's Kafka listener: PREFERRED_LEADER_NOT_AVAILABLE
// while the first replica is down, the leadership back on it once it is in
// the ISR again, then ELECTION_NOT_NEEDED. A second partition in the same
// request is refused; an unknown ElectionType refuses the whole request.
func TestKadmPreferredElectionGivesTheLeadershipBackToTheFirstReplica(t *testing.T) {
	c := startKafkaCluster(t, 3, kafka.Config{})
	adm := adminClient(t, c)
	ctx := ctxFor(t)
	c.createTopic("orders", 1, 3, 1)
	first := c.partition("orders", 0)
	preferred := first.Replicas[0]
	if first.Leader != preferred {
		t.Fatalf("a new partition is led by its first replica: %v", first)
	}
	elect := func() error {
		t.Helper()
		rs, err := adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, kadm.TopicsSet{"orders": {0: {}}})
		if err != nil {
			t.Fatalf("ElectLeaders: %v", err)
		}
		r, ok := rs["orders"][0]
		if !ok {
			t.Fatalf("ElectLeaders answered %v, without orders-0", rs)
		}
		return r.Err
	}
	if err := elect(); !errors.Is(err, kerr.ElectionNotNeeded) {
		t.Fatalf("the preferred replica leads: %v, want ELECTION_NOT_NEEDED", err)
	}

	c.kill(preferred, vfs.KeepUnsynced)
	c.await(fmt.Sprintf("a leader other than broker %d", preferred), func() bool {
		p := c.partition("orders", 0)
		return p.Leader >= 0 && p.Leader != preferred
	})
	if err := elect(); !errors.Is(err, kerr.PreferredLeaderNotAvailable) {
		t.Fatalf("the preferred replica is down: %v, want PREFERRED_LEADER_NOT_AVAILABLE", err)
	}
	c.startBroker(preferred)
	c.await(fmt.Sprintf("broker %d back in the ISR", preferred), func() bool {
		return slices.Contains(c.partition("orders", 0).ISR, preferred)
	})
	if err := elect(); err != nil {
		t.Fatalf("the preferred replica is in the ISR: %v", err)
	}
	if p := c.partition("orders", 0); p.Leader != preferred {
		t.Fatalf("after the preferred election: %v, want broker %d leading", p, preferred)
	}
	if err := elect(); !errors.Is(err, kerr.ElectionNotNeeded) {
		t.Fatalf("again: %v, want ELECTION_NOT_NEEDED", err)
	}

	req := kmsg.NewPtrElectLeadersRequest()
	req.Topics = []kmsg.ElectLeadersRequestTopic{{Topic: "orders", Partitions: []int32{0, 7}}}
	resp := roundTrip(t, dialRaw(t, c.seeds()[0]), req, 2).(*kmsg.ElectLeadersResponse)
	var codes []int16
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			codes = append(codes, rp.ErrorCode)
		}
	}
	if want := []int16{kerr.ElectionNotNeeded.Code, kerr.InvalidRequest.Code}; resp.ErrorCode != 0 || !slices.Equal(codes, want) {
		t.Fatalf("two partitions answered %d %v, want 0 %v", resp.ErrorCode, codes, want)
	}
	req.ElectionType = 2
	resp = roundTrip(t, dialRaw(t, c.seeds()[0]), req, 2).(*kmsg.ElectLeadersResponse)
	if resp.ErrorCode != kerr.InvalidRequest.Code || len(resp.Topics) != 0 {
		t.Fatalf("ElectionType 2 answered %+v, want INVALID_REQUEST", resp)
	}
}
