package controller

import (
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// CreatePartitions adds partitions after the topic's own, with its
// replication factor, placed round-robin or as assigned, each starting as a
// new topic's partition does; a count that is not an increase is
// INVALID_PARTITIONS, and validate-only writes nothing.
func TestCreatePartitionsAddsPartitionsAsANewTopicHasThem(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 2, ReplicationFactor: 2}}})
	add := func(req wire.CreatePartitionsRequest, want wire.ErrorCode) {
		t.Helper()
		req.CorrelationID = 5
		r := h.c.CreatePartitions(req, h.now)
		if r.ErrorCode != want || r.CorrelationID != 5 || (want != wire.CodeNone) != (r.ErrorMessage != "") {
			t.Fatalf("CreatePartitions(%+v): %+v, want %v", req, r, want)
		}
		h.check()
	}
	end := h.c.MetadataEndOffset()
	add(wire.CreatePartitionsRequest{Topic: "orders", Count: 2}, wire.CodeInvalidPartitions)
	add(wire.CreatePartitionsRequest{Topic: "orders", Count: 1}, wire.CodeInvalidPartitions)
	add(wire.CreatePartitionsRequest{Topic: "orders", Count: MaxPartitionsPerTopic + 1}, wire.CodeInvalidPartitions)
	add(wire.CreatePartitionsRequest{Topic: "nope", Count: 3}, wire.CodeUnknownTopicOrPartition)
	add(wire.CreatePartitionsRequest{Topic: "orders", Count: 4, Assignment: [][]int32{{1, 2}}}, wire.CodeInvalidRequest)    // one list for two partitions
	add(wire.CreatePartitionsRequest{Topic: "orders", Count: 3, Assignment: [][]int32{{1, 2, 3}}}, wire.CodeInvalidRequest) // another factor
	add(wire.CreatePartitionsRequest{Topic: "orders", Count: 3, Assignment: [][]int32{{1, 9}}}, wire.CodeInvalidRequest)    // unregistered
	add(wire.CreatePartitionsRequest{Topic: "orders", Count: 3, Assignment: [][]int32{{2, 2}}}, wire.CodeInvalidRequest)    // twice
	add(wire.CreatePartitionsRequest{Topic: "orders", Count: 3, ValidateOnly: true, Assignment: [][]int32{{3, 1}}}, wire.CodeNone)
	if got := h.c.MetadataEndOffset(); got != end {
		t.Fatalf("refusals and a validate-only request wrote: the log went from %d to %d", end, got)
	}

	add(wire.CreatePartitionsRequest{Topic: "orders", Count: 3, Assignment: [][]int32{{3, 1}}}, wire.CodeNone)
	h.want("orders", 2, "orders-2 leader 3 epoch 0/0 replicas [3 1] isr [3 1] elr [] lke [] RECOVERED")
	// Placed: 3 partitions exist, so partition 3 starts at broker index 3 mod 3.
	add(wire.CreatePartitionsRequest{Topic: "orders", Count: 4}, wire.CodeNone)
	h.want("orders", 3, "orders-3 leader 1 epoch 0/0 replicas [1 2] isr [1 2] elr [] lke [] RECOVERED")
	if tp, _ := h.c.Image().Topic("orders"); tp.Partitions != 4 {
		t.Fatalf("the topic has %d partitions, want 4", tp.Partitions)
	}
	h.restartController()
	h.want("orders", 3, "orders-3 leader 1 epoch 0/0 replicas [1 2] isr [1 2] elr [] lke [] RECOVERED")

	// A fenced broker is no replica of an ISR; more replicas than active
	// brokers cannot be placed.
	h.silence(1000, 1) // brokers 2 and 3 die
	add(wire.CreatePartitionsRequest{Topic: "orders", Count: 5}, wire.CodeInvalidReplicationFactor)
	add(wire.CreatePartitionsRequest{Topic: "orders", Count: 5, Assignment: [][]int32{{2, 3}}}, wire.CodeInvalidReplicationFactor)
	add(wire.CreatePartitionsRequest{Topic: "orders", Count: 5, Assignment: [][]int32{{2, 1}}}, wire.CodeNone)
	h.want("orders", 4, "orders-4 leader 1 epoch 0/0 replicas [2 1] isr [1] elr [] lke [] RECOVERED")
}
