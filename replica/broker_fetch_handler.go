package replica

import (
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// handleFetch serves a fetch from a follower or a consumer: every partition
// by its replica, within one byte budget for the whole response — the
// request's MaxBytes, clamped to MaxFetchResponseBytes. Once a partition
// has returned records, the next one gets what is left of the budget (its
// first batch whole, as KIP-74, so the response exceeds the budget by less
// than one batch); once nothing is left, partitions answer their state with
// no records.
//
// A fetch that finds less than MinBytes parks for up to MaxWaitMs (Kafka's
// DelayedFetch, the course's parked fetch), so followers and consumers
// long-poll instead of asking in a loop. It is answered as soon as
//   - its partitions hold MinBytes past its fetch offsets (for a follower
//     the log end, for a consumer the high watermark: for a consumer a
//     move of the high watermark is bytes);
//   - a partition's leadership or leader epoch changes, or its fetch offset
//     falls past the log end (a truncated leader);
//   - MaxWaitMs ends.
//
// A fetch with an error, a diverging epoch, MaxWaitMs or MinBytes <= 0, or
// no partitions is answered at once. The position of a follower is
// recorded when its fetch arrives, not when it is answered.
//
// A move of the high watermark alone does not answer a follower's parked
// fetch, as in Kafka (DelayedFetch waits for bytes): the follower learns
// the new high watermark with its next records, or when its wait ends. So
// an acks=all commit costs one fetch per follower beyond the one that
// carries the records — the fetch whose arrival moves the high watermark
// (and completes the produce) parks, and is what the next records answer
// — rather than a round of answers that only carry the news.
func (b *Broker) handleFetch(from Addr, req *wire.FetchRequest, nowMs int64) {
	resp, bytes, immediate := b.answerFetch(from, req, true, nowMs)
	if immediate || bytes >= int(req.MinBytes) || req.MaxWaitMs <= 0 || req.MinBytes <= 0 || len(req.Partitions) == 0 {
		b.reply(from, resp)
		return
	}
	pf := parkedFetch{from: from, req: req, deadlineMs: clock.Deadline(nowMs, int64(req.MaxWaitMs)), marks: b.takeMarks(len(req.Partitions))}
	for i := range req.Partitions {
		r := b.parts[TopicPartition{req.Partitions[i].Topic, req.Partitions[i].Partition}]
		pf.marks[i] = markOf(r, req.ReplicaID)
	}
	if len(b.parkedFetches) == 0 || pf.deadlineMs < b.parkedDeadlineMs {
		b.parkedDeadlineMs = pf.deadlineMs
	}
	b.parkedFetches = append(b.parkedFetches, pf)
	b.parkedDue = true
}

// takeMarks returns a slice of n marks, reusing those of a parked fetch
// that ended.
func (b *Broker) takeMarks(n int) []fetchMark {
	if k := len(b.freeMarks); k > 0 {
		m := b.freeMarks[k-1]
		b.freeMarks[k-1] = nil
		b.freeMarks = b.freeMarks[:k-1]
		if cap(m) >= n {
			return m[:n]
		}
	}
	return make([]fetchMark, n)
}

// dropParked forgets a parked fetch that was answered or dropped, keeping
// its marks for the next one.
func (b *Broker) dropParked(pf *parkedFetch) {
	if len(b.freeMarks) < maxFreeMarks {
		b.freeMarks = append(b.freeMarks, pf.marks[:0])
	}
	*pf = parkedFetch{}
}

// maxFreeMarks bounds the marks kept for reuse.
const maxFreeMarks = 64

// parkedFetch is a fetch waiting for news.
type parkedFetch struct {
	from       Addr
	req        *wire.FetchRequest
	deadlineMs int64
	marks      []fetchMark // per partition of req, what it saw when parked
}

// fetchMark is what a parked fetch saw of one partition: a change in any
// of it is news.
type fetchMark struct {
	epoch int32  // the replica's leader epoch
	end   uint64 // where the fetcher may read to: the log end or the high watermark
}

// markOf is what a fetch by replicaID sees of r now.
func markOf(r *Replica, replicaID int32) fetchMark {
	m := fetchMark{epoch: r.LeaderEpoch(), end: r.HighWatermark()}
	if replicaID >= 0 {
		m.end = r.Log().EndOffset()
	}
	return m
}

// answerFetch computes the response to req from from, recording a
// follower's position first when observe is set. immediate reports what
// must be answered now whatever its size: an error or a diverging epoch.
// The records alias a buffer of the broker's fetch arena, valid until the
// next Receive or Tick.
func (b *Broker) answerFetch(from Addr, req *wire.FetchRequest, observe bool, nowMs int64) (resp *wire.FetchResponse, bytes int, immediate bool) {
	resp = b.takeFetchResponse(req.CorrelationID, len(req.Partitions))
	budget := b.cfg.maxFetchResponseBytes()
	if req.MaxBytes >= 0 {
		budget = min(budget, int(req.MaxBytes))
	}
	limited := false
	if b.fetchBudget != nil {
		granted := max(0, min(budget, b.fetchBudget(from, budget)))
		limited, budget = granted < budget, granted
	}
	fetcher := FetchFrom{ReplicaID: req.ReplicaID, ReplicaEpoch: req.ReplicaEpoch}
	buf := b.takeFetchBuf()
	for i := range req.Partitions {
		p := &req.Partitions[i]
		part := &resp.Partitions[i]
		r, err := b.leaderFor(TopicPartition{p.Topic, p.Partition})
		if err != nil {
			*part = wire.FetchPartitionResponse{Topic: p.Topic, Partition: p.Partition, ErrorCode: wire.CodeOf(err)}
			immediate = true
			continue
		}
		limit := min(int(max(p.MaxBytes, 0)), budget-bytes)
		before := len(buf)
		if observe {
			*part, buf, _ = r.handleFetchAppended(fetcher, p, limit, buf, nowMs)
		} else {
			*part, buf, _ = r.refetch(fetcher, p, limit, buf, nowMs)
		}
		if limited && len(part.Records) > limit && (req.ReplicaID < 0 || bytes > 0) {
			// The memory budget's grant is a bound, not KIP-74's
			// guideline: a first batch larger than it waits. A
			// follower's first batch is the exception: replication
			// must progress while clients hold the budget, or they
			// would shrink the ISR of every partition led here; it is
			// one batch beyond the grant per follower fetch, which the
			// transport counts once framed.
			part.Records = nil
			buf = buf[:before]
		}
		immediate = immediate || part.ErrorCode != wire.CodeNone || part.HasDivergingEpoch
		bytes += len(part.Records)
	}
	b.returnFetchBuf(buf)
	return resp, bytes, immediate
}

// A FetchBudget says how many bytes of records, at most want, a fetch
// response to peer may carry now; a transport that bounds the memory its
// connections hold gives one to its broker (SetFetchBudget), so that a
// client that does not read its responses cannot make the broker read
// and hold more for it. The broker asks it each time it answers a fetch,
// with the transport's lock held. A response given less than it asked
// carries whole batches within the grant only — not KIP-74's first
// batch whole, which would exceed it — so one given 0, or less than a
// partition's next batch, carries none for it, and a fetch with MinBytes
// then parks on, to be answered when news comes or its wait ends. A
// follower's fetch given more than 0 still carries its first batch whole:
// clients that spend the budget hold back clients, never replication.
type FetchBudget func(peer Addr, want int) int

// SetFetchBudget makes the broker ask f before it answers a fetch; nil
// removes it. A transport calls it before the broker's first event.
func (b *Broker) SetFetchBudget(f FetchBudget) { b.fetchBudget = f }

// takeFetchResponse returns the response of the fetch arena's next
// place (the one takeFetchBuf hands out next), reset to n partitions.
func (b *Broker) takeFetchResponse(corr int32, n int) *wire.FetchResponse {
	for b.fetchArenaUsed >= len(b.fetchResps) {
		b.fetchResps = append(b.fetchResps, new(wire.FetchResponse))
	}
	resp := b.fetchResps[b.fetchArenaUsed]
	parts := resp.Partitions[:0]
	if cap(parts) < n {
		parts = make([]wire.FetchPartitionResponse, 0, n)
	}
	parts = parts[:n]
	clear(parts)
	*resp = wire.FetchResponse{CorrelationID: corr, Partitions: parts}
	return resp
}

// takeFetchBuf returns the next buffer of the fetch arena. Every response
// answered within one event gets its own, because the transport encodes
// them only after the event; the arena is reused from the next event on.
func (b *Broker) takeFetchBuf() []byte {
	if b.fetchArenaUsed == len(b.fetchArena) {
		b.fetchArena = append(b.fetchArena, nil)
	}
	return b.fetchArena[b.fetchArenaUsed][:0]
}

// Fetch buffers kept from event to event: at most maxKeptFetchBufs, of at
// most maxKeptFetchBufBytes each (a fetch of Kafka's max.partition.fetch.bytes,
// 1 MiB, with its last batch whole); larger ones, grown for a rare large
// response, are left to the collector once the event is over.
const (
	maxKeptFetchBufs     = 4
	maxKeptFetchBufBytes = 2 << 20
)

// trimFetchArena drops the fetch buffers not worth keeping, once the
// responses that used them are handed out.
func (b *Broker) trimFetchArena() {
	for i, buf := range b.fetchArena {
		if cap(buf) > maxKeptFetchBufBytes || i >= maxKeptFetchBufs {
			b.fetchArena[i] = nil
		}
	}
	if len(b.fetchArena) > maxKeptFetchBufs {
		b.fetchArena = b.fetchArena[:maxKeptFetchBufs]
	}
}

// returnFetchBuf keeps buf's storage (it may have grown) as the buffer
// takeFetchBuf handed out, now in use until the event ends.
func (b *Broker) returnFetchBuf(buf []byte) {
	b.fetchArena[b.fetchArenaUsed] = buf
	b.fetchArenaUsed++
}

// completeParkedFetches answers the parked fetches that have news, and at
// their deadline those that have none. A fetch asking for more than one
// byte reads its partitions again when their end moves, and parks on
// while they hold less than MinBytes.
//
// Every event ends here, so the fetches are scanned only when one of them
// may be done: one parked since the last scan, a deadline passed, or a
// partition they wait on changed (its replica, role, leader epoch, high
// watermark or log end) — what parkedFetchDone reads besides the clock.
// Otherwise every fetch would find what it found at the last scan, and
// stay parked: so a thousand fetches parked on one quiet partition cost
// one look at that partition per event, not a thousand (Kafka's purgatory
// likewise checks a delayed fetch only when a partition it watches
// changes, and at its expiry).
func (b *Broker) completeParkedFetches(nowMs int64) {
	if len(b.parkedFetches) == 0 {
		b.parkedWatches, b.parkedDue = b.parkedWatches[:0], false
		return
	}
	if !b.parkedDue && nowMs < b.parkedDeadlineMs && !b.parkedWatchChanged() {
		return
	}
	kept := b.parkedFetches[:0]
	for _, pf := range b.parkedFetches {
		if b.parkedFetchDone(&pf, nowMs) {
			b.dropParked(&pf)
			continue
		}
		kept = append(kept, pf)
	}
	clear(b.parkedFetches[len(kept):])
	b.parkedFetches = kept
	b.watchParked()
}

// parkedWatch is what a scan of the parked fetches saw of one partition
// they wait on.
type parkedWatch struct {
	tp      TopicPartition
	r       *Replica // nil: not hosted
	leader  bool
	epoch   int32
	hw, leo uint64
}

// watchOf is what a scan sees of tp now.
func (b *Broker) watchOf(tp TopicPartition) parkedWatch {
	w := parkedWatch{tp: tp}
	if r, ok := b.parts[tp]; ok {
		w.r, w.leader, w.epoch = r, r.Role() == RoleLeader, r.LeaderEpoch()
		w.hw, w.leo = r.HighWatermark(), r.Log().EndOffset()
	}
	return w
}

// parkedWatchChanged reports whether a partition the parked fetches wait
// on changed since the last scan.
func (b *Broker) parkedWatchChanged() bool {
	for _, w := range b.parkedWatches {
		if b.watchOf(w.tp) != w {
			return true
		}
	}
	return false
}

// watchParked records, after a scan, what the parked fetches' partitions
// are now and their earliest deadline.
func (b *Broker) watchParked() {
	b.parkedDue, b.parkedDeadlineMs = false, clock.Never
	b.parkedWatches = b.parkedWatches[:0]
	if b.parkedIndex == nil {
		b.parkedIndex = map[TopicPartition]struct{}{}
	}
	clear(b.parkedIndex)
	for i := range b.parkedFetches {
		pf := &b.parkedFetches[i]
		b.parkedDeadlineMs = min(b.parkedDeadlineMs, pf.deadlineMs)
		for j := range pf.req.Partitions {
			tp := TopicPartition{pf.req.Partitions[j].Topic, pf.req.Partitions[j].Partition}
			if _, ok := b.parkedIndex[tp]; !ok {
				b.parkedIndex[tp] = struct{}{}
				b.parkedWatches = append(b.parkedWatches, b.watchOf(tp))
			}
		}
	}
}

// parkedFetchDone answers pf if it has news or its wait is over, and
// reports whether it did.
func (b *Broker) parkedFetchDone(pf *parkedFetch, nowMs int64) bool {
	news, grew := nowMs >= pf.deadlineMs, false
	for i := range pf.req.Partitions {
		p := &pf.req.Partitions[i]
		r, ok := b.parts[TopicPartition{p.Topic, p.Partition}]
		if !ok || r.Role() != RoleLeader {
			news = true
			break
		}
		now, was := markOf(r, pf.req.ReplicaID), pf.marks[i]
		switch {
		// Past the log end, not merely past a consumer's high watermark:
		// a consumer ahead of the high watermark (after a fail-over)
		// waits for it like any other.
		case now.epoch != was.epoch, p.FetchOffset > r.Log().EndOffset():
			news = true
		case now.end > was.end:
			grew = true
			pf.marks[i].end = now.end
		}
	}
	if !news && !grew {
		return false
	}
	resp, bytes, immediate := b.answerFetch(pf.from, pf.req, false, nowMs)
	if !news && !immediate && bytes < int(pf.req.MinBytes) {
		b.fetchArenaUsed-- // not sent: its buffer is free again
		return false
	}
	b.reply(pf.from, resp)
	return true
}
