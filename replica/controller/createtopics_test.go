package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kaenlog/kaenlog/wire"
)

// Replicas are placed round-robin over the active brokers in id order,
// partition p of a topic created after k partitions starting at (k+p) mod n:
// deterministic, and successive topics spread their leaders. A new
// partition's ISR is its active replicas and its leader the first of them;
// both epochs start at 0.
func TestPlacementIsRoundRobinFromARotatingOffset(t *testing.T) {
	h := newHarness(t, Config{})
	for _, id := range []int32{5, 1, 3} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "a", Partitions: 2, ReplicationFactor: 2}}})
	h.want("a", 0, "a-0 leader 1 epoch 0/0 replicas [1 3] isr [1 3] elr [] lke [] RECOVERED")
	h.want("a", 1, "a-1 leader 3 epoch 0/0 replicas [3 5] isr [3 5] elr [] lke [] RECOVERED")
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "b", Partitions: 2, ReplicationFactor: 3}}})
	h.want("b", 0, "b-0 leader 5 epoch 0/0 replicas [5 1 3] isr [5 1 3] elr [] lke [] RECOVERED")
	h.want("b", 1, "b-1 leader 1 epoch 0/0 replicas [1 3 5] isr [1 3 5] elr [] lke [] RECOVERED")
	if tp, _ := h.c.Image().Topic("b"); tp.MinISR != 1 || tp.Partitions != 2 || tp.UncleanLeaderElection {
		t.Fatalf("topic b: %+v, want the default min ISR 1", tp)
	}
}

// An explicit assignment is taken as given; its fenced members are
// replicas but not in the initial ISR, and the leader is the first active
// one.
func TestAnExplicitAssignmentStartsWithItsActiveReplicasInTheISR(t *testing.T) {
	h := newHarness(t, Config{DefaultMinISR: 2})
	h.startBroker(1)
	h.startBroker(2)
	h.register(3, false, false) // registered, still fenced
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "pinned", Assignment: [][]int32{{3, 2, 1}, {1, 3, 2}}, Configs: []wire.TopicConfig{{Name: "unclean.leader.election.enable", Value: "true"}}}}})
	h.want("pinned", 0, "pinned-0 leader 2 epoch 0/0 replicas [3 2 1] isr [2 1] elr [] lke [] RECOVERED")
	h.want("pinned", 1, "pinned-1 leader 1 epoch 0/0 replicas [1 3 2] isr [1 2] elr [] lke [] RECOVERED")
	if tp, _ := h.c.Image().Topic("pinned"); tp.MinISR != 2 || !tp.UncleanLeaderElection {
		t.Fatalf("topic: %+v, want the configured default min ISR 2 and unclean election", tp)
	}
}

func TestCreateTopicsRefusals(t *testing.T) {
	h := newHarness(t, Config{})
	h.startBroker(1)
	h.startBroker(2)
	h.register(3, false, false) // fenced
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 1}}})
	for _, tc := range []struct {
		name string
		req  wire.CreateTopicsRequest
		want wire.ErrorCode
	}{
		{"empty name", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Partitions: 1, ReplicationFactor: 1}}}, wire.CodeInvalidTopicException},
		{"slash in name", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "a/b", Partitions: 1, ReplicationFactor: 1}}}, wire.CodeInvalidTopicException},
		{"name too long", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: strings.Repeat("a", 250), Partitions: 1, ReplicationFactor: 1}}}, wire.CodeInvalidTopicException},
		{"dot dot", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "..", Partitions: 1, ReplicationFactor: 1}}}, wire.CodeInvalidTopicException},
		{"the metadata log's name", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: MetadataTopic, Partitions: 1, ReplicationFactor: 1}}}, wire.CodeInvalidTopicException},
		{"exists", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 1}}}, wire.CodeTopicAlreadyExists},
		{"no partitions", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", ReplicationFactor: 1}}}, wire.CodeInvalidPartitions},
		{"too many partitions", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", Partitions: MaxPartitionsPerTopic + 1, ReplicationFactor: 1}}}, wire.CodeInvalidPartitions},
		{"replication factor 0", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", Partitions: 1}}}, wire.CodeInvalidReplicationFactor},
		{"more replicas than active brokers", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", Partitions: 1, ReplicationFactor: 3}}}, wire.CodeInvalidReplicationFactor},
		{"negative min ISR", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", Partitions: 1, ReplicationFactor: 1, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "-1"}}}}}, wire.CodeInvalidConfig},
		{"assignment: empty list", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", Assignment: [][]int32{nil}}}}, wire.CodeInvalidRequest},
		{"assignment: unregistered broker", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", Assignment: [][]int32{{1, 9}}}}}, wire.CodeInvalidRequest},
		{"assignment: broker twice", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", Assignment: [][]int32{{1, 1}}}}}, wire.CodeInvalidRequest},
		{"assignment: lengths differ", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", Assignment: [][]int32{{1, 2}, {1}}}}}, wire.CodeInvalidRequest},
		{"assignment: partitions disagree", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", Partitions: 2, Assignment: [][]int32{{1}}}}}, wire.CodeInvalidRequest},
		{"assignment: factor disagrees", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", ReplicationFactor: 2, Assignment: [][]int32{{1}}}}}, wire.CodeInvalidRequest},
		{"assignment: only fenced brokers", wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", Assignment: [][]int32{{3}}}}}, wire.CodeInvalidReplicationFactor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			end := h.c.MetadataEndOffset()
			r := h.c.CreateTopics(tc.req, h.now)
			if len(r.Topics) != 1 || r.Topics[0].ErrorCode != tc.want || r.Topics[0].ErrorMessage == "" {
				t.Fatalf("%+v, want %v with a message", r, tc.want)
			}
			if h.c.MetadataEndOffset() != end {
				t.Fatal("a refused topic wrote records")
			}
		})
	}
	// Partitions and ReplicationFactor may repeat what the assignment says.
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "y", Partitions: 1, ReplicationFactor: 2, Assignment: [][]int32{{2, 1}}}}})
}

// Metadata answers from the committed image: every registered broker, and
// the asked-for topics; an unknown topic and a leaderless partition say so.
func TestMetadataDescribesBrokersAndPartitions(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1}, {3}}}}})
	h.silence(1000, 1, 2)
	got := h.c.Metadata(wire.MetadataRequest{CorrelationID: 4, Topics: []string{"orders", "nope"}})
	want := wire.MetadataResponse{
		CorrelationID: 4,
		Brokers: []wire.MetadataBroker{
			{ID: 1, Endpoint: "b1:9092"}, {ID: 2, Endpoint: "b2:9092"}, {ID: 3, Endpoint: "b3:9092", Fenced: true},
		},
		Topics: []wire.MetadataTopic{
			{Name: "orders", Partitions: []wire.MetadataPartition{
				{Partition: 0, Leader: 1, Replicas: []int32{1}, ISR: []int32{1}},
				{Partition: 1, ErrorCode: wire.CodeLeaderNotAvailable, Leader: NoLeader, LeaderEpoch: 1, PartitionEpoch: 1,
					Replicas: []int32{3}, ELR: []int32{3}},
			}},
			{Name: "nope", ErrorCode: wire.CodeUnknownTopicOrPartition},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Metadata (-want +got):\n%s", diff)
	}
	if all := h.c.Metadata(wire.MetadataRequest{}); len(all.Topics) != 1 || all.Topics[0].Name != "orders" {
		t.Fatalf("nil Topics means every topic: %+v", all.Topics)
	}
	if none := h.c.Metadata(wire.MetadataRequest{Topics: []string{}}); len(none.Topics) != 0 {
		t.Fatalf("empty Topics means none: %+v", none.Topics)
	}
}

// One request creates many topics, each on its own (Kafka's per-topic
// results): a refused topic leaves the others created, a name given twice
// is refused each time, and each created topic is its own batch in the
// metadata log.
func TestACreateTopicsRequestAnswersEachTopicOnItsOwn(t *testing.T) {
	h := newHarness(t, Config{})
	h.startBroker(1)
	h.startBroker(2)
	end := h.c.MetadataEndOffset()
	batches := h.store.appends
	r := h.c.CreateTopics(wire.CreateTopicsRequest{CorrelationID: 9, Topics: []wire.CreatableTopic{
		{Name: "a", Partitions: 2, ReplicationFactor: 2},
		{Name: "wide", Partitions: 1, ReplicationFactor: 3},
		{Name: "dup", Partitions: 1, ReplicationFactor: 1},
		{Name: "b", Assignment: [][]int32{{2}}, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "1"}}},
		{Name: "dup", Partitions: 1, ReplicationFactor: 1},
		{Name: "c", Partitions: 1, ReplicationFactor: 1, Configs: []wire.TopicConfig{{Name: "no.such.config", Value: "1"}}},
	}}, h.now)
	h.check()
	var got []string
	for _, tr := range r.Topics {
		got = append(got, fmt.Sprintf("%s %v %d/%d", tr.Name, tr.ErrorCode, tr.Partitions, tr.ReplicationFactor))
	}
	want := []string{"a NONE 2/2", "wide INVALID_REPLICATION_FACTOR -1/-1", "dup INVALID_REQUEST -1/-1",
		"b NONE 1/1", "dup INVALID_REQUEST -1/-1", "c INVALID_CONFIG -1/-1"}
	if r.CorrelationID != 9 || !slices.Equal(got, want) {
		t.Fatalf("answers %q (correlation %d), want %q", got, r.CorrelationID, want)
	}
	if n := h.store.appends - batches; n != 2 {
		t.Errorf("%d batches appended, want one per created topic (2)", n)
	}
	if n := h.c.MetadataEndOffset() - end; n != 1+2+1+1+1 {
		t.Errorf("%d records, want a topic and its partitions for a and b, and b's config (6)", n)
	}
	for _, name := range []string{"wide", "dup", "c"} {
		if _, ok := h.c.Image().Topic(name); ok {
			t.Errorf("refused topic %s exists", name)
		}
	}
}
