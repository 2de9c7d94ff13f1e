package kafkatest

import (
	"fmt"
	"slices"

	"github.com/kaenlog/kaenlog/replica/controller"
)

// await waits, at most Config.WaitMs on the cluster's clock, until cond
// holds, looking again after every event of any node. The error says what
// it waited for, and state (if set) how things stood at the end.
func (c *Cluster) await(what string, cond func() bool, state func() string) error {
	expired := make(chan struct{})
	t := c.clk.AfterFunc(c.cfg.WaitMs, func() { close(expired) })
	defer t.Stop()
	for !cond() {
		select {
		case <-c.ev:
		case <-expired:
			if cond() {
				return nil
			}
			err := fmt.Errorf("kafkatest: still waiting, after %d ms, for %s", c.cfg.WaitMs, what)
			if state != nil {
				err = fmt.Errorf("%w (%s)", err, state())
			}
			return err
		}
	}
	return nil
}

// Partition returns what the controller has committed for a partition:
// its replicas, leader, leader epoch and ISR. ok is false for a partition
// the controller does not know.
func (c *Cluster) Partition(topic string, partition int32) (ps controller.PartitionState, ok bool) {
	c.ctlH.Do(func(int64) { ps, ok = c.ctl.Controller().Image().Partition(topic, partition) })
	return ps, ok
}

// AwaitPartition waits, at most Config.WaitMs, until the controller's
// committed state of a partition satisfies cond, and returns that state.
// what says what is awaited ("a leader other than broker 2"); a wait that
// runs out returns an error naming it and the partition's last state.
func (c *Cluster) AwaitPartition(topic string, partition int32, what string, cond func(controller.PartitionState) bool) (controller.PartitionState, error) {
	var ps controller.PartitionState
	err := c.await(fmt.Sprintf("%s of %s-%d", what, topic, partition), func() bool {
		var ok bool
		ps, ok = c.Partition(topic, partition)
		return ok && cond(ps)
	}, func() string {
		if ps, ok := c.Partition(topic, partition); ok {
			return fmt.Sprintf("leader %d, epoch %d, ISR %v", ps.Leader, ps.LeaderEpoch, ps.ISR)
		}
		return "the controller does not know the partition"
	})
	return ps, err
}

// AwaitLeader waits until a partition has a leader other than every
// broker in not (none: any leader), and returns it.
func (c *Cluster) AwaitLeader(topic string, partition int32, not ...int32) (int32, error) {
	what := "a leader"
	if len(not) > 0 {
		what = fmt.Sprintf("a leader other than brokers %v", not)
	}
	ps, err := c.AwaitPartition(topic, partition, what, func(ps controller.PartitionState) bool {
		return ps.Leader >= 0 && !slices.Contains(not, ps.Leader)
	})
	return ps.Leader, err
}

// AwaitISR waits until a partition's ISR is exactly isr, in any order.
func (c *Cluster) AwaitISR(topic string, partition int32, isr ...int32) error {
	want := slices.Sorted(slices.Values(isr))
	_, err := c.AwaitPartition(topic, partition, fmt.Sprintf("ISR %v", want), func(ps controller.PartitionState) bool {
		return slices.Equal(slices.Sorted(slices.Values(ps.ISR)), want)
	})
	return err
}

// AwaitBrokers waits until every running broker is registered, unfenced
// and has applied the controller's whole metadata log: what NewCluster,
// CreateTopic and Restart wait for before they return.
func (c *Cluster) AwaitBrokers() error {
	var lagging []int32
	return c.await("every running broker registered, unfenced and caught up with the metadata log", func() bool {
		var end uint64
		c.ctlH.Do(func(int64) { end = c.ctl.Controller().MetadataEndOffset() })
		lagging = lagging[:0]
		for _, n := range c.running() {
			ok := false
			n.h.Do(func(int64) { ok = !n.b.Fenced() && n.b.Image().EndOffset() == end })
			if !ok {
				lagging = append(lagging, n.id)
			}
		}
		return len(lagging) == 0
	}, func() string { return fmt.Sprintf("not yet: brokers %v", lagging) })
}

// running returns the running brokers in id order.
func (c *Cluster) running() []node {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []node
	for _, id := range c.ids() {
		if n := c.brokers[id]; n.h != nil {
			out = append(out, *n)
		}
	}
	return out
}
