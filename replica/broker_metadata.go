package replica

import (
	"slices"

	"github.com/kaenlog/kaenlog/wire"
)

// This file is what a broker answers for clients beyond the data path:
// Metadata from its own image, and InitProducerID, CreateTopics and
// DeleteTopics forwarded to the controller. Kafka's clients ask any broker for both (kaenlog's own
// client asks the controller).

// handleMetadata answers from the broker's metadata image, as a Kafka
// broker answers from its metadata cache: every registered broker (the
// fenced ones marked so), and the topics asked for (every topic when
// Topics is nil), each partition with its leader, leader and partition
// epochs, replicas, ISR and ELR as the controller committed them. A
// partition without a leader carries LEADER_NOT_AVAILABLE, a topic the
// image does not know UNKNOWN_TOPIC_OR_PARTITION. A topic named more than
// once is answered once ([wire.MetadataRequest.TopicSet]). The image lags
// the controller's by at most a metadata fetch; a client sent to a leader
// that no longer is learns it from NOT_LEADER_OR_FOLLOWER, as from Kafka.
//
// With AutoCreate, a topic the image does not know is created through the
// controller and answered LEADER_NOT_AVAILABLE until the image has it, as
// Kafka's AutoTopicCreationManager does; a creation the controller refused
// is answered with its refusal once (then tried again).
func (b *Broker) handleMetadata(req *wire.MetadataRequest, nowMs int64) *wire.MetadataResponse {
	resp := &wire.MetadataResponse{CorrelationID: req.CorrelationID}
	for _, r := range b.image.Brokers() {
		resp.Brokers = append(resp.Brokers, wire.MetadataBroker{ID: r.ID, Endpoint: r.Endpoint, Fenced: r.Fenced})
	}
	names := req.TopicSet()
	if names == nil {
		names = b.image.TopicNames()
	}
	resp.Topics = make([]wire.MetadataTopic, 0, len(names))
	for _, name := range names {
		t, ok := b.image.Topic(name)
		if !ok {
			code := wire.CodeUnknownTopicOrPartition
			if req.AutoCreate != (wire.AutoCreate{}) {
				code = b.autoCreate(name, req.AutoCreate, nowMs)
			}
			resp.Topics = append(resp.Topics, wire.MetadataTopic{Name: name, ErrorCode: code})
			continue
		}
		mt := wire.MetadataTopic{Name: name, Partitions: make([]wire.MetadataPartition, 0, t.Partitions)}
		for i := int32(0); i < t.Partitions; i++ {
			p, ok := b.image.Partition(name, i)
			if !ok {
				continue
			}
			mp := wire.MetadataPartition{
				Partition: p.Partition, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch,
				Replicas: p.Replicas, ISR: p.ISR, ELR: p.ELR,
			}
			if p.Leader == wire.NoLeader {
				mp.ErrorCode = wire.CodeLeaderNotAvailable
			}
			mt.Partitions = append(mt.Partitions, mp)
		}
		resp.Topics = append(resp.Topics, mt)
	}
	return resp
}

// forwarded is a client's request the broker sent on to the controller:
// who asked, with which correlation id, and what (for the answer a
// timeout gets); or, with auto, the broker's own creation of a topic a
// Metadata request named.
type forwarded struct {
	from Addr
	corr int32
	req  wire.Message
	auto bool
}

// autoCreate starts, or follows, the creation of topic name for a
// Metadata request and returns what that request is answered for it.
func (b *Broker) autoCreate(name string, spec wire.AutoCreate, nowMs int64) wire.ErrorCode {
	if name == OffsetsTopic {
		// Created as the group coordinators create it (Kafka's
		// AutoTopicCreationManager gives the internal topic its own
		// settings), not with the defaults for user topics.
		b.createOffsetsTopic(nowMs)
		return wire.CodeLeaderNotAvailable
	}
	if code, ok := b.autoCreateFailed[name]; ok {
		delete(b.autoCreateFailed, name)
		return code
	}
	if _, ok := b.autoCreating[name]; ok {
		return wire.CodeLeaderNotAvailable
	}
	if len(b.autoCreating) >= maxAutoCreateHeld {
		// Retriable: the client asks again once creations in flight end.
		return wire.CodeLeaderNotAvailable
	}
	if b.autoCreating == nil {
		b.autoCreating, b.autoCreateFailed = map[string]int32{}, map[string]wire.ErrorCode{}
	}
	if b.forwards == nil {
		b.forwards = map[int32]forwarded{}
	}
	req := &wire.CreateTopicsRequest{CorrelationID: b.nextCorrelation(), Topics: []wire.CreatableTopic{{Name: name, Partitions: spec.Partitions, ReplicationFactor: spec.ReplicationFactor}}}
	b.forwards[req.CorrelationID] = forwarded{req: req, auto: true}
	b.autoCreating[name] = req.CorrelationID
	b.send(ControllerAt(), req, nowMs)
	return wire.CodeLeaderNotAvailable
}

// maxAutoCreateHeld bounds the auto-creations a broker holds state for:
// those in flight, and the refusals kept for the next Metadata request
// (the oldest refusal goes first, so that names no client asks about
// again are not held forever; its name is then simply tried again).
const maxAutoCreateHeld = 1024

// autoCreated ends an auto-creation: a refusal other than
// TOPIC_ALREADY_EXISTS (another broker's creation won) is kept for the
// next Metadata request to answer.
func (b *Broker) autoCreated(f forwarded, code wire.ErrorCode) {
	name := f.req.(*wire.CreateTopicsRequest).Topics[0].Name
	delete(b.autoCreating, name)
	if code == wire.CodeNone || code == wire.CodeTopicAlreadyExists {
		return
	}
	for len(b.autoCreateFailed) >= maxAutoCreateHeld && len(b.autoCreateOrder) > 0 {
		oldest := b.autoCreateOrder[0]
		b.autoCreateOrder = b.autoCreateOrder[1:]
		delete(b.autoCreateFailed, oldest)
	}
	if len(b.autoCreateOrder) > 2*maxAutoCreateHeld {
		// Names answered since are no longer held: drop them from the order.
		b.autoCreateOrder = slices.DeleteFunc(slices.Clone(b.autoCreateOrder), func(n string) bool {
			_, ok := b.autoCreateFailed[n]
			return !ok
		})
	}
	b.autoCreateFailed[name] = code
	b.autoCreateOrder = append(b.autoCreateOrder, name)
}

// forward sends a client's request that only the controller may decide
// on — InitProducerID (producer ids are cluster-unique, from blocks the
// metadata log allocates), CreateTopics, DeleteTopics,
// IncrementalAlterConfigs — on to the
// controller, as Kafka's brokers forward them (KIP-590). The controller's
// answer goes back to the client as it came; a request the controller does
// not answer within the request timeout (or whose connection broke) is
// answered REQUEST_TIMED_OUT, which Kafka's clients retry. m is not
// changed: the broker sends a copy under its own correlation id.
func (b *Broker) forward(from Addr, m wire.Message, nowMs int64) {
	fwd, ok := copyForwarded(m)
	if !ok {
		return
	}
	if b.forwards == nil {
		b.forwards = map[int32]forwarded{}
	}
	corr := b.nextCorrelation()
	wire.SetCorrelation(fwd, corr)
	b.forwards[corr] = forwarded{from: from, corr: m.Correlation(), req: fwd}
	b.send(ControllerAt(), fwd, nowMs)
}

// copyForwarded returns a copy of a request or response that is forwarded,
// so that the broker changes no message it did not make; ok is false for
// any other message.
func copyForwarded(m wire.Message) (wire.Message, bool) {
	switch m := m.(type) {
	case *wire.InitProducerIDRequest:
		c := *m
		return &c, true
	case *wire.CreateTopicsRequest:
		c := *m
		return &c, true
	case *wire.DeleteTopicsRequest:
		c := *m
		return &c, true
	case *wire.IncrementalAlterConfigsRequest:
		c := *m
		return &c, true
	case *wire.IncrementalAlterConfigsResponse:
		c := *m
		return &c, true
	case *wire.ElectLeadersRequest:
		c := *m
		return &c, true
	case *wire.ElectLeadersResponse:
		c := *m
		return &c, true
	case *wire.CreatePartitionsRequest:
		c := *m
		return &c, true
	case *wire.CreatePartitionsResponse:
		c := *m
		return &c, true
	case *wire.AlterPartitionReassignmentsRequest:
		c := *m
		return &c, true
	case *wire.AlterPartitionReassignmentsResponse:
		c := *m
		return &c, true
	case *wire.ListPartitionReassignmentsRequest:
		c := *m
		return &c, true
	case *wire.ListPartitionReassignmentsResponse:
		c := *m
		return &c, true
	case *wire.InitProducerIDResponse:
		c := *m
		return &c, true
	case *wire.CreateTopicsResponse:
		c := *m
		return &c, true
	case *wire.DeleteTopicsResponse:
		c := *m
		return &c, true
	}
	return nil, false
}

// onForwarded relays the controller's answer to a forwarded request.
func (b *Broker) onForwarded(m wire.Message) {
	f, ok := b.forwards[m.Correlation()]
	if !ok {
		return
	}
	delete(b.forwards, m.Correlation())
	if f.auto {
		if r, ok := m.(*wire.CreateTopicsResponse); ok {
			code := r.ErrorCode
			if code == wire.CodeNone && len(r.Topics) == 1 {
				code = r.Topics[0].ErrorCode
			} else if code == wire.CodeNone {
				code = wire.CodeUnknownServerError // not the one answer asked for
			}
			b.autoCreated(f, code)
		}
		return
	}
	resp, ok := copyForwarded(m)
	if !ok {
		return
	}
	wire.SetCorrelation(resp, f.corr)
	b.reply(f.from, resp)
}

// forwardTimedOut answers a forwarded request the controller did not
// answer in time: REQUEST_TIMED_OUT, for every topic a CreateTopics or
// DeleteTopics named.
func (b *Broker) forwardTimedOut(corr int32) {
	f, ok := b.forwards[corr]
	if !ok {
		return
	}
	delete(b.forwards, corr)
	if f.auto {
		b.autoCreated(f, wire.CodeRequestTimedOut)
		return
	}
	var resp wire.Message
	switch m := f.req.(type) {
	case *wire.InitProducerIDRequest:
		resp = &wire.InitProducerIDResponse{CorrelationID: f.corr, ErrorCode: wire.CodeRequestTimedOut,
			ProducerID: wire.NoProducerID, ProducerEpoch: wire.NoProducerEpoch}
	case *wire.CreateTopicsRequest:
		c := &wire.CreateTopicsResponse{CorrelationID: f.corr, Topics: make([]wire.CreateTopicResult, len(m.Topics))}
		for i, t := range m.Topics {
			c.Topics[i] = wire.CreateTopicResult{Name: t.Name, ErrorCode: wire.CodeRequestTimedOut,
				ErrorMessage: "the controller did not answer in time", Partitions: -1, ReplicationFactor: -1}
		}
		resp = c
	case *wire.IncrementalAlterConfigsRequest:
		a := &wire.IncrementalAlterConfigsResponse{CorrelationID: f.corr, Resources: make([]wire.AlterConfigsResourceResponse, len(m.Resources))}
		for i, r := range m.Resources {
			a.Resources[i] = wire.AlterConfigsResourceResponse{ErrorCode: wire.CodeRequestTimedOut,
				ErrorMessage: "the controller did not answer in time", ResourceType: r.ResourceType, ResourceName: r.ResourceName}
		}
		resp = a
	case *wire.DeleteTopicsRequest:
		d := &wire.DeleteTopicsResponse{CorrelationID: f.corr, Topics: make([]wire.DeletedTopic, len(m.Names))}
		for i, name := range m.Names {
			d.Topics[i] = wire.DeletedTopic{Name: name, ErrorCode: wire.CodeRequestTimedOut}
		}
		resp = d
	case *wire.AlterPartitionReassignmentsRequest:
		resp = &wire.AlterPartitionReassignmentsResponse{CorrelationID: f.corr, ErrorCode: wire.CodeRequestTimedOut,
			ErrorMessage: "the controller did not answer in time"}
	case *wire.ListPartitionReassignmentsRequest:
		resp = &wire.ListPartitionReassignmentsResponse{CorrelationID: f.corr, ErrorCode: wire.CodeRequestTimedOut}
	case *wire.CreatePartitionsRequest:
		resp = &wire.CreatePartitionsResponse{CorrelationID: f.corr, ErrorCode: wire.CodeRequestTimedOut,
			ErrorMessage: "the controller did not answer in time"}
	case *wire.ElectLeadersRequest:
		resp = &wire.ElectLeadersResponse{CorrelationID: f.corr, ErrorCode: wire.CodeRequestTimedOut, Leader: wire.NoLeader, LeaderEpoch: wire.NoEpoch}
	default:
		return
	}
	b.reply(f.from, resp)
}
