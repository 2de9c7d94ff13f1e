package replica

import (
	"github.com/kaenlog/kaenlog/wire"
)

// handleFetch serves a fetch from a follower or a consumer: every partition
// by its replica, within one byte budget for the whole response — the
// request's MaxBytes, clamped to MaxFetchResponseBytes. Once a partition
// has returned records, the next one gets what is left of the budget (its
// first batch whole, as KIP-74, so the response exceeds the budget by less
// than one batch); once nothing is left, partitions answer their state with
// no records. The records alias the broker's fetch buffer: the transport
// encodes the response before the next request is handled.
func (b *Broker) handleFetch(req *wire.FetchRequest, nowMs int64) *wire.FetchResponse {
	resp := &wire.FetchResponse{CorrelationID: req.CorrelationID, Partitions: make([]wire.FetchPartitionResponse, len(req.Partitions))}
	budget := b.cfg.maxFetchResponseBytes()
	if req.MaxBytes >= 0 {
		budget = min(budget, int(req.MaxBytes))
	}
	from := FetchFrom{ReplicaID: req.ReplicaID, ReplicaEpoch: req.ReplicaEpoch}
	buf := b.fetchBuf[:0]
	used := 0
	for i := range req.Partitions {
		p := &req.Partitions[i]
		part := &resp.Partitions[i]
		r, err := b.leaderFor(TopicPartition{p.Topic, p.Partition})
		if err != nil {
			*part = wire.FetchPartitionResponse{Topic: p.Topic, Partition: p.Partition, ErrorCode: wire.CodeOf(err)}
			continue
		}
		limit := min(int(max(p.MaxBytes, 0)), budget-used)
		*part, buf, _ = r.HandleFetch(from, p, limit, buf, nowMs)
		used += len(part.Records)
	}
	b.fetchBuf = buf
	return resp
}

// handleOffsetsForLeaderEpoch answers a follower's epoch questions, one per
// partition.
func (b *Broker) handleOffsetsForLeaderEpoch(req *wire.OffsetsForLeaderEpochRequest) *wire.OffsetsForLeaderEpochResponse {
	resp := &wire.OffsetsForLeaderEpochResponse{CorrelationID: req.CorrelationID, Partitions: make([]wire.OffsetsForLeaderEpochPartitionResponse, len(req.Partitions))}
	for i := range req.Partitions {
		p := &req.Partitions[i]
		r, err := b.leaderFor(TopicPartition{p.Topic, p.Partition})
		if err != nil {
			resp.Partitions[i] = wire.OffsetsForLeaderEpochPartitionResponse{Topic: p.Topic, Partition: p.Partition, ErrorCode: wire.CodeOf(err)}
			continue
		}
		resp.Partitions[i], _ = r.HandleOffsetsForLeaderEpoch(p)
	}
	return resp
}

// handleListOffsets answers where partitions start and end.
func (b *Broker) handleListOffsets(req *wire.ListOffsetsRequest) *wire.ListOffsetsResponse {
	resp := &wire.ListOffsetsResponse{CorrelationID: req.CorrelationID, Partitions: make([]wire.ListOffsetsPartitionResponse, len(req.Partitions))}
	for i := range req.Partitions {
		p := &req.Partitions[i]
		r, err := b.leaderFor(TopicPartition{p.Topic, p.Partition})
		if err != nil {
			resp.Partitions[i] = wire.ListOffsetsPartitionResponse{Topic: p.Topic, Partition: p.Partition, ErrorCode: wire.CodeOf(err)}
			continue
		}
		resp.Partitions[i], _ = r.HandleListOffsets(req.ReplicaID, p)
	}
	return resp
}
