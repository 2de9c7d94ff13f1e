package kafka_test

import (
	"bytes"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestGroupRequestsKeepNoByteOfTheFrameTheyWereDecodedFrom: the host
// reuses a request's frame buffer once the request is answered
// (server.Request), but a group coordinator keeps a JoinGroup's protocol
// metadata and the leader's SyncGroup assignments long after: for the
// leader's JoinGroup response of the next rebalance, for the members
// whose SyncGroup comes after the leader's, and for DescribeGroups. The
// decoded request must own those bytes. (They aliased the frame: under
// churn, kgo members were handed assignments overwritten by a later
// request on the leader's connection, and -race saw DescribeGroups read
// a buffer that a connection's read was filling.)
func TestGroupRequestsKeepNoByteOfTheFrameTheyWereDecodedFrom(t *testing.T) {
	codec := memCodec(t)
	meta, assignment := []byte("the member's subscription"), []byte("the leader's assignment")

	join := kmsg.NewPtrJoinGroupRequest()
	join.Group, join.MemberID, join.ProtocolType, join.SessionTimeoutMillis, join.RebalanceTimeoutMillis = "g", "m", "consumer", 10000, 10000
	jp := kmsg.NewJoinGroupRequestProtocol()
	jp.Name, jp.Metadata = "range", meta
	join.Protocols = []kmsg.JoinGroupRequestProtocol{jp}

	sync := kmsg.NewPtrSyncGroupRequest()
	sync.Group, sync.MemberID, sync.Generation = "g", "m", 1
	sa := kmsg.NewSyncGroupRequestGroupAssignment()
	sa.MemberID, sa.MemberAssignment = "m", assignment
	sync.GroupAssignment = []kmsg.SyncGroupRequestGroupAssignment{sa}

	for _, v := range []int16{0, 5, 9} {
		for _, tc := range []struct {
			req  kmsg.Request
			kept func(body any) []byte
			want []byte
		}{
			{join, func(body any) []byte { return body.(group.JoinGroupRequest).Protocols[0].Metadata }, meta},
			{sync, func(body any) []byte { return body.(group.SyncGroupRequest).Assignments[0].Assignment }, assignment},
		} {
			if v > tc.req.MaxVersion() {
				continue
			}
			payload := kafkaFrame(tc.req, v)[4:]
			m, err := codec.Decode(payload, &server.Request{})
			if err != nil {
				t.Fatalf("%T v%d: %v", tc.req, v, err)
			}
			gr, ok := m.(*replica.GroupRequest)
			if !ok {
				t.Fatalf("%T v%d decoded into %T", tc.req, v, m)
			}
			for i := range payload {
				payload[i] = 0xAA // the next request on the connection
			}
			if got := tc.kept(gr.Body); !bytes.Equal(got, tc.want) {
				t.Errorf("%T v%d: once its frame was reused the request holds %q, want %q", tc.req, v, got, tc.want)
			}
		}
	}
}
