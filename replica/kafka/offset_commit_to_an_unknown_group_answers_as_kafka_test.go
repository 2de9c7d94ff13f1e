package kafka_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// TestOffsetCommitToAnUnknownGroupIsKeptOnlyWithoutAGeneration: an
// OffsetCommit to a group the coordinator has no state for is accepted
// with generation -1 (a "simple" group, created by the commit: the admin
// client's or a consumer's that does not use group management) and
// answered ILLEGAL_GENERATION with any generation >= 0, storing nothing,
// at every version the listener advertises (v0 carries no generation and
// counts as -1). Kafka's classic GroupCoordinator.handleCommitOffsets:
// `case None => if (generationId < 0) { ... addGroup(new
// GroupMetadata(groupId, Empty, time)); doCommitOffsets(...) } else {
// // or this is a request coming from an older generation. either way,
// reject the commit ... Errors.ILLEGAL_GENERATION }`; its successor,
// OffsetMetadataManager.validateOffsetCommit, answers the same below v9
// ("For older version, we return ILLEGAL_GENERATION to preserve the
// backward compatibility") and GROUP_ID_NOT_FOUND from v9, which the
// listener does not advertise.
func TestOffsetCommitToAnUnknownGroupIsKeptOnlyWithoutAGeneration(t *testing.T) {
	const topic = "tracked"
	c := startCluster(t, 1)
	c.createTopic(topic, 1, 1, 1)
	coord := coordinatorOf(t, c, kgoClient(t, c), "any")
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	for _, v := range []int16{0, 1, 5, 8} {
		vs := kversion.Stable()
		vs.SetMaxKeyVersion(8, v) // kgo sends the highest version both sides have
		cl := kgoClient(t, c, kgo.MaxVersions(vs))
		// commit answers the partition's error code, asking again while
		// the coordinator is still taking up its partition.
		commit := func(groupID string, generation int32, member string, offset int64) int16 {
			t.Helper()
			req := kmsg.NewPtrOffsetCommitRequest()
			req.Group, req.Generation, req.MemberID = groupID, generation, member
			rt := kmsg.NewOffsetCommitRequestTopic()
			rt.Topic = topic
			rp := kmsg.NewOffsetCommitRequestTopicPartition()
			rp.Offset = offset
			rt.Partitions = []kmsg.OffsetCommitRequestTopicPartition{rp}
			req.Topics = []kmsg.OffsetCommitRequestTopic{rt}
			var code int16
			c.await(fmt.Sprintf("an OffsetCommit v%d answer past the coordinator's load", v), func() bool {
				kresp, err := cl.Broker(int(coord)).Request(ctx, req)
				if err != nil {
					t.Fatalf("OffsetCommit v%d: %v", v, err)
				}
				resp := kresp.(*kmsg.OffsetCommitResponse)
				if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
					t.Fatalf("OffsetCommit v%d answered %+v", v, resp)
				}
				code = resp.Topics[0].Partitions[0].ErrorCode
				return code != 14 && code != 16 // COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR
			})
			return code
		}
		fetch := func(groupID string) int64 {
			t.Helper()
			req := kmsg.NewPtrOffsetFetchRequest()
			rt := kmsg.NewOffsetFetchRequestTopic()
			rt.Topic, rt.Partitions = topic, []int32{0}
			req.Group, req.Topics = groupID, []kmsg.OffsetFetchRequestTopic{rt}
			resp, err := req.RequestWith(ctx, cl)
			if err != nil {
				t.Fatalf("OffsetFetch: %v", err)
			}
			if resp.ErrorCode != 0 || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
				t.Fatalf("OffsetFetch of %s answered %+v", groupID, resp)
			}
			return resp.Topics[0].Partitions[0].Offset
		}

		simple := fmt.Sprintf("simple-v%d", v)
		if code := commit(simple, -1, "", 42); code != 0 {
			t.Errorf("v%d: a commit with generation -1 to an unknown group answered %d, want 0", v, code)
		}
		if got := fetch(simple); got != 42 {
			t.Errorf("v%d: the simple group's commit of 42 is fetched as %d", v, got)
		}
		if v == 0 {
			continue // no generation to send
		}
		for _, gen := range []int32{0, 5} {
			ghost := fmt.Sprintf("ghost-v%d-gen%d", v, gen)
			if code := commit(ghost, gen, "m", 7); code != 22 {
				t.Errorf("v%d: a commit with generation %d to an unknown group answered %d, want ILLEGAL_GENERATION (22)", v, gen, code)
			}
			if got := fetch(ghost); got != -1 {
				t.Errorf("v%d: a refused commit with generation %d is fetched as %d, want -1 (nothing stored)", v, gen, got)
			}
		}
	}
}
