package controller

import (
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// A broker that asks to shut down while it leads enters controlled
// shutdown: in one batch it is marked shutting down, leaves every ISR, and
// its leaderships move to the next ISR member (KRaft's
// handleBrokerInControlledShutdown). It is told to shut down once it leads
// nothing and every active broker has applied that batch
// (BrokerHeartbeatManager: controlledShutdownOffset <= lowestActiveOffset);
// then it is fenced.
func TestControlledShutdownMovesLeadershipBeforeGrantingShutdown(t *testing.T) {
	h := threeBrokers(t, Config{}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 2, ReplicationFactor: 3}}})
	h.want("orders", 0, "orders-0 leader 1 epoch 0/0 replicas [1 2 3] isr [1 2 3] elr [] lke [] RECOVERED")
	h.want("orders", 1, "orders-1 leader 2 epoch 0/0 replicas [2 3 1] isr [2 3 1] elr [] lke [] RECOVERED")
	applied := h.c.MetadataEndOffset()

	r := h.heartbeatWith(1, applied, true)
	if r.ShouldShutDown || r.IsFenced {
		t.Fatalf("first shutdown heartbeat: %+v, want neither fenced nor shut down yet", r)
	}
	h.wantBrokers("1 shutting-down, 2 active, 3 active")
	h.want("orders", 0, "orders-0 leader 2 epoch 1/1 replicas [1 2 3] isr [2 3] elr [] lke [] RECOVERED")
	h.want("orders", 1, "orders-1 leader 2 epoch 0/1 replicas [2 3 1] isr [2 3] elr [] lke [] RECOVERED")

	// Broker 1 leads nothing now, but brokers 2 and 3 have not applied the
	// leadership change yet: no shutdown.
	h.heartbeatWith(2, applied, false)
	h.heartbeatWith(3, applied, false)
	if r := h.heartbeatWith(1, h.c.MetadataEndOffset(), true); r.ShouldShutDown {
		t.Fatal("shutdown granted before the active brokers applied the leadership change")
	}
	h.heartbeat(2)
	if r := h.heartbeatWith(1, h.c.MetadataEndOffset(), true); r.ShouldShutDown {
		t.Fatal("shutdown granted before broker 3 applied the leadership change")
	}
	h.heartbeat(3)
	r = h.heartbeatWith(1, h.c.MetadataEndOffset(), true)
	if !r.ShouldShutDown || !r.IsFenced {
		t.Fatalf("%+v, want shut down and fenced", r)
	}
	h.wantBrokers("1 fenced, 2 active, 3 active")
}

// A broker that leads nothing is fenced and told to shut down at once; a
// fenced broker asking to shut down may always.
func TestAShutdownOfABrokerThatLeadsNothingIsImmediate(t *testing.T) {
	h := threeBrokers(t, Config{}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1, 2, 3}}}}})
	r := h.heartbeatWith(3, h.c.MetadataEndOffset(), true)
	if !r.ShouldShutDown || !r.IsFenced {
		t.Fatalf("%+v, want shut down and fenced at once", r)
	}
	h.want("orders", 0, "orders-0 leader 1 epoch 0/1 replicas [1 2 3] isr [1 2] elr [] lke [] RECOVERED")
	h.wantBrokers("1 active, 2 active, 3 fenced")
	end := h.c.MetadataEndOffset()
	if r := h.heartbeatWith(3, end, true); !r.ShouldShutDown {
		t.Fatalf("fenced broker asking again: %+v", r)
	}
	if h.c.MetadataEndOffset() != end {
		t.Fatal("a fenced broker's shutdown wrote records")
	}
}

// KRaft's rule, checked against ReplicationControlManager: a broker in
// controlled shutdown leaves every ISR and every leadership, even where no
// other ISR member can lead. (ZooKeeper-mode Kafka kept such a sole ISR
// member as leader; KRaft leaves the partition leaderless.) With ELR the ISR
// may become empty and the broker, shut down cleanly, goes to the ELR; a
// clean restart then finds it there and elects it.
func TestTheSoleISRMemberShuttingDownLeavesThePartitionLeaderless(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1, 2}}, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "2"}}}}})
	h.silence(1000, 1, 3) // broker 2 dies
	h.want("orders", 0, "orders-0 leader 1 epoch 0/1 replicas [1 2] isr [1] elr [2] lke [] RECOVERED")

	h.heartbeatWith(1, h.c.MetadataEndOffset(), true)
	h.want("orders", 0, "orders-0 leader -1 epoch 1/2 replicas [1 2] isr [] elr [1 2] lke [1] RECOVERED")
	h.heartbeat(3)
	if r := h.heartbeatWith(1, h.c.MetadataEndOffset(), true); !r.ShouldShutDown {
		t.Fatalf("%+v, want shut down", r)
	}

	// Its next registration says it shut down cleanly: it keeps its ELR
	// place and, unfenced, is elected again.
	h.startBroker(1)
	h.want("orders", 0, "orders-0 leader 1 epoch 2/3 replicas [1 2] isr [1] elr [2] lke [] RECOVERED")
}

// Without ELR the ISR never empties: the sole member stays in it,
// leaderless.
func TestWithoutELRTheSoleISRMemberShuttingDownStaysInTheISR(t *testing.T) {
	h := threeBrokers(t, Config{DisableELR: true}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1, 2}}}}})
	h.alter(h.alterReq("orders", 0, 1), wire.CodeNone)
	h.heartbeatWith(1, h.c.MetadataEndOffset(), true)
	h.want("orders", 0, "orders-0 leader -1 epoch 1/2 replicas [1 2] isr [1] elr [] lke [] RECOVERED")
	h.restartController()
	h.silence(DefaultSessionTimeoutMs, 2, 3) // the process gives up waiting and stops
	h.startBroker(1)
	h.want("orders", 0, "orders-0 leader 1 epoch 2/3 replicas [1 2] isr [1] elr [] lke [] RECOVERED")
}

// A broker in controlled shutdown is not active: it gets no new partitions
// and cannot be elected.
func TestABrokerShuttingDownGetsNoNewPartitions(t *testing.T) {
	h := threeBrokers(t, Config{}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{3, 1}}}}})
	h.heartbeatWith(3, h.c.MetadataEndOffset(), true)
	h.wantBrokers("1 active, 2 active, 3 shutting-down")
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "later", Partitions: 2, ReplicationFactor: 2}}})
	for _, p := range []int32{0, 1} {
		for _, r := range h.part("later", p).Replicas {
			if r == 3 {
				t.Fatalf("later-%d was placed on broker 3, which is shutting down", p)
			}
		}
	}
	if r := h.c.CreateTopics(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "big", Partitions: 1, ReplicationFactor: 3}}}, h.now); wire.CodeOf(r.Err()) != wire.CodeInvalidReplicationFactor {
		t.Fatalf("replication factor 3 with 2 active brokers: %v", r.ErrorCode)
	}
}
