package group_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

// KIP-345 (Kafka's updateStaticMemberAndRebalance): a static member that
// restarts joins with its group.instance.id and no member id; in a Stable
// group with unchanged metadata it gets a new member id, the same
// generation and, once written, its old assignment, without a rebalance.
// The old member id is fenced: FENCED_INSTANCE_ID.
func TestAStaticMemberThatRestartsKeepsItsAssignmentAndFencesItsOldID(t *testing.T) {
	h := newHarness(t, quickConfig())
	r1 := h.join(group.JoinGroupRequest{Group: "g", GroupInstanceID: "pod-1", RequireKnownMemberID: true}) // no MEMBER_ID_REQUIRED for static members
	r2 := h.join(group.JoinGroupRequest{Group: "g", GroupInstanceID: "pod-2"})
	h.settle()
	j1, j2 := h.joinAnswer(r1), h.joinAnswer(r2)
	if !strings.HasPrefix(j1.MemberID, "pod-1-") || j1.Leader != j1.MemberID {
		t.Fatalf("static join answered %+v", j1)
	}
	h.sync(group.SyncGroupRequest{Group: "g", Generation: j1.Generation, MemberID: j1.MemberID,
		Assignments: []group.Assignment{{MemberID: j1.MemberID, Assignment: []byte("p0")}, {MemberID: j2.MemberID, Assignment: []byte("p1")}}})
	h.sync(group.SyncGroupRequest{Group: "g", Generation: j2.Generation, MemberID: j2.MemberID})

	back := h.joinAnswer(h.join(group.JoinGroupRequest{Group: "g", GroupInstanceID: "pod-2"}))
	if back.Err != nil || back.MemberID == j2.MemberID || back.Generation != j2.Generation {
		t.Fatalf("restarted member answered %+v, want a new id in generation %d", back, j2.Generation)
	}
	if d := h.describe("g"); d.State != group.Stable {
		t.Fatalf("state %v, want Stable: a static restart does not rebalance", d.State)
	}
	s := h.syncAnswer(h.sync(group.SyncGroupRequest{Group: "g", Generation: back.Generation, MemberID: back.MemberID, GroupInstanceID: "pod-2"}))
	if string(s.Assignment) != "p1" {
		t.Fatalf("restarted member's assignment %q, want its old p1", s.Assignment)
	}
	err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: j2.Generation, MemberID: j2.MemberID, GroupInstanceID: "pod-2"})
	if !errors.Is(err, wire.ErrFencedInstanceID) || wire.CodeOf(err) != wire.CodeFencedInstanceID {
		t.Fatalf("old id's heartbeat: %v, want FENCED_INSTANCE_ID", err)
	}
}

// KIP-345: a static leader restarting in a Stable group is told to skip
// the assignment (KIP-814's SkipAssignment): the group keeps its own.
func TestARestartedStaticLeaderIsToldToSkipTheAssignment(t *testing.T) {
	h := newHarness(t, quickConfig())
	r := h.join(group.JoinGroupRequest{Group: "g", GroupInstanceID: "pod-1"})
	h.settle()
	j := h.joinAnswer(r)
	h.sync(group.SyncGroupRequest{Group: "g", Generation: j.Generation, MemberID: j.MemberID, Assignments: []group.Assignment{{MemberID: j.MemberID, Assignment: []byte("all")}}})
	back := h.joinAnswer(h.join(group.JoinGroupRequest{Group: "g", GroupInstanceID: "pod-1"}))
	if !back.SkipAssignment || back.Leader != back.MemberID || len(back.Members) != 1 {
		t.Fatalf("restarted leader answered %+v, want SkipAssignment with the members", back)
	}
}

// Kafka's classicGroupLeave (LeaveGroup v3+): a batch names members by id
// or, static ones, by group.instance.id; each gets its own result, an
// unknown one UNKNOWN_MEMBER_ID, and the group rebalances without them.
func TestLeaveGroupRemovesABatchOfMembersByIDOrInstanceID(t *testing.T) {
	h := newHarness(t, quickConfig())
	dyn, rd := h.joinNew("g", group.JoinGroupRequest{})
	rs := h.join(group.JoinGroupRequest{Group: "g", GroupInstanceID: "pod-1"})
	keep, rk := h.joinNew("g", group.JoinGroupRequest{})
	h.settle()
	_, _, _ = h.joinAnswer(rd), h.joinAnswer(rs), h.joinAnswer(rk)
	resp := h.c.LeaveGroup(h.now, group.LeaveGroupRequest{Group: "g", Members: []group.LeavingMember{
		{MemberID: dyn}, {GroupInstanceID: "pod-1"}, {MemberID: "ghost"}, {GroupInstanceID: "pod-9"},
	}})
	h.pump()
	if resp.Err != nil || resp.Members[0].Err != nil || resp.Members[1].Err != nil ||
		!errors.Is(resp.Members[2].Err, wire.ErrUnknownMemberID) || !errors.Is(resp.Members[3].Err, wire.ErrUnknownMemberID) {
		t.Fatalf("leave answered %+v", resp)
	}
	d := h.describe("g")
	if len(d.Members) != 1 || d.Members[0].MemberID != keep || d.State != group.PreparingRebalance {
		t.Fatalf("described %+v, want only %s, rebalancing", d, keep)
	}
	gone := h.c.LeaveGroup(h.now, group.LeaveGroupRequest{Group: "nothing", Members: []group.LeavingMember{{MemberID: "x"}}})
	if gone.Err != nil || !errors.Is(gone.Members[0].Err, wire.ErrUnknownMemberID) {
		t.Fatalf("leave of a group with no state: %+v", gone)
	}
}

// Kafka's validateCurrentMember on LeaveGroup: a static member named by an
// id that is not the one holding its instance id is FENCED_INSTANCE_ID.
func TestALeaveWithAStaleIDForAnInstanceIsFenced(t *testing.T) {
	h := newHarness(t, quickConfig())
	r := h.join(group.JoinGroupRequest{Group: "g", GroupInstanceID: "pod-1"})
	h.settle()
	_ = h.joinAnswer(r)
	resp := h.c.LeaveGroup(h.now, group.LeaveGroupRequest{Group: "g", Members: []group.LeavingMember{{MemberID: "pod-1-old", GroupInstanceID: "pod-1"}}})
	if !errors.Is(resp.Members[0].Err, wire.ErrFencedInstanceID) {
		t.Fatalf("leave answered %v, want FENCED_INSTANCE_ID", resp.Members[0].Err)
	}
}
