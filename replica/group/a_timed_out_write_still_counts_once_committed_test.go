package group_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

// appendThenTimeOut drains the coordinator's writes, appends them to h's
// log and then fails them as an acks=all write whose wait for the ISR
// timed out: the records stay on the leader's log (nothing truncates a
// leader's log), answered REQUEST_TIMED_OUT. It returns the answers.
func appendThenTimeOut(h *harness) []group.Response {
	h.t.Helper()
	r := h.c.Ready()
	for _, w := range r.Writes {
		h.log = append(h.log, w.Records...)
		h.c.Appended(w.Seq, uint64(len(h.log)-1))
		h.c.AppendFailed(w.Seq, wire.ErrRequestTimedOut)
	}
	return append(r.Responses, h.c.Ready().Responses...)
}

// reload replays h's log into a new coordinator, as the next leader of
// the partition does.
func reload(t *testing.T, h *harness) *group.Coordinator {
	t.Helper()
	c := group.New(quickConfig())
	c.BeginLoad()
	if err := c.Load(h.log...); err != nil {
		t.Fatal(err)
	}
	c.Loaded(h.now)
	return c
}

// A commit whose acks=all write timed out is answered
// COORDINATOR_NOT_AVAILABLE, yet its record is on the leader's log and
// commits once the ISR catches up (or shrinks); the next leader replays
// it. The coordinator must hold what a reload would: once the high
// watermark passes the record, OffsetFetch sees it, and a later
// DeleteGroups or OffsetDelete tombstones it — else the deleted offset
// comes back at the next failover (Kafka's coordinator runtime keeps a
// timed-out write's state; only a write that never reached the log is
// reverted).
func TestATimedOutCommitStillCountsOnceCommitted(t *testing.T) {
	t.Run("DeleteGroups", func(t *testing.T) {
		h := newHarness(t, quickConfig())
		h.holdCommits = true
		h.c.OffsetCommit(h.now, group.OffsetCommitRequest{Ref: h.ref(), Group: "g", Generation: -1,
			Partitions: []group.CommitPartition{{Topic: "t", Offset: 7}}})
		rs := appendThenTimeOut(h)
		if len(rs) != 1 || !errors.Is(rs[0].(group.OffsetCommitResponse).Partitions[0].Err, wire.ErrCoordinatorNotAvailable) {
			t.Fatalf("timed-out commit answered %+v, want COORDINATOR_NOT_AVAILABLE", rs)
		}
		h.c.Committed(uint64(len(h.log))) // the ISR caught up
		h.pump()
		if got, want := fetchOne(h, "g", "t", 0).Offset, reloadFetch(t, h, "g", "t").Offset; got != want {
			t.Fatalf("OffsetFetch answers %d; a reload of the same log answers %d", got, want)
		}
		ref := h.ref()
		h.c.DeleteGroups(h.now, group.DeleteGroupsRequest{Ref: ref, Groups: []string{"g"}})
		h.pump()
		h.c.Committed(uint64(len(h.log)))
		h.pump()
		if r := h.answers[ref].(group.DeleteGroupsResponse); r.Results[0].Err != nil {
			t.Fatalf("DeleteGroups answered %v", r.Results[0].Err)
		}
		if f := reloadFetch(t, h, "g", "t"); f.Offset != -1 {
			t.Fatalf("after a failover the deleted group's offset is back: %+v", f)
		}
	})
	t.Run("OffsetDelete", func(t *testing.T) {
		h := newHarness(t, quickConfig())
		commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "g", Generation: -1,
			Partitions: []group.CommitPartition{{Topic: "t", Offset: 1}}}))
		h.holdCommits = true
		h.c.OffsetCommit(h.now, group.OffsetCommitRequest{Ref: h.ref(), Group: "g", Generation: -1,
			Partitions: []group.CommitPartition{{Topic: "t", Partition: 1, Offset: 7}}})
		appendThenTimeOut(h)
		h.c.Committed(uint64(len(h.log)))
		h.pump()
		ref := h.ref()
		h.c.OffsetDelete(h.now, group.OffsetDeleteRequest{Ref: ref, Group: "g",
			Partitions: []group.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}}})
		h.pump()
		h.c.Committed(uint64(len(h.log)))
		h.pump()
		if r := h.answers[ref].(group.OffsetDeleteResponse); r.Err != nil || r.Partitions[1].Err != nil {
			t.Fatalf("OffsetDelete answered %+v", r)
		}
		c := reload(t, h)
		f := c.OffsetFetch(group.OffsetFetchRequest{Group: "g", Partitions: []group.TopicPartition{{Topic: "t", Partition: 1}}}).Partitions[0]
		if f.Offset != -1 {
			t.Fatalf("after a failover the deleted offset is back: %+v", f)
		}
	})
}

func reloadFetch(t *testing.T, h *harness, g, topic string) group.FetchedOffset {
	t.Helper()
	return reload(t, h).OffsetFetch(group.OffsetFetchRequest{Group: g, Partitions: []group.TopicPartition{{Topic: topic}}}).Partitions[0]
}

// DeleteGroups and OffsetDelete delete what the group holds when they are
// written, commits still waiting for the high watermark included (Kafka's
// deleteAllOffsets reads its timeline, which holds them): the tombstones
// follow those commits on the log, so a successful delete leaves no offset
// behind, in memory or at the next load.
func TestADeleteAlsoTombstonesACommitStillInFlight(t *testing.T) {
	for _, tc := range []struct {
		name string
		del  func(h *harness) (ref uint64)
	}{
		{"DeleteGroups", func(h *harness) uint64 {
			ref := h.ref()
			h.c.DeleteGroups(h.now, group.DeleteGroupsRequest{Ref: ref, Groups: []string{"g"}})
			return ref
		}},
		{"OffsetDelete", func(h *harness) uint64 {
			ref := h.ref()
			h.c.OffsetDelete(h.now, group.OffsetDeleteRequest{Ref: ref, Group: "g", Partitions: []group.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}}})
			return ref
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, quickConfig())
			commitAnswer(t, h, h.commit(group.OffsetCommitRequest{Group: "g", Generation: -1,
				Partitions: []group.CommitPartition{{Topic: "t", Offset: 1}}}))
			h.holdCommits = true
			commit := h.commit(group.OffsetCommitRequest{Group: "g", Generation: -1,
				Partitions: []group.CommitPartition{{Topic: "t", Partition: 1, Offset: 7}}})
			ref := tc.del(h)
			h.pump()
			h.c.Committed(uint64(len(h.log)))
			h.pump()
			if a := commitAnswer(t, h, commit); a.Partitions[0].Err != nil {
				t.Fatalf("commit answered %v", a.Partitions[0].Err)
			}
			var err error
			switch r := h.answers[ref].(type) {
			case group.DeleteGroupsResponse:
				err = r.Results[0].Err
			case group.OffsetDeleteResponse:
				err = errors.Join(r.Err, r.Partitions[0].Err, r.Partitions[1].Err)
			default:
				t.Fatalf("delete unanswered: %T", r)
			}
			if err != nil {
				t.Fatalf("delete answered %v", err)
			}
			if f := fetchOne(h, "g", "t", 1); f.Offset != -1 {
				t.Fatalf("the delete succeeded, yet the coordinator still answers %+v", f)
			}
			c := reload(t, h)
			if f := c.OffsetFetch(group.OffsetFetchRequest{Group: "g", Partitions: []group.TopicPartition{{Topic: "t", Partition: 1}}}).Partitions[0]; f.Offset != -1 {
				t.Fatalf("the delete succeeded, yet after a failover the offset is %+v", f)
			}
		})
	}
}
