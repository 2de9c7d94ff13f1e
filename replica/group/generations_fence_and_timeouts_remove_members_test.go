package group_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

// Kafka's classicGroupSync and storeGroup: followers wait in SyncGroup
// until the leader's assignment is written and committed; then each gets
// exactly the leader's bytes for it and the group is Stable.
func TestAFollowerWaitsInSyncGroupUntilTheLeadersAssignmentIsCommitted(t *testing.T) {
	h := newHarness(t, quickConfig())
	a, ra := h.joinNew("g", group.JoinGroupRequest{})
	b, rb := h.joinNew("g", group.JoinGroupRequest{})
	h.settle()
	gen := h.joinAnswer(ra).Generation
	_ = h.joinAnswer(rb)
	sb := h.sync(group.SyncGroupRequest{Group: "g", Generation: gen, MemberID: b})
	if h.answered(sb) {
		t.Fatal("a follower's SyncGroup was answered before the leader's")
	}
	h.holdCommits = true
	sa := h.sync(group.SyncGroupRequest{Group: "g", Generation: gen, MemberID: a,
		Assignments: []group.Assignment{{MemberID: a, Assignment: []byte("p0")}, {MemberID: b, Assignment: []byte("p1")}}})
	if h.answered(sa) || h.answered(sb) {
		t.Fatal("SyncGroup answered before the assignment's record was committed")
	}
	h.c.Committed(uint64(len(h.log)))
	h.pump()
	if x, y := h.syncAnswer(sa), h.syncAnswer(sb); string(x.Assignment) != "p0" || string(y.Assignment) != "p1" || x.Err != nil || y.Err != nil {
		t.Fatalf("answers %+v / %+v", x, y)
	}
	if d := h.describe("g"); d.State != group.Stable || string(d.Members[1].Assignment) != "p1" {
		t.Fatalf("described %+v", d)
	}
}

// Kafka's storeGroup callback: if the assignment's write fails, the
// waiting members get the mapped error and the group rebalances.
func TestAFailedAssignmentWriteAnswersTheMappedErrorAndRebalances(t *testing.T) {
	h := newHarness(t, quickConfig())
	a, ra := h.joinNew("g", group.JoinGroupRequest{})
	h.settle()
	h.failWrites = wire.ErrNotEnoughReplicas
	s := h.sync(group.SyncGroupRequest{Group: "g", Generation: h.joinAnswer(ra).Generation, MemberID: a})
	if got := h.syncAnswer(s).Err; !errors.Is(got, wire.ErrCoordinatorNotAvailable) {
		t.Fatalf("sync answered %v, want COORDINATOR_NOT_AVAILABLE (Kafka's map of NOT_ENOUGH_REPLICAS)", got)
	}
	if d := h.describe("g"); d.State != group.PreparingRebalance {
		t.Fatalf("state %v, want PreparingRebalance", d.State)
	}
}

// Generation fencing (Kafka's ClassicGroup validation): a member of an
// older generation is refused ILLEGAL_GENERATION by SyncGroup, Heartbeat
// and OffsetCommit; an id the group does not have is UNKNOWN_MEMBER_ID.
func TestAStaleGenerationIsFencedWithIllegalGeneration(t *testing.T) {
	h := newHarness(t, quickConfig())
	ids, gen := h.stableGroup("g", 2)
	stale := gen - 1
	if err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: stale, MemberID: ids[1]}); !errors.Is(err, wire.ErrIllegalGeneration) {
		t.Errorf("heartbeat: %v", err)
	}
	if a := h.syncAnswer(h.sync(group.SyncGroupRequest{Group: "g", Generation: stale, MemberID: ids[1]})); !errors.Is(a.Err, wire.ErrIllegalGeneration) {
		t.Errorf("sync: %v", a.Err)
	}
	c := h.answers[h.commit(group.OffsetCommitRequest{Group: "g", Generation: stale, MemberID: ids[1],
		Partitions: []group.CommitPartition{{Topic: "orders", Offset: 5}}})].(group.OffsetCommitResponse)
	if !errors.Is(c.Partitions[0].Err, wire.ErrIllegalGeneration) {
		t.Errorf("commit: %v", c.Partitions[0].Err)
	}
	if err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen, MemberID: "ghost"}); !errors.Is(err, wire.ErrUnknownMemberID) {
		t.Errorf("unknown member's heartbeat: %v", err)
	}
	if err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen, MemberID: ids[1]}); err != nil {
		t.Errorf("current member's heartbeat: %v", err)
	}
}

// Kafka's classicGroupHeartbeat: while the group prepares a rebalance, a
// heartbeat of the current generation is answered REBALANCE_IN_PROGRESS,
// telling the member to join again; so is its SyncGroup.
func TestAHeartbeatDuringARebalanceIsAnsweredRebalanceInProgress(t *testing.T) {
	h := newHarness(t, quickConfig())
	ids, gen := h.stableGroup("g", 2)
	h.join(group.JoinGroupRequest{Group: "g", MemberID: ids[0]}) // the leader joins again
	if d := h.describe("g"); d.State != group.PreparingRebalance {
		t.Fatalf("state %v after the leader joined again", d.State)
	}
	if err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen, MemberID: ids[1]}); !errors.Is(err, wire.ErrRebalanceInProgress) {
		t.Fatalf("heartbeat: %v, want REBALANCE_IN_PROGRESS", err)
	}
	if a := h.syncAnswer(h.sync(group.SyncGroupRequest{Group: "g", Generation: gen, MemberID: ids[1]})); !errors.Is(a.Err, wire.ErrRebalanceInProgress) {
		t.Fatalf("sync: %v", a.Err)
	}
}

// Kafka's rebalance timeout (DelayedJoin's expiry, onCompleteJoin): a
// member that does not join again within the longest rebalance timeout is
// removed, and the generation forms without it; a leader that did not join
// is replaced.
func TestAMemberThatDoesNotRejoinWithinTheRebalanceTimeoutIsRemoved(t *testing.T) {
	h := newHarness(t, quickConfig())
	ids, gen := h.stableGroup("g", 2)
	// Keep both sessions alive; only the follower joins again.
	r := h.join(group.JoinGroupRequest{Group: "g", MemberID: ids[1], Protocols: []group.Protocol{{Name: "range", Metadata: []byte("new")}}})
	for i := 0; i < 3; i++ {
		h.advance(9_000)
		_ = h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen, MemberID: ids[0]})
	}
	h.advance(3_000) // 30 s after the rebalance started
	a := h.joinAnswer(r)
	if a.Err != nil || a.Generation != gen+1 || a.Leader != ids[1] || len(a.Members) != 1 {
		t.Fatalf("answer %+v, want generation %d led by the member that joined, alone", a, gen+1)
	}
	if err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen + 1, MemberID: ids[0]}); !errors.Is(err, wire.ErrUnknownMemberID) {
		t.Fatalf("the removed leader's heartbeat: %v", err)
	}
}

// Kafka's session timeout (onExpireHeartbeat): a member that sends no
// heartbeat within its session timeout is removed and the group
// rebalances; the survivors learn it from REBALANCE_IN_PROGRESS.
func TestAMemberWhoseSessionExpiresIsRemovedAndTheGroupRebalances(t *testing.T) {
	h := newHarness(t, quickConfig())
	ids, gen := h.stableGroup("g", 2)
	h.advance(5_000)
	if err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen, MemberID: ids[0]}); err != nil {
		t.Fatal(err)
	}
	h.advance(5_000) // ids[1]'s 10 s session ends
	if d := h.describe("g"); d.State != group.PreparingRebalance || len(d.Members) != 1 || d.Members[0].MemberID != ids[0] {
		t.Fatalf("described %+v, want PreparingRebalance with the member that heartbeat", d)
	}
	if err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen, MemberID: ids[0]}); !errors.Is(err, wire.ErrRebalanceInProgress) {
		t.Fatalf("survivor's heartbeat: %v", err)
	}
}

// Kafka's pending sync members: a member that joined but never sends
// SyncGroup within the rebalance timeout is removed.
func TestAMemberThatNeverSyncsIsRemovedAfterTheRebalanceTimeout(t *testing.T) {
	h := newHarness(t, quickConfig())
	a, ra := h.joinNew("g", group.JoinGroupRequest{})
	b, _ := h.joinNew("g", group.JoinGroupRequest{})
	h.settle()
	gen := h.joinAnswer(ra).Generation
	h.sync(group.SyncGroupRequest{Group: "g", Generation: gen, MemberID: a, Assignments: []group.Assignment{{MemberID: a, Assignment: []byte("x")}}})
	for i := 0; i < 3; i++ {
		h.advance(9_000)
		_ = h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen, MemberID: a})
		_ = h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen, MemberID: b})
	}
	h.advance(3_000)
	if err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen, MemberID: b}); !errors.Is(err, wire.ErrUnknownMemberID) {
		t.Fatalf("heartbeat of the member that never synced: %v, want UNKNOWN_MEMBER_ID", err)
	}
}

// Kafka's doCommitOffsets: a member's offset commit also resets its
// session, as a heartbeat does.
func TestAMembersOffsetCommitKeepsItsSessionAlive(t *testing.T) {
	h := newHarness(t, quickConfig())
	ids, gen := h.stableGroup("g", 1)
	for i := 0; i < 3; i++ {
		h.advance(8_000)
		commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "g", Generation: gen, MemberID: ids[0], Partitions: []group.CommitPartition{{Topic: "t", Offset: int64(i)}}}))
	}
	if err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: gen, MemberID: ids[0]}); err != nil {
		t.Fatalf("after 24 s of commits and no heartbeat: %v, want the member kept", err)
	}
}
