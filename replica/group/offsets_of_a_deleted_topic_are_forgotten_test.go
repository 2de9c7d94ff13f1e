package group_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
)

// Kafka's onPartitionsDeleted: a deleted topic's committed offsets are
// tombstoned in every group, commits of it still in flight included, so
// that a topic created again under the name is read from where the
// consumer's reset policy says, never from the deleted topic's offsets.
// Other topics' offsets stay, in memory and at the next load.
func TestOffsetsOfADeletedTopicAreForgotten(t *testing.T) {
	h := newHarness(t, quickConfig())
	for _, g := range []string{"a", "b"} {
		commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: g, Generation: -1,
			Partitions: []group.CommitPartition{{Topic: "gone", Offset: 900}, {Topic: "gone", Partition: 1, Offset: 901}, {Topic: "kept", Offset: 5}}}))
	}
	h.holdCommits = true
	inFlight := h.commit(group.OffsetCommitRequest{Group: "c", Generation: -1, Partitions: []group.CommitPartition{{Topic: "gone", Offset: 950}}})
	h.c.TopicsDeleted([]string{"gone"})
	h.pump()
	h.c.Committed(uint64(len(h.log)))
	h.pump()
	if a := commitAnswer(t, h, inFlight); a.Partitions[0].Err != nil {
		t.Fatalf("the commit in flight answered %v", a.Partitions[0].Err)
	}
	c := reload(t, h)
	for _, g := range []string{"a", "b", "c"} {
		for _, p := range []int32{0, 1} {
			if f := fetchOne(h, g, "gone", p); f.Offset != -1 {
				t.Errorf("group %s still answers %+v for the deleted topic", g, f)
			}
			f := c.OffsetFetch(group.OffsetFetchRequest{Group: g, Partitions: []group.TopicPartition{{Topic: "gone", Partition: p}}}).Partitions[0]
			if f.Offset != -1 {
				t.Errorf("after a reload group %s answers %+v for the deleted topic", g, f)
			}
		}
	}
	for _, g := range []string{"a", "b"} {
		if f := fetchOne(h, g, "kept", 0); f.Offset != 5 {
			t.Errorf("group %s lost another topic's offset: %+v", g, f)
		}
	}
}
