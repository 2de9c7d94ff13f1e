package controller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kaenlog/kaenlog/wire"
)

// A deleted topic is gone from the image and stays gone after a restart
// (its RemoveTopicRecord replays); each name is answered on its own; a
// topic created again with the name starts with epochs 0.
func TestDeleteTopicsRemovesTheTopicAndTheRemovalReplays(t *testing.T) {
	h := newHarness(t, Config{})
	h.startBroker(1)
	h.startBroker(2)
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "a", Partitions: 2, ReplicationFactor: 2}}})
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "b", Partitions: 1, ReplicationFactor: 1}}})
	// Move a-0's epochs on, so the recreated topic's zeros mean something.
	h.alter(h.alterReq("a", 0, 1), wire.CodeNone)
	before := h.store.EndOffset()
	resp := h.c.DeleteTopics(wire.DeleteTopicsRequest{CorrelationID: 7, Names: []string{"a", "nope", "a"}}, h.now)
	want := wire.DeleteTopicsResponse{CorrelationID: 7, Topics: []wire.DeletedTopic{
		{Name: "a"}, {Name: "nope", ErrorCode: wire.CodeUnknownTopicOrPartition}, {Name: "a", ErrorCode: wire.CodeUnknownTopicOrPartition},
	}}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Fatalf("DeleteTopics (-want +got):\n%s", diff)
	}
	if got := h.store.EndOffset() - before; got != 1 {
		t.Fatalf("the deletion wrote %d records, want one RemoveTopicRecord", got)
	}
	h.check()
	h.restartController()
	if _, ok := h.c.Image().Topic("a"); ok {
		t.Fatal("topic a is in the image after its deletion and a restart")
	}
	if _, ok := h.c.Image().Partition("a", 0); ok {
		t.Fatal("partition a-0 is in the image after its topic's deletion")
	}
	if names := h.c.Image().TopicNames(); !cmp.Equal(names, []string{"b"}) {
		t.Fatalf("topics %v, want [b]", names)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "a", Partitions: 1, ReplicationFactor: 2}}})
	if tp, _ := h.c.Image().Topic("a"); tp.CreatedOffset <= before {
		t.Fatalf("recreated topic a: created at %d, want after the first one's deletion at %d", tp.CreatedOffset, before)
	}
	if p := h.part("a", 0); p.LeaderEpoch != 0 || p.PartitionEpoch != 0 {
		t.Fatalf("recreated a-0: %v, want epochs 0/0", p)
	}
}

// ValidateOnly answers as the creation would, and writes nothing.
func TestCreateTopicsValidateOnlyWritesNothing(t *testing.T) {
	h := newHarness(t, Config{})
	h.startBroker(1)
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "a", Partitions: 1, ReplicationFactor: 1}}})
	end := h.store.EndOffset()
	for _, tc := range []struct {
		req  wire.CreateTopicsRequest
		want wire.ErrorCode
	}{
		{wire.CreateTopicsRequest{ValidateOnly: true, Topics: []wire.CreatableTopic{{Name: "b", Partitions: 3, ReplicationFactor: 1}}}, wire.CodeNone},
		{wire.CreateTopicsRequest{ValidateOnly: true, Topics: []wire.CreatableTopic{{Name: "a", Partitions: 1, ReplicationFactor: 1}}}, wire.CodeTopicAlreadyExists},
		{wire.CreateTopicsRequest{ValidateOnly: true, Topics: []wire.CreatableTopic{{Name: "c", Partitions: 1, ReplicationFactor: 2}}}, wire.CodeInvalidReplicationFactor},
	} {
		if got := h.c.CreateTopics(tc.req, h.now); wire.CodeOf(got.Err()) != tc.want {
			t.Errorf("%+v: %v %s, want %v", tc.req, got.ErrorCode, got.ErrorMessage, tc.want)
		}
	}
	if h.store.EndOffset() != end {
		t.Fatalf("validate-only requests wrote %d records", h.store.EndOffset()-end)
	}
	if _, ok := h.c.Image().Topic("b"); ok {
		t.Fatal("a validate-only creation created the topic")
	}
}

// A failed controller deletes nothing and says so for every name.
func TestDeleteTopicsOnAFailedControllerAnswersNotController(t *testing.T) {
	h := newHarness(t, Config{})
	h.startBroker(1)
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "a", Partitions: 1, ReplicationFactor: 1}}})
	h.store.failAppends = 1
	if r := h.c.DeleteTopics(wire.DeleteTopicsRequest{Names: []string{"a"}}, h.now); r.Topics[0].ErrorCode == wire.CodeNone {
		t.Fatalf("a deletion the store refused answered %v", r.Topics[0].ErrorCode)
	}
	r := h.c.DeleteTopics(wire.DeleteTopicsRequest{Names: []string{"a", "x"}}, h.now)
	for _, tp := range r.Topics {
		if tp.ErrorCode != wire.CodeNotController {
			t.Fatalf("after the failure: %+v, want NOT_CONTROLLER for every name", r.Topics)
		}
	}
}
