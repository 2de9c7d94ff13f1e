package replica

import (
	"fmt"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/wire"
)

// An idempotent producer in the cluster: an id from the controller, then
// batches carrying (producer id, epoch, base sequence) that a leader
// refuses out of order and writes at most once.

// InitProducerID asks the controller for a producer id, from the
// cluster's client, as an idempotent producer does before its first
// produce (kaenlog's clients ask the controller, as they do for metadata),
// and waits for the answer. A refusal is an error matching its wire
// sentinel.
func (c *Cluster) InitProducerID() (id int64, epoch int16, err error) {
	resp, err := c.Call(ControllerAt(), &wire.InitProducerIDRequest{
		CorrelationID: c.NextCorrelation(), TransactionTimeoutMs: -1,
		ProducerID: wire.NoProducerID, ProducerEpoch: wire.NoProducerEpoch,
	}, 10_000)
	if err != nil {
		return wire.NoProducerID, wire.NoProducerEpoch, err
	}
	r := resp.(*wire.InitProducerIDResponse)
	if err := r.ErrorCode.Err(); err != nil {
		return wire.NoProducerID, wire.NoProducerEpoch, fmt.Errorf("replica: cluster: init producer id: %w", err)
	}
	return r.ProducerID, r.ProducerEpoch, nil
}

// ProducerBatch encodes values as one batch of an idempotent producer:
// producerID and epoch (from InitProducerID), baseSequence the sequence
// of its first record (how many records the producer sent to this
// partition before, from 0), every record at timestampMs. A retry sends
// the same batch again. wire.NoProducerID, wire.NoProducerEpoch and -1
// make a plain producer's batch.
func ProducerBatch(producerID int64, epoch int16, baseSequence int32, timestampMs int64, values ...[]byte) ([]byte, error) {
	recs := make([]log.Record, len(values))
	for i, v := range values {
		recs[i] = log.Record{OffsetDelta: int32(i), Value: v}
	}
	return log.AppendBatch(nil, &log.Batch{
		BaseTimestamp: timestampMs, MaxTimestamp: timestampMs,
		ProducerID: producerID, ProducerEpoch: epoch, BaseSequence: baseSequence, Records: recs,
	})
}

// SendProduceBatch sends a batch the caller built (ProducerBatch, or
// log.AppendBatch) to the leader the controller has committed for tp, from
// the cluster's client, and returns without waiting, as SendProduce does
// with values.
func (c *Cluster) SendProduceBatch(tp TopicPartition, acks int16, timeoutMs int32, batch []byte) *ProduceCall {
	return c.SendProduceBatchTo(c.LeaderOf(tp), tp, acks, timeoutMs, batch)
}

// SendProduceBatchTo is SendProduceBatch to broker id, whatever the
// controller says leads: a client with stale metadata. The batch is
// encoded into the request as it is sent, so the caller may send the same
// bytes again (a retry).
func (c *Cluster) SendProduceBatchTo(id int32, tp TopicPartition, acks int16, timeoutMs int32, batch []byte) *ProduceCall {
	call := &ProduceCall{c: c, corr: c.NextCorrelation(), acks: acks}
	c.net.Send(Envelope{From: ClientAt(0), To: BrokerAt(id), Msg: &wire.ProduceRequest{
		CorrelationID: call.corr, Acks: acks, TimeoutMs: timeoutMs,
		Partitions: []wire.ProducePartition{{Topic: tp.Topic, Partition: tp.Partition, Records: batch}},
	}})
	c.Run()
	return call
}

// ProduceBatch sends batch to tp's leader and waits for the answer as
// Produce does (fetch rounds and the clock running, at most maxMs),
// returning the partition's answer: its base offset, or the refusal.
func (c *Cluster) ProduceBatch(tp TopicPartition, acks int16, maxMs int64, batch []byte) (wire.ProducePartitionResponse, error) {
	call := c.SendProduceBatch(tp, acks, int32(min(maxMs, 1<<31-1)), batch)
	if err := c.AwaitProduce(call, maxMs); err != nil {
		return wire.ProducePartitionResponse{}, err
	}
	resp, _, err := call.Result()
	return resp, err
}

// AwaitProduce runs the cluster until call's answer arrives: fetch rounds
// at each instant while they move anything (at most awaitRoundsPerInstant:
// a follower that is cut off, or fetches nothing new, must not hold the
// clock still), then the clock to the next timer, for at most maxMs.
func (c *Cluster) AwaitProduce(call *ProduceCall, maxMs int64) error {
	deadline := c.clock.NowMs() + maxMs
	for rounds := 0; !call.Done(); rounds++ {
		delivered := c.net.Delivered
		c.FetchRound()
		if call.Done() || (c.net.Delivered != delivered && rounds < awaitRoundsPerInstant) {
			continue
		}
		rounds = 0
		next, ok := c.clock.NextMs()
		if !ok || next > deadline {
			return fmt.Errorf("replica: cluster: no answer to a produce within %d ms", maxMs)
		}
		c.clock.AdvanceTo(next)
	}
	return nil
}

// awaitRoundsPerInstant bounds the fetch rounds AwaitProduce runs before
// it lets time pass: enough for a batch to reach every follower and the
// high watermark to follow it.
const awaitRoundsPerInstant = 8
