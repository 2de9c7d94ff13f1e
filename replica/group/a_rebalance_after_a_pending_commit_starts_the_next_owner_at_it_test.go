package group_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
)

// A member's commit still waiting for the high watermark when the member
// leaves: the group rebalances, and the partition's next owner fetches
// its start. The next owner must not start before an offset whose commit
// the coordinator then acknowledges (the client's Commit doc: "the
// partitions' next owner starts from the last commit that succeeded").
// kaenlog's host delivers a connection's requests ahead of their answers,
// so a member's LeaveGroup reaches the coordinator while its commit on the
// same connection waits, which Kafka's broker (one request of a
// connection at a time) never lets happen; what holds the next owner back
// is the log's order: its SyncGroup is answered once the new generation's
// record is committed, and that record follows the pending commit's.
func TestARebalanceAfterAPendingCommitStartsTheNextOwnerAtIt(t *testing.T) {
	h := newHarness(t, quickConfig())
	ids, gen := h.stableGroup("g", 2)
	h.holdCommits = true
	commit := h.commit(group.OffsetCommitRequest{Group: "g", Generation: gen, MemberID: ids[0],
		Partitions: []group.CommitPartition{{Topic: "orders", Partition: 0, Offset: 42, LeaderEpoch: -1}}})
	h.c.LeaveGroup(h.now, group.LeaveGroupRequest{Group: "g", Members: []group.LeavingMember{{MemberID: ids[0]}}})
	h.pump()
	rejoin := h.join(group.JoinGroupRequest{Group: "g", MemberID: ids[1], RequireKnownMemberID: true})
	h.settle()
	j := h.joinAnswer(rejoin)
	if j.Err != nil {
		t.Fatalf("rejoin: %v", j.Err)
	}
	sync := h.sync(group.SyncGroupRequest{Group: "g", Generation: j.Generation, MemberID: ids[1],
		Assignments: []group.Assignment{{MemberID: ids[1], Assignment: []byte("all")}}})
	if h.answered(sync) {
		// The next owner holds its assignment: where does it start?
		if f := fetchOne(h, "g", "orders", 0); f.Offset != 42 {
			h.c.Committed(uint64(len(h.log)))
			h.pump()
			if h.answered(commit) && commitAnswer(t, h, commit).Partitions[0].Err == nil {
				t.Fatalf("the next owner started at %d, and then the commit of 42 was acknowledged", f.Offset)
			}
		}
	}
	h.c.Committed(uint64(len(h.log)))
	h.pump()
	if a := commitAnswer(t, h, commit); a.Partitions[0].Err == nil {
		if f := fetchOne(h, "g", "orders", 0); f.Offset != 42 {
			t.Fatalf("commit acknowledged, fetch %d", f.Offset)
		}
	}
}
