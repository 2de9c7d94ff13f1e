package controller

import (
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// lastReplicaStanding tells KIP-966's "last replica standing" story
// (shared/research/kafka-rules.md §8.5) step by step, with a toy model of
// the three brokers' logs beside the controller: logs[b] is broker b's log
// end offset, committed the records acknowledged to acks=all producers. It
// returns the harness and the model at T3, right after broker 2, which lost
// committed records in an unclean shutdown, has registered again.
func lastReplicaStanding(t *testing.T, cfg Config) (h *harness, logs map[int32]int, committed int) {
	const timeout = 1000
	cfg.SessionTimeoutMs = timeout
	h = newHarness(t, cfg)
	for _, id := range []int32{0, 1, 2} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{2, 1, 0}}, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "2"}}}}})
	h.want("orders", 0, "orders-0 leader 2 epoch 0/0 replicas [2 1 0] isr [2 1 0] elr [] lke [] RECOVERED")

	// Three records, replicated everywhere and committed.
	logs = map[int32]int{0: 3, 1: 3, 2: 3}
	committed = 3

	// T0: broker 0 is partitioned away. The leader drops it from the ISR
	// (lag), and the controller fences it (lost session). ISR [2 1] still
	// meets min ISR 2: no ELR. Two more records are committed on 2 and 1.
	h.alter(h.alterReq("orders", 0, 2, 1), wire.CodeNone)
	h.silence(timeout, 1, 2)
	h.wantBrokers("0 fenced, 1 active, 2 active")
	h.want("orders", 0, "orders-0 leader 2 epoch 0/1 replicas [2 1 0] isr [2 1] elr [] lke [] RECOVERED")
	logs[2], logs[1], committed = 5, 5, 5

	// T1: broker 1 shuts down cleanly. It leads nothing, so it is fenced
	// at once and leaves the ISR. ISR [2] is under min ISR, so broker 1,
	// which holds every committed record, goes to the ELR. From now on the
	// leader's high watermark is frozen at 5: what it writes next (two
	// acks=1 records) is not committed.
	if r := h.heartbeatWith(1, h.c.MetadataEndOffset(), true); !r.ShouldShutDown {
		t.Fatalf("broker 1 wants to shut down: %+v", r)
	}
	h.want("orders", 0, "orders-0 leader 2 epoch 0/2 replicas [2 1 0] isr [2] elr [1] lke [] RECOVERED")
	logs[2] = 7

	// T2: broker 2, the leader and last ISR member, crashes uncleanly: its
	// unflushed tail is gone, including committed records 3 and 4. Its
	// session expires: with ELR the ISR may become empty; both 2 and 1 are
	// eligible as far as the controller knows, and 2 is the last leader.
	logs[2] = 3
	h.silence(timeout)
	h.want("orders", 0, "orders-0 leader -1 epoch 1/3 replicas [2 1 0] isr [] elr [2 1] lke [2] RECOVERED")

	// T3: broker 2 restarts. Its log recovery cut flushed data, so it
	// registers saying so (or without a clean previous epoch).
	h.register(2, false, true)
	h.heartbeat(2)
	return h, logs, committed
}

// KIP-966 closes "local data loss becomes global data loss": the broker
// that lost committed records is not eligible until it has caught up and
// rejoined the ISR; the clean ELR member leads instead, and nothing
// committed is lost.
func TestTheLastReplicaStandingLosesNothing(t *testing.T) {
	h, logs, committed := lastReplicaStanding(t, Config{})

	// T3: the unclean broker left the ELR. It is unfenced, but the only
	// eligible replica, broker 1, is down: the partition stays offline
	// rather than elect a leader missing committed records.
	h.want("orders", 0, "orders-0 leader -1 epoch 1/4 replicas [2 1 0] isr [] elr [1] lke [2] RECOVERED")
	h.restartController() // the controller itself may restart at any point

	// T4: broker 1 restarts after its clean shutdown: it keeps its ELR
	// place and is elected, from the ELR, the ISR alone.
	h.startBroker(1)
	h.want("orders", 0, "orders-0 leader 1 epoch 2/5 replicas [2 1 0] isr [1] elr [] lke [] RECOVERED")
	if logs[1] < committed {
		t.Fatalf("leader 1 holds %d records, %d were committed", logs[1], committed)
	}

	// T5: broker 2 fetches from leader 1 (it truncates nothing it needs
	// and catches up to 5), and the leader readmits it: the ISR meets min
	// ISR again. This is the only way back in.
	logs[2] = logs[1]
	h.alter(h.alterReq("orders", 0, 1, 2), wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 1 epoch 2/6 replicas [2 1 0] isr [1 2] elr [] lke [] RECOVERED")

	// T6: the partition heals. Broker 0's process never stopped: its next
	// heartbeat, caught up on the metadata, unfences it, and it rejoins
	// the same way.
	h.heartbeat(0)
	logs[0] = logs[1]
	h.alter(h.alterReq("orders", 0, 1, 2, 0), wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 1 epoch 2/7 replicas [2 1 0] isr [1 2 0] elr [] lke [] RECOVERED")
	for _, id := range h.part("orders", 0).ISR {
		if logs[id] < committed {
			t.Fatalf("ISR member %d holds %d records, %d were committed", id, logs[id], committed)
		}
	}
}

// With the unclean-shutdown rule off (only a simulator wants that), the
// same story elects broker 2 from the ELR at T3, and records 3 and 4,
// acknowledged to producers, are gone: KAFKA-14139.
func TestWithoutTheUncleanShutdownRuleTheLastReplicaStandingLosesData(t *testing.T) {
	h, logs, committed := lastReplicaStanding(t, Config{DisableUncleanShutdownRule: true})
	h.want("orders", 0, "orders-0 leader 2 epoch 2/4 replicas [2 1 0] isr [2] elr [1] lke [] RECOVERED")
	if logs[2] >= committed {
		t.Fatalf("the story is wrong: leader 2 holds %d records, %d committed", logs[2], committed)
	}
}

// The second loss, "lost tails stay in the ISR": a follower that
// lost its unflushed tail on restart (LEO 10 → 4) must not become
// electable. It registers with LostData, which makes the restart unclean
// whatever its PreviousBrokerEpoch says. The two runs differ only in that
// flag.
func TestAFollowerThatLostItsTailIsNotElectable(t *testing.T) {
	for _, lostData := range []bool{true, false} {
		h := newHarness(t, Config{SessionTimeoutMs: 1000})
		h.startBroker(1)
		h.startBroker(2)
		h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 2, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "2"}}}}})

		// Follower 2 crashes; its session expires. The ISR falls under
		// min ISR, so 2 goes to the ELR: it held every committed record.
		h.silence(1000, 1)
		h.want("orders", 0, "orders-0 leader 1 epoch 0/1 replicas [1 2] isr [1] elr [2] lke [] RECOVERED")

		// It restarts. Its clean-shutdown marker is intact, but log
		// recovery cut records it had flushed... or not.
		h.register(2, true, lostData)
		h.heartbeat(2)

		// The leader dies.
		h.silence(1000, 2)
		if lostData {
			h.want("orders", 0, "orders-0 leader -1 epoch 1/3 replicas [1 2] isr [] elr [1] lke [1] RECOVERED")
		} else {
			h.want("orders", 0, "orders-0 leader 2 epoch 1/2 replicas [1 2] isr [2] elr [1] lke [] RECOVERED")
		}
	}
}

// A clean restart (PreviousBrokerEpoch is the broker's last epoch, no lost
// data) keeps the broker's ISR and ELR places.
func TestACleanRestartKeepsItsPlaces(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	for _, id := range []int32{1, 2, 3} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 3, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "3"}}}}})
	h.silence(1000, 1, 2)
	h.want("orders", 0, "orders-0 leader 1 epoch 0/1 replicas [1 2 3] isr [1 2] elr [3] lke [] RECOVERED")
	end := h.c.MetadataEndOffset()
	h.register(3, true, false)
	if got := h.c.MetadataEndOffset(); got != end+1 {
		t.Fatalf("a clean registration wrote %d records, want 1 (the registration)", got-end)
	}
	h.want("orders", 0, "orders-0 leader 1 epoch 0/1 replicas [1 2 3] isr [1 2] elr [3] lke [] RECOVERED")
}

// An unclean restart of a broker in no ISR and no ELR changes no partition.
func TestAnUncleanRestartOutsideEveryISRChangesNoPartition(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	h.startBroker(1)
	h.startBroker(2)
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1}}}}})
	h.silence(1000, 1) // broker 2's process dies
	before := h.part("orders", 0)
	h.register(2, false, true)
	if after := h.part("orders", 0); !after.equal(before) {
		t.Fatalf("%s became %s", before, after)
	}
}
