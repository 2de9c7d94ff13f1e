package server

import (
	"crypto/rand"
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/wire"
)

// requestOfEveryKind holds one request of every API key wire knows, each
// one a node would answer at once if it serves the API.
var requestOfEveryKind = map[wire.APIKey]wire.Message{
	wire.APIProduce: &wire.ProduceRequest{Acks: wire.AcksLeader, Partitions: []wire.ProducePartition{{Topic: "t", Partition: 0}}},
	wire.APIFetch: &wire.FetchRequest{ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1, Partitions: []wire.FetchPartition{
		{Topic: controller.MetadataTopic, CurrentLeaderEpoch: wire.NoEpoch, LastFetchedEpoch: wire.NoEpoch}}},
	wire.APIListOffsets:                 &wire.ListOffsetsRequest{ReplicaID: wire.ConsumerReplicaID, Partitions: []wire.ListOffsetsPartition{{Topic: "t", CurrentLeaderEpoch: wire.NoEpoch, Timestamp: wire.LatestTimestamp}}},
	wire.APIOffsetsForLeaderEpoch:       &wire.OffsetsForLeaderEpochRequest{ReplicaID: 1, Partitions: []wire.OffsetsForLeaderEpochPartition{{Topic: "t", CurrentLeaderEpoch: wire.NoEpoch}}},
	wire.APIMetadata:                    &wire.MetadataRequest{},
	wire.APICreateTopics:                &wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "t", Partitions: 1, ReplicationFactor: 1}}},
	wire.APIDeleteTopics:                &wire.DeleteTopicsRequest{Names: []string{"t"}},
	wire.APIElectLeaders:                &wire.ElectLeadersRequest{Topic: "t"},
	wire.APICreatePartitions:            &wire.CreatePartitionsRequest{Topic: "t", Count: 2},
	wire.APIAlterPartitionReassignments: &wire.AlterPartitionReassignmentsRequest{Topic: "t", Replicas: []int32{1}},
	wire.APIListPartitionReassignments:  &wire.ListPartitionReassignmentsRequest{},
	wire.APIAlterPartition:              &wire.AlterPartitionRequest{BrokerID: 1, BrokerEpoch: 1, Topic: "t"},
	wire.APIBrokerRegistration:          &wire.BrokerRegistrationRequest{BrokerID: 1, IncarnationID: [16]byte{1}, PreviousBrokerEpoch: -1, Endpoint: "x:1"},
	wire.APIBrokerHeartbeat:             &wire.BrokerHeartbeatRequest{BrokerID: 1, BrokerEpoch: 1},
	wire.APIInitProducerID:              &wire.InitProducerIDRequest{ProducerID: -1, ProducerEpoch: -1},
	wire.APIIncrementalAlterConfigs:     &wire.IncrementalAlterConfigsRequest{Resources: []wire.AlterConfigsResource{{ResourceType: wire.ResourceTopic, ResourceName: "t"}}},
	// The group APIs: the kaenlog codec hands the node their
	// replica.GroupRequest (groups.go).
	wire.APIFindCoordinator: &wire.FindCoordinatorRequest{Group: "g"},
	wire.APIJoinGroup:       &wire.JoinGroupRequest{Group: "g", SessionTimeoutMs: 10000, RebalanceTimeoutMs: 10000, ProtocolType: "consumer"},
	wire.APISyncGroup:       &wire.SyncGroupRequest{Group: "g", MemberID: "m"},
	wire.APIHeartbeat:       &wire.HeartbeatRequest{Group: "g", MemberID: "m"},
	wire.APILeaveGroup:      &wire.LeaveGroupRequest{Group: "g", Members: []wire.LeavingMember{{MemberID: "m"}}},
	wire.APIOffsetCommit:    &wire.OffsetCommitRequest{Group: "g", Generation: -1, Partitions: []wire.OffsetCommitPartition{{Topic: "t", LeaderEpoch: -1}}},
	wire.APIOffsetFetch:     &wire.OffsetFetchRequest{Group: "g"},
	wire.APIListGroups:      &wire.ListGroupsRequest{},
	wire.APIDescribeGroups:  &wire.DescribeGroupsRequest{Groups: []string{"g"}},
	wire.APIDeleteGroups:    &wire.DeleteGroupsRequest{Groups: []string{"g"}},
	wire.APIOffsetDelete:    &wire.OffsetDeleteRequest{Group: "g", Partitions: []wire.GroupPartition{{Topic: "t"}}},
}

// TestServedListsMatchTheNodes: the APIs a host serves for a broker and a
// controller (any other request closes the connection, since the node
// would never answer it) are exactly those the nodes answer: each request
// of every kind wire knows is given to a Broker and a ControllerNode, and
// answered if and only if the host's list has its key. A new message in
// wire or a new case in a node fails here until the list follows.
func TestServedListsMatchTheNodes(t *testing.T) {
	dir := t.TempDir()
	store, err := controller.OpenLogStore(filepath.Join(dir, "controller"), log.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctl, err := controller.Open(store, controller.Config{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := replica.BrokerConfig{ID: 1, Dir: filepath.Join(dir, "broker")}
	rand.Read(cfg.IncarnationID[:])
	b, err := replica.OpenBroker(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.Outbox() // its registration

	known := 0
	for k := 0; k < 1<<15; k++ {
		key := wire.APIKey(k)
		header := binary.BigEndian.AppendUint16(nil, uint16(key))
		header = append(header, 0, 0, 0, 0, 0, 7)
		if _, _, err := wire.PeekHeader(header); err != nil {
			continue // not a key wire knows
		}
		known++
		req, ok := requestOfEveryKind[key]
		if !ok {
			t.Errorf("%v: wire knows it; add a request of it to requestOfEveryKind", key)
			continue
		}
		for _, n := range []struct {
			name   string
			node   replica.Node
			serves func(wire.APIKey) bool
		}{
			{"broker", b, brokerServes},
			{"controller", replica.NewControllerNode(ctl), controllerServes},
		} {
			msg := req
			if g, ok := groupRequest(req); ok {
				msg = g
			}
			n.node.Receive(replica.Envelope{From: replica.ClientAt(1), Msg: msg}, 2)
			answered := false
			for _, env := range n.node.Outbox() {
				answered = answered || (env.Response && env.Msg.APIKey() == key)
				// A broker forwards InitProducerID, CreateTopics,
				// DeleteTopics, ElectLeaders, CreatePartitions, the
				// reassignment requests and IncrementalAlterConfigs: the
				// controller answers.
				forwarded := key == wire.APIInitProducerID || key == wire.APICreateTopics || key == wire.APIDeleteTopics || key == wire.APIElectLeaders || key == wire.APICreatePartitions ||
					key == wire.APIAlterPartitionReassignments || key == wire.APIListPartitionReassignments || key == wire.APIIncrementalAlterConfigs
				answered = answered || (n.name == "broker" && forwarded && env.To == replica.ControllerAt() && env.Msg.APIKey() == key)
			}
			if answered != n.serves(key) {
				t.Errorf("%s: answers %v: %v, the host's list says %v", n.name, key, answered, n.serves(key))
			}
		}
	}
	if known != len(requestOfEveryKind) {
		t.Errorf("wire knows %d API keys, the table has %d", known, len(requestOfEveryKind))
	}
}
