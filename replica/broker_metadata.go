package replica

import (
	"github.com/kaenlog/kaenlog/wire"
)

// This file is what a broker answers for clients beyond the data path:
// Metadata from its own image, and InitProducerID forwarded to the
// controller. Kafka's clients ask any broker for both (kaenlog's own
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
func (b *Broker) handleMetadata(req *wire.MetadataRequest) *wire.MetadataResponse {
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
			resp.Topics = append(resp.Topics, wire.MetadataTopic{Name: name, ErrorCode: wire.CodeUnknownTopicOrPartition})
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
// who asked, and with which correlation id.
type forwarded struct {
	from Addr
	corr int32
}

// forwardInitProducerID sends a client's InitProducerID on to the
// controller, which alone hands out producer ids (cluster-unique, from
// blocks its metadata log allocates), as Kafka's brokers forward what only
// the controller may decide. The controller's answer goes back to the
// client as it came; a request the controller does not answer within the
// request timeout (or whose connection broke) is answered
// REQUEST_TIMED_OUT, which Kafka's clients retry.
func (b *Broker) forwardInitProducerID(from Addr, m *wire.InitProducerIDRequest, nowMs int64) {
	if b.forwards == nil {
		b.forwards = map[int32]forwarded{}
	}
	fwd := &wire.InitProducerIDRequest{
		CorrelationID:        b.nextCorrelation(),
		TransactionTimeoutMs: m.TransactionTimeoutMs,
		ProducerID:           m.ProducerID,
		ProducerEpoch:        m.ProducerEpoch,
	}
	b.forwards[fwd.CorrelationID] = forwarded{from: from, corr: m.CorrelationID}
	b.send(ControllerAt(), fwd, nowMs)
}

// onForwarded relays the controller's answer to a forwarded request.
func (b *Broker) onForwarded(corr int32, m *wire.InitProducerIDResponse) {
	f, ok := b.forwards[corr]
	if !ok {
		return
	}
	delete(b.forwards, corr)
	resp := *m
	resp.CorrelationID = f.corr
	b.reply(f.from, &resp)
}

// forwardTimedOut answers a forwarded request the controller did not
// answer in time.
func (b *Broker) forwardTimedOut(corr int32) {
	f, ok := b.forwards[corr]
	if !ok {
		return
	}
	delete(b.forwards, corr)
	b.reply(f.from, &wire.InitProducerIDResponse{
		CorrelationID: f.corr, ErrorCode: wire.CodeRequestTimedOut,
		ProducerID: wire.NoProducerID, ProducerEpoch: wire.NoProducerEpoch,
	})
}
