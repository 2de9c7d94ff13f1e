package group_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

func commitAnswer(t *testing.T, h *harness, ref uint64) group.OffsetCommitResponse {
	t.Helper()
	return answerTo[group.OffsetCommitResponse](h, ref)
}

func fetchOne(h *harness, g, topic string, p int32) group.FetchedOffset {
	return h.c.OffsetFetch(group.OffsetFetchRequest{Group: g, Partitions: []group.TopicPartition{{Topic: topic, Partition: p}}}).Partitions[0]
}

// An OffsetCommit is answered only once its record is committed (the high
// watermark passed it), so an acknowledged offset survives the
// coordinator's failover; until then OffsetFetch still gives the old one.
func TestOffsetCommitIsAnsweredOnlyOnceItsRecordIsCommitted(t *testing.T) {
	h := newHarness(t, quickConfig())
	ids, gen := h.stableGroup("g", 1)
	h.holdCommits = true
	ref := h.commit(group.OffsetCommitRequest{Group: "g", Generation: gen, MemberID: ids[0],
		Partitions: []group.CommitPartition{{Topic: "orders", Partition: 0, Offset: 42, LeaderEpoch: 3, Metadata: "m"}}})
	if h.answered(ref) {
		t.Fatal("OffsetCommit answered before its record was committed")
	}
	if f := fetchOne(h, "g", "orders", 0); f.Offset != -1 {
		t.Fatalf("OffsetFetch saw the uncommitted offset %d", f.Offset)
	}
	h.c.Committed(uint64(len(h.log) - 1)) // the HW reaches the record, not past it
	h.pump()
	if h.answered(ref) {
		t.Fatal("OffsetCommit answered with the high watermark at its record, not past it")
	}
	h.c.Committed(uint64(len(h.log)))
	h.pump()
	if a := commitAnswer(t, h, ref); a.Partitions[0].Err != nil {
		t.Fatalf("commit answered %v", a.Partitions[0].Err)
	}
	if f := fetchOne(h, "g", "orders", 0); f.Offset != 42 || f.LeaderEpoch != 3 || f.Metadata != "m" {
		t.Fatalf("fetched %+v", f)
	}
}

// Kafka's OffsetFetch for a group (or partition) with no committed offset:
// -1, epoch -1, and no error.
func TestOffsetFetchForAGroupWithNoStateAnswersMinusOneWithNoError(t *testing.T) {
	h := newHarness(t, quickConfig())
	resp := h.c.OffsetFetch(group.OffsetFetchRequest{Group: "nobody", Partitions: []group.TopicPartition{{Topic: "orders", Partition: 3}}})
	if resp.Err != nil || len(resp.Partitions) != 1 || resp.Partitions[0].Offset != -1 || resp.Partitions[0].LeaderEpoch != -1 {
		t.Fatalf("fetched %+v", resp)
	}
}

// Kafka's validateOffsetCommit: generation -1 without a member id commits
// for an Empty (or new, "simple") group; for a group with members it is
// UNKNOWN_MEMBER_ID; during CompletingRebalance a member's commit is
// REBALANCE_IN_PROGRESS; too long metadata is OFFSET_METADATA_TOO_LARGE
// for its partition only.
func TestOffsetCommitOutsideGroupManagementOnlyForAnEmptyGroup(t *testing.T) {
	h := newHarness(t, quickConfig())
	simple := commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "admin", Generation: -1,
		Partitions: []group.CommitPartition{{Topic: "t", Offset: 7}, {Topic: "t", Partition: 1, Offset: 8, Metadata: string(make([]byte, 4097))}}}))
	if simple.Partitions[0].Err != nil || !errors.Is(simple.Partitions[1].Err, wire.ErrOffsetMetadataTooLarge) {
		t.Fatalf("simple commit answered %+v", simple)
	}
	if f := fetchOne(h, "admin", "t", 0); f.Offset != 7 {
		t.Fatalf("fetched %+v", f)
	}
	h.stableGroup("g", 1)
	if a := commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "g", Generation: -1, Partitions: []group.CommitPartition{{Topic: "t"}}})); !errors.Is(a.Partitions[0].Err, wire.ErrUnknownMemberID) {
		t.Fatalf("generation -1 commit to a live group: %v", a.Partitions[0].Err)
	}
	m, r := h.joinNew("h", group.JoinGroupRequest{})
	h.settle()
	gen := h.joinAnswer(r).Generation
	if a := commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "h", Generation: gen, MemberID: m, Partitions: []group.CommitPartition{{Topic: "t"}}})); !errors.Is(a.Partitions[0].Err, wire.ErrRebalanceInProgress) {
		t.Fatalf("commit before SyncGroup: %v, want REBALANCE_IN_PROGRESS", a.Partitions[0].Err)
	}
	if a := commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "none", Generation: 3, MemberID: "m", Partitions: []group.CommitPartition{{Topic: "t"}}})); !errors.Is(a.Partitions[0].Err, wire.ErrIllegalGeneration) {
		t.Fatalf("commit to no group with a generation: %v, want ILLEGAL_GENERATION", a.Partitions[0].Err)
	}
}

// Kafka's storeOffsets callback: a failed write answers every partition
// the mapped error and leaves the committed offset as it was.
func TestAFailedOffsetWriteIsNeverAnsweredAsSuccess(t *testing.T) {
	h := newHarness(t, quickConfig())
	commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "g", Generation: -1, Partitions: []group.CommitPartition{{Topic: "t", Offset: 1}}}))
	for _, tc := range []struct{ write, want error }{
		{wire.ErrNotLeaderOrFollower, wire.ErrNotCoordinator},
		{wire.ErrRequestTimedOut, wire.ErrCoordinatorNotAvailable},
		{wire.ErrMessageTooLarge, wire.ErrInvalidCommitOffsetSize},
	} {
		h.failWrites = tc.write
		a := commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "g", Generation: -1, Partitions: []group.CommitPartition{{Topic: "t", Offset: 9}}}))
		if !errors.Is(a.Partitions[0].Err, tc.want) {
			t.Errorf("write failing with %v answered %v, want %v", tc.write, a.Partitions[0].Err, tc.want)
		}
	}
	if f := fetchOne(h, "g", "t", 0); f.Offset != 1 {
		t.Fatalf("a failed commit changed the offset to %d", f.Offset)
	}
}

// Kafka's deleteGroups: only an Empty group is deleted, by tombstones for
// its offsets and its metadata, answered once they are committed; a group
// with members is NON_EMPTY_GROUP, one with no state GROUP_ID_NOT_FOUND.
func TestDeleteGroupsDeletesOnlyEmptyGroups(t *testing.T) {
	h := newHarness(t, quickConfig())
	commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "old", Generation: -1, Partitions: []group.CommitPartition{{Topic: "t", Offset: 5}}}))
	h.stableGroup("live", 1)
	before := len(h.log)
	h.holdCommits = true
	ref := h.ref()
	h.c.DeleteGroups(h.now, group.DeleteGroupsRequest{Ref: ref, Groups: []string{"old", "live", "never"}})
	h.pump()
	if h.answered(ref) {
		t.Fatal("DeleteGroups answered before its tombstones were committed")
	}
	h.c.Committed(uint64(len(h.log)))
	h.pump()
	resp := h.answers[ref].(group.DeleteGroupsResponse)
	if resp.Results[0].Err != nil || !errors.Is(resp.Results[1].Err, wire.ErrNonEmptyGroup) || !errors.Is(resp.Results[2].Err, wire.ErrGroupIDNotFound) {
		t.Fatalf("delete answered %+v", resp.Results)
	}
	tomb := h.log[before:]
	if len(tomb) != 2 || tomb[0].Value != nil || tomb[1].Value != nil {
		t.Fatalf("wrote %d records %+v, want two tombstones (offset, group)", len(tomb), tomb)
	}
	if f := fetchOne(h, "old", "t", 0); f.Offset != -1 {
		t.Fatalf("deleted group's offset still fetched: %+v", f)
	}
	if d := h.describe("old"); d.State != group.Dead {
		t.Fatalf("deleted group described %v, want Dead", d.State)
	}
}

// KIP-496, Kafka's deleteOffsets: offsets of topics the members subscribe
// to are refused GROUP_SUBSCRIBED_TO_TOPIC; the others are deleted.
func TestOffsetDeleteRefusesTopicsTheGroupSubscribesTo(t *testing.T) {
	h := newHarness(t, quickConfig())
	ids, gen := h.stableGroup("g", 1) // subscribed to "orders"
	commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "g", Generation: gen, MemberID: ids[0],
		Partitions: []group.CommitPartition{{Topic: "orders", Offset: 3}, {Topic: "old-topic", Offset: 4}}}))
	ref := h.ref()
	h.c.OffsetDelete(h.now, group.OffsetDeleteRequest{Ref: ref, Group: "g", Partitions: []group.TopicPartition{{Topic: "orders"}, {Topic: "old-topic"}}})
	h.pump()
	resp := h.answers[ref].(group.OffsetDeleteResponse)
	if resp.Err != nil || !errors.Is(resp.Partitions[0].Err, wire.ErrGroupSubscribedToTopic) || resp.Partitions[1].Err != nil {
		t.Fatalf("offset delete answered %+v", resp)
	}
	if fetchOne(h, "g", "orders", 0).Offset != 3 || fetchOne(h, "g", "old-topic", 0).Offset != -1 {
		t.Fatal("offset delete removed the wrong offsets")
	}
	ref = h.ref()
	h.c.OffsetDelete(h.now, group.OffsetDeleteRequest{Ref: ref, Group: "nobody", Partitions: []group.TopicPartition{{Topic: "t"}}})
	h.pump()
	if r := h.answers[ref].(group.OffsetDeleteResponse); !errors.Is(r.Err, wire.ErrGroupIDNotFound) {
		t.Fatalf("offset delete of no group: %v", r.Err)
	}
}
