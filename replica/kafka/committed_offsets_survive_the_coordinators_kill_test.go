package kafka_test

import (
	"context"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// coordinatorOf asks a broker which broker coordinates groupID, retrying
// while __consumer_offsets is being created or has no leader.
func coordinatorOf(t *testing.T, c *cluster, cl *kgo.Client, groupID string) int32 {
	t.Helper()
	var node int32 = -1
	c.await("a coordinator for group "+groupID, func() bool {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorKey, req.CoordinatorKeys = groupID, []string{groupID}
		ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
		defer cancel()
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return false
		}
		code, id := resp.ErrorCode, resp.NodeID
		if len(resp.Coordinators) == 1 {
			code, id = resp.Coordinators[0].ErrorCode, resp.Coordinators[0].NodeID
		}
		node = id
		return code == 0
	})
	return node
}

// TestCommittedOffsetsSurviveTheCoordinatorsKill: a kgo group member
// consumes and commits (each commit acknowledged by the coordinator);
// mid-run, the coordinator's broker — the leader of the group's
// __consumer_offsets partition — is killed hard, its power cut, and the
// member stops committing. A new member of the same group, once the
// leadership has moved and the new coordinator has loaded the partition,
// resumes every partition at or after its last acknowledged commit, never
// before it (a coordinator that had lost the commits would start it at
// the beginning, kgo's reset offset here).
func TestCommittedOffsetsSurviveTheCoordinatorsKill(t *testing.T) {
	const topic, groupID = "payments", "ledger"
	c := startCluster(t, 3)
	c.createTopic(topic, 3, 3, 2)
	first := produceN(t, c, topic, "before", 300)

	cl := kgoClient(t, c, kgo.ConsumerGroup(groupID), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	acked := map[int32]int64{} // partition -> the last acknowledged commit
	read := 0
	for read < len(first)/2 {
		fs := cl.PollRecords(ctx, 25) // a commit every 25 records at most
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records before the wait ended", read, len(first))
		}
		var recs []*kgo.Record
		fs.EachRecord(func(r *kgo.Record) { recs = append(recs, r) })
		if len(recs) == 0 {
			continue
		}
		read += len(recs)
		if err := cl.CommitRecords(ctx, recs...); err != nil {
			t.Fatalf("a commit before the kill failed: %v", err)
		}
		for _, r := range recs {
			acked[r.Partition] = max(acked[r.Partition], r.Offset+1)
		}
	}
	coord := coordinatorOf(t, c, cl, groupID)
	t.Logf("killing broker %d, the coordinator of %s, after %d records (acknowledged commits %v)", coord, groupID, read, acked)
	c.kill(coord, vfs.LoseUnsynced)
	cl.PollRecords(ctx, 25) // the member runs on, committing nothing more
	cl.Close()

	later := produceN(t, c, topic, "after", 30)
	next := kgoClient(t, c, kgo.ConsumerGroup(groupID), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	lowest := map[int32]int64{}
	seen := 0
	for seen < len(later) {
		fs := next.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("the resumed member read %d of the %d later records before the wait ended", seen, len(later))
		}
		fs.EachRecord(func(r *kgo.Record) {
			if lo, ok := lowest[r.Partition]; !ok || r.Offset < lo {
				lowest[r.Partition] = r.Offset
			}
			if later[key{r.Partition, r.Offset}] == string(r.Value) {
				seen++
			}
		})
	}
	for p, lo := range lowest {
		if lo < acked[p] {
			t.Fatalf("partition %d resumed at %d, before its acknowledged commit %d", p, lo, acked[p])
		}
	}
	t.Logf("acknowledged commits %v, resumed at %v", acked, lowest)
}

// TestOffsetFetchOfAGroupWithNoStateAnswersMinusOneWithNoError: OffsetFetch
// of a group the coordinator has never seen answers -1 for each partition
// asked, with no error, and no partitions when all are asked — at v1
// (named partitions, per-partition errors), v7 and v8 (batched groups).
func TestOffsetFetchOfAGroupWithNoStateAnswersMinusOneWithNoError(t *testing.T) {
	c := startCluster(t, 1)
	c.createTopic("t", 2, 1, 1)
	coord := coordinatorOf(t, c, kgoClient(t, c), "nobody")
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	for _, v := range []int16{1, 7, 8} {
		vs := kversion.Stable()
		vs.SetMaxKeyVersion(9, v) // kgo sends the highest version both sides have
		cl := kgoClient(t, c, kgo.MaxVersions(vs))
		req := kmsg.NewPtrOffsetFetchRequest()
		req.Version = v
		if v < 8 {
			rt := kmsg.NewOffsetFetchRequestTopic()
			rt.Topic, rt.Partitions = "t", []int32{0, 1}
			req.Group, req.Topics = "nobody", []kmsg.OffsetFetchRequestTopic{rt}
		} else {
			rg := kmsg.NewOffsetFetchRequestGroup()
			rt := kmsg.NewOffsetFetchRequestGroupTopic()
			rt.Topic, rt.Partitions = "t", []int32{0, 1}
			rg.Group, rg.Topics = "nobody", []kmsg.OffsetFetchRequestGroupTopic{rt}
			all := kmsg.NewOffsetFetchRequestGroup()
			all.Group = "nobody-at-all"
			req.Groups = []kmsg.OffsetFetchRequestGroup{rg, all}
		}
		var resp *kmsg.OffsetFetchResponse
		// The coordinator may still be taking up its partition:
		// COORDINATOR_LOAD_IN_PROGRESS (14) and NOT_COORDINATOR (16) are
		// asked again.
		c.await("an OffsetFetch answer past the coordinator's load", func() bool {
			kresp, err := cl.Broker(int(coord)).Request(ctx, req)
			if err != nil {
				t.Fatalf("v%d: %v", v, err)
			}
			resp = kresp.(*kmsg.OffsetFetchResponse)
			code := resp.ErrorCode
			if len(resp.Groups) > 0 {
				code = resp.Groups[0].ErrorCode
			}
			for _, rt := range resp.Topics {
				for _, rp := range rt.Partitions {
					code = max(code, rp.ErrorCode)
				}
			}
			return code != 14 && code != 16
		})
		type part struct {
			p      int32
			offset int64
			code   int16
		}
		var got []part
		if v < 8 {
			if resp.ErrorCode != 0 {
				t.Fatalf("v%d: error code %d", v, resp.ErrorCode)
			}
			for _, rt := range resp.Topics {
				for _, rp := range rt.Partitions {
					got = append(got, part{rp.Partition, rp.Offset, rp.ErrorCode})
				}
			}
		} else {
			if len(resp.Groups) != 2 || resp.Groups[0].ErrorCode != 0 || resp.Groups[1].ErrorCode != 0 || len(resp.Groups[1].Topics) != 0 {
				t.Fatalf("v8: groups %+v", resp.Groups)
			}
			for _, rt := range resp.Groups[0].Topics {
				for _, rp := range rt.Partitions {
					got = append(got, part{rp.Partition, rp.Offset, rp.ErrorCode})
				}
			}
		}
		if want := []part{{0, -1, 0}, {1, -1, 0}}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("v%d: got %+v, want %+v", v, got, want)
		}
	}
}
