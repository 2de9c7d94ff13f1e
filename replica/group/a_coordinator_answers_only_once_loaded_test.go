package group_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

// A new coordinator answers COORDINATOR_LOAD_IN_PROGRESS until it has
// replayed its partition, and one that is not (or no longer) the leader
// answers NOT_COORDINATOR; an Unload releases waiting answers with
// NOT_COORDINATOR, never with success.
func TestALoadingCoordinatorAnswersLoadInProgressAndAnUnloadedOneNotCoordinator(t *testing.T) {
	c := group.New(quickConfig())
	if err := c.Heartbeat(0, group.HeartbeatRequest{Group: "g"}); !errors.Is(err, wire.ErrNotCoordinator) {
		t.Fatalf("before any load: %v", err)
	}
	c.BeginLoad()
	if err := c.Heartbeat(0, group.HeartbeatRequest{Group: "g"}); !errors.Is(err, wire.ErrCoordinatorLoadInProgress) || !wire.IsRetriable(err) {
		t.Fatalf("loading: %v", err)
	}
	if r := c.OffsetFetch(group.OffsetFetchRequest{Group: "g"}); !errors.Is(r.Err, wire.ErrCoordinatorLoadInProgress) {
		t.Fatalf("loading fetch: %v", r.Err)
	}
	c.Loaded(0)

	h := &harness{t: t, c: c, answers: map[uint64]group.Response{}, holdCommits: true}
	join := h.join(group.JoinGroupRequest{Group: "g"})
	commit := h.commit(group.OffsetCommitRequest{Group: "s", Generation: -1, Partitions: []group.CommitPartition{{Topic: "t", Offset: 1}}})
	c.Unload()
	h.pump()
	if a := h.joinAnswer(join); !errors.Is(a.Err, wire.ErrNotCoordinator) {
		t.Fatalf("waiting join after Unload: %v", a.Err)
	}
	if a := commitAnswer(t, h, commit); !errors.Is(a.Partitions[0].Err, wire.ErrNotCoordinator) {
		t.Fatalf("uncommitted commit after Unload: %v", a.Partitions[0].Err)
	}
	if r := c.ListGroups(group.ListGroupsRequest{}); !errors.Is(r.Err, wire.ErrNotCoordinator) {
		t.Fatalf("after Unload: %v", r.Err)
	}
}

// Kafka's loader: the partition is replayed in order, the last value of a
// key wins and a tombstone deletes it; a group with members comes back
// Stable with its generation, leader and assignments, and its members'
// sessions restart at load.
func TestLoadReplaysThePartitionLastValueWinsAndTombstonesDelete(t *testing.T) {
	h := newHarness(t, quickConfig())
	ids, gen := h.stableGroup("g", 2)
	for _, off := range []int64{10, 20} {
		commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "g", Generation: gen, MemberID: ids[0], Partitions: []group.CommitPartition{{Topic: "t", Offset: off}}}))
	}
	commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "gone", Generation: -1, Partitions: []group.CommitPartition{{Topic: "t", Offset: 1}}}))
	del := h.ref()
	h.c.DeleteGroups(h.now, group.DeleteGroupsRequest{Ref: del, Groups: []string{"gone"}})
	h.pump()

	next := group.New(quickConfig())
	next.BeginLoad()
	unknownType := append([]byte{0, 3}, "x"...) // a KIP-848 record type: skipped
	if err := next.Load(append(h.log, group.Record{Key: unknownType, Value: []byte("v")})...); err != nil {
		t.Fatal(err)
	}
	next.Loaded(h.now)
	if f := next.OffsetFetch(group.OffsetFetchRequest{Group: "g", Partitions: []group.TopicPartition{{Topic: "t"}}}).Partitions[0]; f.Offset != 20 {
		t.Fatalf("loaded offset %d, want the last value 20", f.Offset)
	}
	if d := next.DescribeGroups([]string{"gone"})[0]; d.State != group.Dead {
		t.Fatalf("tombstoned group loaded as %v", d.State)
	}
	d := next.DescribeGroups([]string{"g"})[0]
	if d.State != group.Stable || len(d.Members) != 2 || string(d.Members[1].Assignment) != "a-"+ids[1] {
		t.Fatalf("loaded group %+v", d)
	}
	if err := next.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen, MemberID: ids[1]}); err != nil {
		t.Fatalf("a loaded member's heartbeat: %v", err)
	}
	if err := next.Load(group.Record{Key: []byte{0, 2, 0}}); err == nil {
		t.Fatal("Load after Loaded accepted records")
	}
	bad := group.New(quickConfig())
	bad.BeginLoad()
	if err := bad.Load(group.Record{Key: group.GroupKey("g"), Value: []byte{0, 9}}); !errors.Is(err, group.ErrMalformedRecord) {
		t.Fatalf("a value of version 9 loaded: %v", err)
	}
}

// Kafka's ListGroups and DescribeGroups: groups with their state and
// protocol type, filtered by state; members' metadata and assignments are
// described in Stable only.
func TestListGroupsFiltersByStateAndDescribeShowsAssignmentsWhenStable(t *testing.T) {
	h := newHarness(t, quickConfig())
	h.stableGroup("stable", 1)
	h.joinNew("joining", group.JoinGroupRequest{})
	commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "empty", Generation: -1, Partitions: []group.CommitPartition{{Topic: "t"}}}))
	all := h.c.ListGroups(group.ListGroupsRequest{}).Groups
	if len(all) != 3 || all[0].Group != "empty" || all[0].State != group.Empty || all[1].State != group.PreparingRebalance || all[2].ProtocolType != "consumer" {
		t.Fatalf("listed %+v", all)
	}
	if st := h.c.ListGroups(group.ListGroupsRequest{States: []group.State{group.Stable}}).Groups; len(st) != 1 || st[0].Group != "stable" {
		t.Fatalf("listed Stable %+v", st)
	}
	d := h.c.DescribeGroups([]string{"stable", "joining", "none"})
	if d[0].Protocol != "range" || d[0].Members[0].Assignment == nil || d[0].Members[0].Metadata == nil {
		t.Fatalf("stable described %+v", d[0])
	}
	if d[1].Protocol != "" || d[1].Members[0].Metadata != nil || d[2].State != group.Dead || d[2].Err != nil {
		t.Fatalf("described %+v / %+v", d[1], d[2])
	}
}
