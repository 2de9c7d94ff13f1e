package replica

import (
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/metrics"
	"github.com/kaenlog/kaenlog/wire"
)

// ControllerNode puts a controller.Controller on the network: it answers
// the controller's requests (registration, heartbeats, AlterPartition,
// CreateTopics, DeleteTopics, ElectLeaders, Metadata, and clients'
// InitProducerID),
// expires sessions on its Tick, and
// serves the metadata log to brokers as a fetch of controller.MetadataTopic
// partition 0. A broker's fetch of the metadata log is parked until there
// is something past its offset or its MaxWaitMs ends (Kafka's DelayedFetch,
// the course's parked fetch), so brokers long-poll the controller instead of
// asking in a loop, and learn of every change as soon as it commits.
type ControllerNode struct {
	c      *controller.Controller
	parked []parkedMetadataFetch
	outbox []Envelope
}

// parkedMetadataFetch is a broker's fetch of the metadata log waiting for
// news.
type parkedMetadataFetch struct {
	from       Addr
	req        *wire.FetchRequest
	deadlineMs int64
}

// NewControllerNode puts c on the network.
func NewControllerNode(c *controller.Controller) *ControllerNode { return &ControllerNode{c: c} }

// Controller returns the controller behind the node.
func (n *ControllerNode) Controller() *controller.Controller { return n.c }

// Outbox returns the envelopes to send and forgets them.
func (n *ControllerNode) Outbox() []Envelope {
	out := n.outbox
	n.outbox = nil
	return out
}

func (n *ControllerNode) reply(to Addr, m wire.Message) {
	n.outbox = append(n.outbox, Envelope{From: ControllerAt(), To: to, Response: true, Msg: m})
}

// Receive answers one request at nowMs. Anything but a request the
// controller serves is dropped.
func (n *ControllerNode) Receive(env Envelope, nowMs int64) {
	if env.Response {
		return
	}
	switch m := env.Msg.(type) {
	case *wire.BrokerRegistrationRequest:
		resp := n.c.RegisterBroker(*m, nowMs)
		n.reply(env.From, &resp)
	case *wire.BrokerHeartbeatRequest:
		resp := n.c.Heartbeat(*m, nowMs)
		n.reply(env.From, &resp)
	case *wire.AlterPartitionRequest:
		resp := n.c.AlterPartition(*m, nowMs)
		n.reply(env.From, &resp)
	case *wire.CreateTopicsRequest:
		resp := n.c.CreateTopics(*m, nowMs)
		n.reply(env.From, &resp)
	case *wire.DeleteTopicsRequest:
		resp := n.c.DeleteTopics(*m, nowMs)
		n.reply(env.From, &resp)
	case *wire.IncrementalAlterConfigsRequest:
		resp := n.c.IncrementalAlterConfigs(*m, nowMs)
		n.reply(env.From, &resp)
	case *wire.ElectLeadersRequest:
		resp := n.c.ElectLeaders(*m, nowMs)
		n.reply(env.From, &resp)
	case *wire.CreatePartitionsRequest:
		resp := n.c.CreatePartitions(*m, nowMs)
		n.reply(env.From, &resp)
	case *wire.AlterPartitionReassignmentsRequest:
		resp := n.c.AlterPartitionReassignments(*m, nowMs)
		n.reply(env.From, &resp)
	case *wire.ListPartitionReassignmentsRequest:
		resp := n.c.ListPartitionReassignments(*m)
		n.reply(env.From, &resp)
	case *wire.MetadataRequest:
		resp := n.c.Metadata(*m)
		n.reply(env.From, &resp)
	case *wire.InitProducerIDRequest:
		resp := n.c.InitProducerID(*m, nowMs)
		n.reply(env.From, &resp)
	case *wire.FetchRequest:
		n.parked = append(n.parked, parkedMetadataFetch{from: env.From, req: m, deadlineMs: nowMs + int64(max(m.MaxWaitMs, 0))})
	}
	n.answerParked(nowMs)
}

// Tick expires sessions and answers parked fetches whose wait is over.
func (n *ControllerNode) Tick(nowMs int64) {
	n.c.Tick(nowMs)
	n.answerParked(nowMs)
}

// Disconnected tells the node that the connection from peer broke (a
// transport calls it): peer's parked fetches are dropped, since their
// answers have nowhere to go.
func (n *ControllerNode) Disconnected(peer Addr, nowMs int64) {
	kept := n.parked[:0]
	for _, p := range n.parked {
		if p.from != peer {
			kept = append(kept, p)
		}
	}
	clear(n.parked[len(kept):])
	n.parked = kept
}

// NextTickMs is the earlier of the controller's next session expiry and the
// end of a parked fetch's wait.
func (n *ControllerNode) NextTickMs() int64 {
	next := n.c.NextTickMs()
	for _, p := range n.parked {
		next = min(next, p.deadlineMs)
	}
	if next == controller.Never {
		return clock.Never
	}
	return next
}

// answerParked answers every parked metadata fetch that has records past
// its offset, has waited long enough, or cannot be served.
func (n *ControllerNode) answerParked(nowMs int64) {
	kept := n.parked[:0]
	end := n.c.MetadataEndOffset()
	for _, p := range n.parked {
		resp, ready := n.metadataFetch(p.req, end, nowMs >= p.deadlineMs)
		if !ready {
			kept = append(kept, p)
			continue
		}
		n.reply(p.from, resp)
	}
	clear(n.parked[len(kept):])
	n.parked = kept
}

// metadataFetch answers a fetch of the metadata log, if it is ready: it has
// something to return, or must return now (its wait is over, or it is not
// a valid fetch of the metadata log). Like a broker's fetch, the records of
// the whole response are bounded by the request's MaxBytes, clamped to
// DefaultMaxFetchResponseBytes: the first batch whole (KIP-74), then
// nothing past the budget, however many times the request names the
// partition.
func (n *ControllerNode) metadataFetch(req *wire.FetchRequest, end uint64, now bool) (*wire.FetchResponse, bool) {
	resp := &wire.FetchResponse{CorrelationID: req.CorrelationID, Partitions: make([]wire.FetchPartitionResponse, len(req.Partitions))}
	ready := now
	budget := DefaultMaxFetchResponseBytes
	if req.MaxBytes >= 0 {
		budget = min(budget, int(req.MaxBytes))
	}
	used := 0
	for i := range req.Partitions {
		p := &req.Partitions[i]
		part := &resp.Partitions[i]
		part.Topic, part.Partition, part.HighWatermark = p.Topic, p.Partition, end
		if p.Topic != controller.MetadataTopic || p.Partition != 0 {
			part.ErrorCode, ready = wire.CodeUnknownTopicOrPartition, true
			continue
		}
		if p.FetchOffset > end {
			part.ErrorCode, ready = wire.CodeOffsetOutOfRange, true
			continue
		}
		if p.FetchOffset == end {
			continue
		}
		ready = true
		limit := min(int(max(p.MaxBytes, 1)), budget-used)
		if limit <= 0 {
			continue
		}
		// A buffer of its own: several answers may wait in the outbox at once.
		records, err := n.c.ReadMetadata(nil, p.FetchOffset, limit)
		if err != nil {
			part.ErrorCode = wire.CodeOf(err)
			continue
		}
		part.Records = records
		used += len(records)
	}
	return resp, ready
}

// Metrics appends the controller's metrics to dst (controller.Controller.Metrics).
func (n *ControllerNode) Metrics(dst []metrics.Family) []metrics.Family { return n.c.Metrics(dst) }
