package group_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

// Kafka's GroupCoordinatorService refuses an empty group id with
// INVALID_GROUP_ID for every API of group coordination — JoinGroup,
// SyncGroup, Heartbeat, LeaveGroup (top-level), OffsetCommit and
// OffsetDelete — before it looks for a group; OffsetFetch keeps
// answering it for backwards compatibility.
func TestAnEmptyGroupIDIsInvalid(t *testing.T) {
	h := newHarness(t, quickConfig())
	if a := h.joinAnswer(h.join(group.JoinGroupRequest{})); !errors.Is(a.Err, wire.ErrInvalidGroupID) {
		t.Errorf("JoinGroup: %v", a.Err)
	}
	if a := h.syncAnswer(h.sync(group.SyncGroupRequest{MemberID: "m"})); !errors.Is(a.Err, wire.ErrInvalidGroupID) {
		t.Errorf("SyncGroup: %v", a.Err)
	}
	if err := h.c.Heartbeat(h.now, group.HeartbeatRequest{MemberID: "m"}); !errors.Is(err, wire.ErrInvalidGroupID) {
		t.Errorf("Heartbeat: %v", err)
	}
	if r := h.c.LeaveGroup(h.now, group.LeaveGroupRequest{Members: []group.LeavingMember{{MemberID: "m"}}}); !errors.Is(r.Err, wire.ErrInvalidGroupID) {
		t.Errorf("LeaveGroup: %+v", r)
	}
	if a := commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Generation: -1, Partitions: []group.CommitPartition{{Topic: "t"}}})); !errors.Is(a.Partitions[0].Err, wire.ErrInvalidGroupID) {
		t.Errorf("OffsetCommit: %v", a.Partitions[0].Err)
	}
	ref := h.ref()
	h.c.OffsetDelete(h.now, group.OffsetDeleteRequest{Ref: ref, Partitions: []group.TopicPartition{{Topic: "t"}}})
	h.pump()
	if r := h.answers[ref].(group.OffsetDeleteResponse); !errors.Is(r.Err, wire.ErrInvalidGroupID) {
		t.Errorf("OffsetDelete: %v", r.Err)
	}
	if r := h.c.OffsetFetch(group.OffsetFetchRequest{Partitions: []group.TopicPartition{{Topic: "t"}}}); r.Err != nil || r.Partitions[0].Offset != -1 {
		t.Errorf("OffsetFetch: %+v", r)
	}
}
