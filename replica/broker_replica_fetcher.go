package replica

import (
	"cmp"
	"slices"

	"github.com/kaenlog/kaenlog/wire"
)

// This file is the broker's fetcher (Kafka's ReplicaFetcherThread): one
// conversation per leader broker, batching every partition this broker
// follows from that leader, one request in flight at a time.

// FetchRound sends, to every leader broker with no request of ours in
// flight, the next request of the partitions this broker follows from it:
// the epoch questions of partitions that must first find where their logs
// part (TruncateByLeaderEpoch), otherwise one fetch with every partition
// ready to fetch. With ContinuousFetch the broker calls it itself after
// every event; without, it is a step the caller drives (a fetch round of
// the in-process cluster or the simulator).
func (b *Broker) FetchRound(nowMs int64) {
	if b.closed || b.halted != nil || b.epoch < 0 {
		return
	}
	defer b.checkLogs()
	// The followed partitions grouped by leader, leaders in order, each
	// group in partition order: a stable sort of the sorted hosted list.
	follow := b.followScratch[:0]
	for _, h := range b.hosted {
		if h.r.Role() == RoleFollower && h.r.LeaderID() >= 0 {
			follow = append(follow, h)
		}
	}
	b.followScratch = follow
	slices.SortStableFunc(follow, func(x, y hostedReplica) int { return cmp.Compare(x.r.LeaderID(), y.r.LeaderID()) })
	for len(follow) > 0 {
		leader := follow[0].r.LeaderID()
		n := 1
		for n < len(follow) && follow[n].r.LeaderID() == leader {
			n++
		}
		if _, busy := b.fetching[leader]; !busy {
			b.fetchFrom(leader, follow[:n], nowMs)
		}
		follow = follow[n:]
	}
	clear(b.followScratch) // keep no replica alive
}

// fetchFrom sends the next request to one leader.
func (b *Broker) fetchFrom(leader int32, follow []hostedReplica, nowMs int64) {
	var questions []wire.OffsetsForLeaderEpochPartition
	for _, h := range follow {
		if q, ok := h.r.NextEpochQuery(nowMs); ok {
			q.Topic, q.Partition = h.tp.Topic, h.tp.Partition
			questions = append(questions, q)
		}
	}
	if len(questions) > 0 {
		req := &wire.OffsetsForLeaderEpochRequest{CorrelationID: b.nextCorrelation(), ReplicaID: b.cfg.ID, Partitions: questions}
		b.fetching[leader] = req.CorrelationID
		b.send(BrokerAt(leader), req, nowMs)
		return
	}
	// No request of ours to this leader is pending (fetching has no
	// entry for it), so its last request, already encoded, is reused.
	req := b.fetchReqs[leader]
	if req == nil {
		req = new(wire.FetchRequest)
		b.fetchReqs[leader] = req
	}
	parts := req.Partitions[:0]
	for _, h := range follow {
		if p, ok := h.r.NextFetch(nowMs); ok {
			p.Topic, p.Partition = h.tp.Topic, h.tp.Partition
			parts = append(parts, p)
		}
	}
	req.Partitions = parts
	if len(parts) == 0 {
		return
	}
	var wait int32
	if b.cfg.ContinuousFetch {
		wait = b.cfg.replicaFetchWaitMs()
	}
	*req = wire.FetchRequest{
		CorrelationID: b.nextCorrelation(),
		ReplicaID:     b.cfg.ID,
		ReplicaEpoch:  b.epoch,
		MaxWaitMs:     wait,
		MinBytes:      1,
		MaxBytes:      int32(b.cfg.maxFetchResponseBytes()),
		Partitions:    parts,
	}
	b.fetching[leader] = req.CorrelationID
	b.send(BrokerAt(leader), req, nowMs)
}

// onFetched applies a leader's fetch response, partition by partition.
func (b *Broker) onFetched(leader int32, sent *wire.FetchRequest, resp *wire.FetchResponse, nowMs int64) {
	if b.fetching[leader] == sent.CorrelationID {
		delete(b.fetching, leader)
	}
	for i := range resp.Partitions {
		rp := &resp.Partitions[i]
		sp := findFetchPartition(sent.Partitions, rp.Topic, rp.Partition)
		r, ok := b.parts[TopicPartition{rp.Topic, rp.Partition}]
		if sp == nil || !ok {
			continue
		}
		_, _ = r.ApplyFetch(sp, rp, nowMs)
	}
}

// onEpochAnswers applies a leader's answers to epoch questions.
func (b *Broker) onEpochAnswers(leader int32, sent *wire.OffsetsForLeaderEpochRequest, resp *wire.OffsetsForLeaderEpochResponse, nowMs int64) {
	if b.fetching[leader] == sent.CorrelationID {
		delete(b.fetching, leader)
	}
	for i := range resp.Partitions {
		rp := &resp.Partitions[i]
		for j := range sent.Partitions {
			sp := &sent.Partitions[j]
			if sp.Topic != rp.Topic || sp.Partition != rp.Partition {
				continue
			}
			if r, ok := b.parts[TopicPartition{rp.Topic, rp.Partition}]; ok {
				_ = r.ApplyEpochAnswer(sp, rp, nowMs)
			}
		}
	}
}

func findFetchPartition(ps []wire.FetchPartition, topic string, partition int32) *wire.FetchPartition {
	for i := range ps {
		if ps[i].Topic == topic && ps[i].Partition == partition {
			return &ps[i]
		}
	}
	return nil
}
