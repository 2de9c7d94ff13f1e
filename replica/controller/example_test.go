package controller_test

import (
	"errors"
	"fmt"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/wire"
)

// memStore is the smallest Store: batches in a slice, every append
// committed at once.
type memStore struct {
	buf []byte
	end uint64
}

func (s *memStore) Append(batch []byte) (uint64, error) {
	h, err := log.VerifyBatch(batch)
	if err != nil {
		return 0, err
	}
	base := s.end
	s.buf = append(s.buf, batch...)
	s.end += uint64(h.LastOffsetDelta) + 1
	return base, nil
}

func (s *memStore) Read(dst []byte, from uint64, maxBytes int) ([]byte, error) {
	if from > s.end {
		return dst, errors.New("beyond the end")
	}
	if from == s.end {
		return dst, nil
	}
	return append(dst, s.buf...), nil // whole log; ApplyBatches skips what it has
}

func (s *memStore) EndOffset() uint64 { return s.end }
func (s *memStore) Close() error      { return nil }

// Three brokers, one partition. The leader's session expires and the
// controller elects the next ISR member; later an unclean election is the
// only way to bring a partition with no eligible replica back, and it says
// so.
func Example_election() {
	now := int64(1_700_000_000_000)
	c, err := controller.Open(&memStore{}, controller.Config{SessionTimeoutMs: 9000}, now)
	if err != nil {
		panic(err)
	}
	epochs := map[int32]int64{}
	for _, id := range []int32{1, 2, 3} {
		r := c.RegisterBroker(wire.BrokerRegistrationRequest{
			BrokerID: id, IncarnationID: [16]byte{byte(id), 1}, PreviousBrokerEpoch: wire.NoBrokerEpoch,
		}, now)
		epochs[id] = r.BrokerEpoch
		c.Heartbeat(wire.BrokerHeartbeatRequest{BrokerID: id, BrokerEpoch: r.BrokerEpoch, MetadataOffset: c.MetadataEndOffset()}, now)
	}
	heartbeat := func(ids ...int32) {
		for _, id := range ids {
			c.Heartbeat(wire.BrokerHeartbeatRequest{BrokerID: id, BrokerEpoch: epochs[id], MetadataOffset: c.MetadataEndOffset()}, now)
		}
	}
	c.CreateTopics(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 3, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "2"}}}}}, now)
	show := func(when string) {
		p, _ := c.Image().Partition("orders", 0)
		fmt.Printf("%-22s %s\n", when, p)
	}
	show("created:")

	// Broker 1, the leader, goes silent; 2 and 3 keep heartbeating.
	now += 5000
	heartbeat(2, 3)
	now += 4001
	c.Tick(now)
	show("1's session expired:")

	// Broker 2 and then broker 3 go silent too.
	now += 5000
	heartbeat(3)
	now += 4001
	c.Tick(now)
	show("2's session expired:")
	now += 9001
	c.Tick(now)
	show("3's session expired:")

	// Broker 1 comes back. It left the ISR while the others still met min
	// ISR, so it may lack records committed since: it is not eligible, and
	// unfencing it elects nobody.
	r := c.RegisterBroker(wire.BrokerRegistrationRequest{
		BrokerID: 1, IncarnationID: [16]byte{1, 2}, PreviousBrokerEpoch: wire.NoBrokerEpoch,
	}, now)
	c.Heartbeat(wire.BrokerHeartbeatRequest{BrokerID: 1, BrokerEpoch: r.BrokerEpoch, MetadataOffset: c.MetadataEndOffset()}, now)
	show("1 back, uncleanly:")

	e := c.ElectLeaders(wire.ElectLeadersRequest{Topic: "orders", Partition: 0, Unclean: true}, now)
	fmt.Printf("unclean election: leader %d, epoch %d, data may be lost: %t\n", e.Leader, e.LeaderEpoch, e.DataMayBeLost)
	show("after it:")
	// Output:
	// created:               orders-0 leader 1 epoch 0/0 replicas [1 2 3] isr [1 2 3] elr [] lke [] RECOVERED
	// 1's session expired:   orders-0 leader 2 epoch 1/1 replicas [1 2 3] isr [2 3] elr [] lke [] RECOVERED
	// 2's session expired:   orders-0 leader 3 epoch 2/2 replicas [1 2 3] isr [3] elr [2] lke [] RECOVERED
	// 3's session expired:   orders-0 leader -1 epoch 3/3 replicas [1 2 3] isr [] elr [2 3] lke [3] RECOVERED
	// 1 back, uncleanly:     orders-0 leader -1 epoch 3/3 replicas [1 2 3] isr [] elr [2 3] lke [3] RECOVERED
	// unclean election: leader 1, epoch 4, data may be lost: true
	// after it:              orders-0 leader 1 epoch 4/4 replicas [1 2 3] isr [1] elr [] lke [] RECOVERING
}
