package kafkatest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync/atomic"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/wire"
)

// correlation numbers the Cluster's requests to the controller.
var correlation atomic.Int32

// call sends req to the controller on a connection of its own and returns
// the response; the connection is closed, failing the call, if no answer
// came within Config.WaitMs on the cluster's clock.
func (c *Cluster) call(req wire.Message) (wire.Message, error) {
	nc, err := net.Dial("tcp", c.ControllerAddr())
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	t := c.clk.AfterFunc(c.cfg.WaitMs, func() { nc.Close() })
	defer t.Stop()
	payload, err := req.AppendTo(nil)
	if err == nil {
		err = wire.WriteFrame(nc, payload)
	}
	if err == nil {
		payload, err = wire.ReadFrame(bufio.NewReader(nc), nil, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("%v to the controller: %w", req.APIKey(), err)
	}
	m, err := wire.DecodeResponse(payload)
	if err == nil && (m.APIKey() != req.APIKey() || m.Correlation() != req.Correlation()) {
		err = fmt.Errorf("a %v response %d to a %v request %d", m.APIKey(), m.Correlation(), req.APIKey(), req.Correlation())
	}
	return m, err
}

// CreateTopic creates a topic of the given partitions with the cluster's
// ReplicationFactor and MinISR, through the controller (kaenlog's
// CreateTopics, not Kafka's), and waits until every running broker has
// applied it and every partition has a leader. The controller's refusal
// (a topic that exists, too few unfenced brokers) comes back as its wire
// error: errors.Is(err, wire.ErrTopicAlreadyExists).
func (c *Cluster) CreateTopic(topic string, partitions int32) error {
	m, err := c.call(&wire.CreateTopicsRequest{CorrelationID: correlation.Add(1), Topics: []wire.CreatableTopic{{Name: topic, Partitions: partitions, ReplicationFactor: c.cfg.ReplicationFactor, Configs: wire.MinInsyncReplicas(c.cfg.MinISR)}}})
	if err != nil {
		return fmt.Errorf("kafkatest: create topic %s: %w", topic, err)
	}
	if resp := m.(*wire.CreateTopicsResponse); resp.Err() != nil {
		return fmt.Errorf("kafkatest: create topic %s: %w: %s", topic, resp.ErrorCode.Err(), resp.ErrorMessage)
	}
	for p := range partitions {
		if _, err := c.AwaitLeader(topic, p); err != nil {
			return err
		}
	}
	return c.AwaitBrokers()
}

// ElectLeader asks the controller for an election of a partition's
// leader (kaenlog's ElectLeaders) and returns the leader after it. A clean
// election (unclean false) keeps a valid leader, and elects one from the
// ISR (or KIP-966's ELR when the ISR is empty) for a leaderless
// partition: it never loses an acknowledged record. An unclean one, on a
// leaderless partition whose ISR and ELR have no live broker, elects the
// first live replica in assignment order, which may lack records
// acknowledged with acks=all; dataMayBeLost then reports true. A
// partition left without a leader is wire.ErrEligibleLeadersNotAvailable.
// Kafka's preferred-replica election, which moves a valid leader to the
// first replica, is PreferLeader.
func (c *Cluster) ElectLeader(topic string, partition int32, unclean bool) (leader int32, dataMayBeLost bool, err error) {
	m, err := c.call(&wire.ElectLeadersRequest{CorrelationID: correlation.Add(1), Topic: topic, Partition: partition, Unclean: unclean})
	if err != nil {
		return controller.NoLeader, false, fmt.Errorf("kafkatest: elect a leader of %s-%d: %w", topic, partition, err)
	}
	resp := m.(*wire.ElectLeadersResponse)
	if resp.ErrorCode != wire.CodeNone {
		return resp.Leader, false, fmt.Errorf("kafkatest: elect a leader of %s-%d: %w", topic, partition, resp.ErrorCode.Err())
	}
	return resp.Leader, resp.DataMayBeLost, nil
}

// PreferLeader asks the controller for a preferred election of a
// partition (ElectLeaders with Preferred) and returns the leader after it:
// the preferred replica, the first of the assignment, if it is in the ISR
// and active. It is wire.ErrElectionNotNeeded when that replica already
// leads, wire.ErrPreferredLeaderNotAvailable when it cannot lead.
func (c *Cluster) PreferLeader(topic string, partition int32) (leader int32, err error) {
	m, err := c.call(&wire.ElectLeadersRequest{CorrelationID: correlation.Add(1), Topic: topic, Partition: partition, Preferred: true})
	if err != nil {
		return controller.NoLeader, fmt.Errorf("kafkatest: preferred election of %s-%d: %w", topic, partition, err)
	}
	resp := m.(*wire.ElectLeadersResponse)
	if resp.ErrorCode != wire.CodeNone {
		return resp.Leader, fmt.Errorf("kafkatest: preferred election of %s-%d: %w", topic, partition, resp.ErrorCode.Err())
	}
	return resp.Leader, nil
}

// take marks broker id stopped and returns what ran.
func (c *Cluster) take(id int32) (node, error) {
	n, err := c.node(id)
	if err != nil {
		return node{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n.h == nil {
		return node{}, fmt.Errorf("kafkatest: broker %d is not running", id)
	}
	was := *n
	n.b, n.h, n.osd = nil, nil, nil
	return was, nil
}

// Stop stops broker id cleanly, as SIGTERM stops Kafka's broker: a
// controlled shutdown (the controller moves its leaderships to other ISR
// members and takes it out of every ISR first), then a clean close of
// its logs with the clean-shutdown marker, losing nothing it wrote. Its
// Kafka listener closes; Restart starts it again.
func (c *Cluster) Stop(id int32) error {
	n, err := c.take(id)
	if err != nil {
		return err
	}
	if err := n.h.Close(); err != nil {
		return fmt.Errorf("kafkatest: stop broker %d: %w", id, err)
	}
	return nil
}

// Crash cuts broker id's power: it stops at once, with no controlled
// shutdown and no clean close, and its disk loses every byte not fsynced
// (vfs.Mem's Crash in vfs.LoseUnsynced mode, seeded by the id; with
// Config.Dir, a vfs.VolatileCache over its files drops what it holds). By
// default a broker leaves flushing to the OS, as Kafka's does, so it
// loses the tail of its logs; replication is what keeps acknowledged
// records (acks=all: every ISR member had them). The controller fences it
// and moves its leaderships when its session expires
// (Config.SessionTimeoutMs); Restart brings it back.
func (c *Cluster) Crash(id int32) error {
	n, err := c.take(id)
	if err != nil {
		return err
	}
	n.h.Kill()
	if n.osd != nil {
		n.osd.crash()
		return nil
	}
	c.mu.Lock()
	m := c.mem[id]
	c.mu.Unlock()
	m.Crash(vfs.LoseUnsynced, uint64(id))
	return nil
}

// Restart starts broker id again, stopped or crashed, with the same id
// and disk (what Stop or Crash left on it), a new incarnation and the same
// Kafka address, and waits until it is registered, unfenced and caught up
// with the metadata log. After a crash, the controller takes its
// registration only once the old session has expired. It rejoins each
// ISR once it has caught up with the leader (AwaitISR waits for that).
func (c *Cluster) Restart(id int32) error {
	if err := c.start(id); err != nil {
		return err
	}
	return c.AwaitBrokers()
}

// Cut cuts follower off from leader: every connection from follower to
// leader's kaenlog listener closes, and every new one is closed at once,
// until Heal. Nothing else is cut (the controller, the other brokers, the
// Kafka clients). The follower's fetches stop, so the leader's high
// watermark cannot pass what it has, acks=all produces wait, and the
// leader takes it out of the ISR once it has not been caught up for
// Config.ReplicaLagMs on the leader's clock (AdvanceClock makes that
// now); with acks=all, the ISR then acknowledges without it, while at
// least MinISR members remain.
func (c *Cluster) Cut(follower, leader int32) error { return c.setCut(follower, leader, true) }

// Heal undoes Cut: the follower's next dial gets through (its host redials
// with a backoff of at most a second), it fetches what it missed, and the
// leader adds it back to the ISR once it has caught up.
func (c *Cluster) Heal(follower, leader int32) error { return c.setCut(follower, leader, false) }

func (c *Cluster) setCut(from, to int32, cut bool) error {
	for _, id := range []int32{from, to} {
		if _, err := c.node(id); err != nil {
			return err
		}
	}
	if from == to {
		return fmt.Errorf("kafkatest: a broker has no link to itself (%d)", from)
	}
	l, err := c.link(from, to)
	if err != nil {
		return err
	}
	l.setCut(cut)
	return nil
}

// AdvanceClock moves broker id's clock forward by ms: every timer of the
// broker the jump passes runs at once, as though that time had gone by
// for it alone. The controller's and the other brokers' clocks stay. Past
// Config.ReplicaLagMs, the broker, where it leads, takes out of the ISR
// every follower whose last fetch up to its log end is now older than
// that (a follower that is Cut, surely; one still fetching only if the
// leader's check runs before its next fetch) and asks the controller to
// commit the smaller ISR. The times it stamps (LogAppendTime) are read
// from its clock; the controller's session of it runs on the
// controller's, which does not move.
func (c *Cluster) AdvanceClock(id int32, ms int64) error {
	n, err := c.node(id)
	if err != nil {
		return err
	}
	if ms < 0 {
		return errors.New("kafkatest: a clock moves forward only")
	}
	n.clk.advance(ms)
	return nil
}

// Leader returns a partition's leader now, or controller.NoLeader (also
// for a partition the controller does not know).
func (c *Cluster) Leader(topic string, partition int32) int32 {
	ps, ok := c.Partition(topic, partition)
	if !ok {
		return controller.NoLeader
	}
	return ps.Leader
}

// Followers returns a partition's replicas other than its leader, in
// assignment order.
func (c *Cluster) Followers(topic string, partition int32) []int32 {
	ps, _ := c.Partition(topic, partition)
	return slices.DeleteFunc(slices.Clone(ps.Replicas), func(r int32) bool { return r == ps.Leader })
}
