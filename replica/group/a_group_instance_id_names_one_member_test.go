package group_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

// Kafka's ClassicGroup.validateMember: a request that names a
// group.instance.id the group does not map to a member is
// UNKNOWN_MEMBER_ID, whatever its member id, for Heartbeat, SyncGroup,
// OffsetCommit, LeaveGroup and an existing member's JoinGroup alike. Only
// a member that joined with the instance id speaks for it.
func TestARequestNamingAnInstanceIDTheGroupDoesNotMapIsUnknownMember(t *testing.T) {
	h := newHarness(t, quickConfig())
	ids, gen := h.stableGroup("g", 2)
	dyn := ids[1] // a dynamic member: no instance id is mapped to it

	if err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen, MemberID: dyn, GroupInstanceID: "ghost"}); !errors.Is(err, wire.ErrUnknownMemberID) {
		t.Errorf("heartbeat of %s as instance ghost: %v, want UNKNOWN_MEMBER_ID", dyn, err)
	}
	s := h.syncAnswer(h.sync(group.SyncGroupRequest{Group: "g", Generation: gen, MemberID: dyn, GroupInstanceID: "ghost"}))
	if !errors.Is(s.Err, wire.ErrUnknownMemberID) {
		t.Errorf("sync of %s as instance ghost: %v, want UNKNOWN_MEMBER_ID", dyn, s.Err)
	}
	ref := h.commit(group.OffsetCommitRequest{Group: "g", Generation: gen, MemberID: dyn, GroupInstanceID: "ghost",
		Partitions: []group.CommitPartition{{Topic: "orders", Partition: 0, Offset: 7, LeaderEpoch: -1}}})
	c := answerTo[group.OffsetCommitResponse](h, ref)
	if !errors.Is(c.Partitions[0].Err, wire.ErrUnknownMemberID) {
		t.Errorf("commit of %s as instance ghost: %v, want UNKNOWN_MEMBER_ID", dyn, c.Partitions[0].Err)
	}
	if f := h.c.OffsetFetch(group.OffsetFetchRequest{Group: "g"}); len(f.Partitions) != 0 {
		t.Errorf("offsets after the refused commit: %+v, want none", f.Partitions)
	}
	l := h.c.LeaveGroup(h.now, group.LeaveGroupRequest{Group: "g", Members: []group.LeavingMember{{MemberID: dyn, GroupInstanceID: "ghost"}}})
	if !errors.Is(l.Members[0].Err, wire.ErrUnknownMemberID) {
		t.Errorf("leave of %s as instance ghost: %v, want UNKNOWN_MEMBER_ID", dyn, l.Members[0].Err)
	}
	if d := h.describe("g"); d.State != group.Stable || len(d.Members) != 2 {
		t.Errorf("group after the refused requests: %v with %d members, want Stable with 2", d.State, len(d.Members))
	}
}

// Kafka's classicGroupJoinExistingMember: a pending member (one answered
// MEMBER_ID_REQUIRED) is a dynamic member, and its second join naming a
// group.instance.id is refused (Kafka throws IllegalStateException, which
// its coordinator answers UNKNOWN_SERVER_ERROR). Otherwise the instance
// id would be taken from the static member holding it without that member
// being fenced or removed: two members of one generation would carry one
// instance id, and the holder's partitions would be assigned to a member
// that can no longer sync.
func TestAPendingMemberCannotTakeAGroupInstanceID(t *testing.T) {
	h := newHarness(t, quickConfig())
	r := h.join(group.JoinGroupRequest{Group: "g", GroupInstanceID: "pod-1"})
	h.settle()
	holder := h.joinAnswer(r)
	h.sync(group.SyncGroupRequest{Group: "g", Generation: holder.Generation, MemberID: holder.MemberID,
		Assignments: []group.Assignment{{MemberID: holder.MemberID, Assignment: []byte("p0")}}})

	first := h.joinAnswer(h.join(group.JoinGroupRequest{Group: "g", RequireKnownMemberID: true}))
	if !errors.Is(first.Err, wire.ErrMemberIDRequired) {
		t.Fatalf("first join: %v, want MEMBER_ID_REQUIRED", first.Err)
	}
	second := h.join(group.JoinGroupRequest{Group: "g", MemberID: first.MemberID, GroupInstanceID: "pod-1", RequireKnownMemberID: true})
	again := h.join(group.JoinGroupRequest{Group: "g", MemberID: holder.MemberID, GroupInstanceID: "pod-1"})
	h.settle()
	if !h.answered(second) {
		t.Fatal("the pending member's join with an instance id was never answered")
	}
	if a := h.joinAnswer(second); a.Err == nil {
		t.Errorf("pending member %s joining as instance pod-1 answered %+v, want a refusal", first.MemberID, a)
	}
	d := h.describe("g")
	n := 0
	for _, m := range d.Members {
		if m.GroupInstanceID == "pod-1" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d members carry instance id pod-1 (%+v), want exactly 1", n, d.Members)
	}
	if err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: h.joinAnswer(again).Generation, MemberID: holder.MemberID, GroupInstanceID: "pod-1"}); errors.Is(err, wire.ErrFencedInstanceID) {
		t.Errorf("the instance's holder %s was fenced by a pending member's join", holder.MemberID)
	}
}
