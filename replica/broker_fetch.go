package replica

import (
	"github.com/kaenlog/kaenlog/wire"
)

// parkedFetch is a fetch waiting at this leader for records (Kafka's
// DelayedFetch).
type parkedFetch struct {
	from       Addr
	req        *wire.FetchRequest
	deadlineMs int64
}

// serveFetch answers a fetch now, or parks it: a fetch that found nothing
// (no records, no refusal, no diverging epoch) and may wait (MaxWaitMs >
// 0, MinBytes > 0) waits until one of its partitions has records for it
// or stops being served as it was (collect's completeParkedFetches), or
// until its MaxWaitMs ends. Without it, a follower that fetches again as
// soon as it is answered (ContinuousFetch) would send empty fetches in a
// hot loop.
func (b *Broker) serveFetch(from Addr, req *wire.FetchRequest, nowMs int64) {
	resp, buf, ready := b.handleFetch(req, b.fetchBuf[:0], nowMs)
	b.fetchBuf = buf
	if ready || req.MaxWaitMs <= 0 || req.MinBytes <= 0 {
		b.reply(from, resp)
		return
	}
	b.parkedFetches = append(b.parkedFetches, parkedFetch{from: from, req: req, deadlineMs: nowMs + int64(req.MaxWaitMs)})
}

// completeParkedFetches answers every parked fetch whose wait is over or
// that can now be answered with something, reading its partitions afresh.
// Each answer gets its own buffer: several may wait in the outbox at once.
func (b *Broker) completeParkedFetches(nowMs int64) {
	if len(b.parkedFetches) == 0 {
		return
	}
	kept := b.parkedFetches[:0]
	for _, p := range b.parkedFetches {
		if nowMs < p.deadlineMs && !b.fetchReady(p.req) {
			kept = append(kept, p)
			continue
		}
		resp, _, _ := b.handleFetch(p.req, nil, nowMs)
		b.reply(p.from, resp)
	}
	clear(b.parkedFetches[len(kept):])
	b.parkedFetches = kept
}

// fetchReady reports whether a parked fetch would now get records or a
// different answer: a partition this broker no longer leads at the
// request's epoch, or one with records past its fetch offset (to the log
// end for a follower, to the high watermark for a consumer).
func (b *Broker) fetchReady(req *wire.FetchRequest) bool {
	for i := range req.Partitions {
		p := &req.Partitions[i]
		r, ok := b.parts[TopicPartition{p.Topic, p.Partition}]
		if !ok || r.Role() != RoleLeader || (p.CurrentLeaderEpoch >= 0 && p.CurrentLeaderEpoch != r.LeaderEpoch()) {
			return true
		}
		end := r.HighWatermark()
		if req.ReplicaID >= 0 {
			end = r.LEO()
		}
		if end > p.FetchOffset || p.FetchOffset < r.Log().StartOffset() {
			return true
		}
	}
	return false
}

// handleFetch serves a fetch from a follower or a consumer: every partition
// by its replica, within one byte budget for the whole response — the
// request's MaxBytes, clamped to MaxFetchResponseBytes. Once a partition
// has returned records, the next one gets what is left of the budget (its
// first batch whole, as KIP-74, so the response exceeds the budget by less
// than one batch); once nothing is left, partitions answer their state with
// no records. The records are appended to buf and alias the returned
// buffer (serveFetch reuses the broker's fetch buffer for the answer it
// sends at once: the transport encodes it before the next request is
// handled). ready reports whether the fetch must be answered now: it got at least
// MinBytes of records, a refusal or a diverging epoch, or names no
// partition (Kafka's DelayedFetch answers those at once).
func (b *Broker) handleFetch(req *wire.FetchRequest, buf []byte, nowMs int64) (_ *wire.FetchResponse, _ []byte, ready bool) {
	resp := &wire.FetchResponse{CorrelationID: req.CorrelationID, Partitions: make([]wire.FetchPartitionResponse, len(req.Partitions))}
	budget := b.cfg.maxFetchResponseBytes()
	if req.MaxBytes >= 0 {
		budget = min(budget, int(req.MaxBytes))
	}
	from := FetchFrom{ReplicaID: req.ReplicaID, ReplicaEpoch: req.ReplicaEpoch}
	used := 0
	ready = len(req.Partitions) == 0
	for i := range req.Partitions {
		p := &req.Partitions[i]
		part := &resp.Partitions[i]
		r, err := b.leaderFor(TopicPartition{p.Topic, p.Partition})
		if err != nil {
			*part = wire.FetchPartitionResponse{Topic: p.Topic, Partition: p.Partition, ErrorCode: wire.CodeOf(err)}
			ready = true
			continue
		}
		limit := min(int(max(p.MaxBytes, 0)), budget-used)
		*part, buf, _ = r.HandleFetch(from, p, limit, buf, nowMs)
		used += len(part.Records)
		ready = ready || part.ErrorCode != wire.CodeNone || part.HasDivergingEpoch
	}
	return resp, buf, ready || used >= int(req.MinBytes)
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
