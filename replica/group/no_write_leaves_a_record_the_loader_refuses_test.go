package group_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

// Kafka's record strings have an int16 length, and a flexible request's
// compact strings do not: a group id, topic, instance id or protocol name
// of more than 32767 bytes arrives whole. A record carrying one would not
// decode, and the loader refuses a partition it cannot read: every group
// of that __consumer_offsets partition would answer
// COORDINATOR_LOAD_IN_PROGRESS at every later load, for ever (the record
// stays in the log). So no such record is ever written: the request is
// refused instead (a topic no topic name can be is
// UNKNOWN_TOPIC_OR_PARTITION, as Kafka answers a commit for a topic it
// does not have; anything else UNKNOWN_SERVER_ERROR, as Kafka's record
// serializer fails), and what the coordinator acknowledged is what the
// next leader loads.
func TestNoWriteLeavesARecordTheLoaderRefuses(t *testing.T) {
	long := strings.Repeat("x", 1<<15)
	h := newHarness(t, quickConfig())
	ok := commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "g", Generation: -1,
		Partitions: []group.CommitPartition{{Topic: "t", Offset: 1}}}))
	if ok.Partitions[0].Err != nil {
		t.Fatal(ok.Partitions[0].Err)
	}
	topic := commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "g", Generation: -1,
		Partitions: []group.CommitPartition{{Topic: long, Offset: 2}, {Topic: "t", Partition: 1, Offset: 3}}}))
	if !errors.Is(topic.Partitions[0].Err, wire.ErrUnknownTopicOrPartition) || topic.Partitions[1].Err != nil {
		t.Errorf("commit of a %d-byte topic answered %v, %v; want UNKNOWN_TOPIC_OR_PARTITION, then none", len(long), topic.Partitions[0].Err, topic.Partitions[1].Err)
	}
	gid := commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: long, Generation: -1,
		Partitions: []group.CommitPartition{{Topic: "t", Offset: 4}}}))
	if gid.Partitions[0].Err == nil {
		t.Errorf("commit of a %d-byte group id answered success", len(long))
	}
	// A static member whose instance id does not fit, and a dynamic one
	// whose client id makes a member id that does not: their groups'
	// records must not reach the log either.
	h.join(group.JoinGroupRequest{Group: "static", GroupInstanceID: long})
	h.join(group.JoinGroupRequest{Group: "static-proto", GroupInstanceID: "i", Protocols: []group.Protocol{{Name: long}}})
	h.joinNew("dynamic", group.JoinGroupRequest{ClientID: long[:1<<15-1]})
	h.settle()
	for _, g := range []string{"static", "static-proto", "dynamic"} {
		for _, m := range h.describe(g).Members {
			h.sync(group.SyncGroupRequest{Group: g, Generation: 1, MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID,
				Assignments: []group.Assignment{{MemberID: m.MemberID, Assignment: []byte("a")}}})
		}
	}
	c := group.New(quickConfig())
	c.BeginLoad()
	for i, rec := range h.log {
		if err := c.Load(rec); err != nil {
			t.Fatalf("record %d of the log does not load: %v", i, err)
		}
	}
	c.Loaded(h.now)
	for _, tc := range []struct {
		p    int32
		want int64
	}{{0, 1}, {1, 3}} {
		f := c.OffsetFetch(group.OffsetFetchRequest{Group: "g", Partitions: []group.TopicPartition{{Topic: "t", Partition: tc.p}}}).Partitions[0]
		if f.Offset != tc.want {
			t.Errorf("after a reload t/%d reads %d, want the acknowledged %d", tc.p, f.Offset, tc.want)
		}
	}
}
