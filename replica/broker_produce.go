package replica

import "github.com/kaenlog/kaenlog/wire"

// maxProducePartitions bounds the partitions of one produce request: a
// parked partition is named by (request, index) in 16 bits.
const maxProducePartitions = 1 << 16

// handleProduce serves a client's produce request. Every partition is
// appended by its leader replica; partitions refused are answered at once,
// and an acks=all partition whose records are not yet committed parks the
// whole response until its outcome (the last parked partition sends it).
// acks=0 gets no response at all: the producer asked for none. But if a
// partition was refused, the broker closes the connection (an envelope
// with Close), as Kafka's does: that is the only way such a producer
// learns to refresh its metadata — else it would go on sending to a
// broker that is no longer the leader, each record reported done and
// dropped.
func (b *Broker) handleProduce(from Addr, req *wire.ProduceRequest, nowMs int64) {
	w := b.takeProducing(from, req.CorrelationID, len(req.Partitions))
	resp := &w.resp
	b.produceSeq++
	seq := b.produceSeq
	left := 0
	for i := range req.Partitions {
		p := &req.Partitions[i]
		part := &resp.Partitions[i]
		part.Topic, part.Partition = p.Topic, p.Partition
		if len(req.Partitions) > maxProducePartitions {
			part.ErrorCode = wire.CodeInvalidRequest
			continue
		}
		if p.Topic == OffsetsTopic {
			// Only the group coordinators write it (broker_groups.go), as
			// Kafka's ReplicaManager refuses a client's append to an
			// internal topic: a record a coordinator cannot read would
			// keep its partition's groups from loading.
			part.ErrorCode = wire.CodeInvalidTopicException
			continue
		}
		r, err := b.leaderFor(TopicPartition{p.Topic, p.Partition})
		if err == nil {
			err = b.checkMaxMessageBytes(p.Topic, p.Records)
		}
		if err != nil {
			part.ErrorCode = wire.CodeOf(err)
			continue
		}
		res, parked, err := r.produce(seq<<16|uint64(i), p.Records, req.Acks, req.TimeoutMs, nowMs, true)
		if err != nil {
			part.ErrorCode = wire.CodeOf(err)
			continue
		}
		part.BaseOffset, part.HasBaseOffset, part.LogStartOffset = res.BaseOffset, true, res.LogStartOffset
		if parked {
			left++
		}
	}
	if req.Acks == wire.AcksNone {
		for i := range resp.Partitions {
			if resp.Partitions[i].ErrorCode != wire.CodeNone {
				b.outbox = append(b.outbox, Envelope{From: BrokerAt(b.cfg.ID), To: from, Close: true})
				break
			}
		}
		b.retired = append(b.retired, w)
		return
	}
	if left == 0 {
		b.reply(from, resp)
		b.retired = append(b.retired, w)
		return
	}
	w.left = left
	b.produces[seq] = w
}

// takeProducing returns a produce response for n partitions, reusing one
// whose answer went out in an earlier event.
func (b *Broker) takeProducing(from Addr, corr int32, n int) *producing {
	var w *producing
	if k := len(b.freeProducing); k > 0 {
		w = b.freeProducing[k-1]
		b.freeProducing[k-1] = nil
		b.freeProducing = b.freeProducing[:k-1]
	} else {
		w = new(producing)
	}
	parts := w.resp.Partitions[:0]
	if cap(parts) < n || cap(parts) > maxKeptProducePartitions {
		parts = make([]wire.ProducePartitionResponse, 0, n)
	}
	parts = parts[:n]
	clear(parts)
	*w = producing{from: from, resp: wire.ProduceResponse{CorrelationID: corr, Partitions: parts}}
	return w
}

// maxKeptProducePartitions bounds the partitions of a produce response
// kept for reuse, so that one huge request does not pin its memory.
const maxKeptProducePartitions = 1024

// produceDone fills in a parked partition's outcome and sends the response
// once no partition of its request is parked any more.
func (b *Broker) produceDone(o ProduceOutcome) {
	if b.groupWriteDone(o) {
		return
	}
	seq, i := o.Ref>>16, int(o.Ref&0xffff)
	w, ok := b.produces[seq]
	if !ok || i >= len(w.resp.Partitions) {
		return
	}
	part := &w.resp.Partitions[i]
	if o.Err != nil {
		part.ErrorCode = wire.CodeOf(o.Err)
		// The records are on this broker's log but were never committed
		// here; after a change of leader they may be truncated away, so
		// their offsets promise nothing.
		if part.ErrorCode == wire.CodeNotLeaderOrFollower {
			part.BaseOffset, part.HasBaseOffset = 0, false
		}
	}
	w.left--
	if w.left == 0 {
		delete(b.produces, seq)
		b.reply(w.from, &w.resp)
		b.retired = append(b.retired, w)
	}
}
