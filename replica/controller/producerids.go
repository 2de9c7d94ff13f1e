package controller

import (
	"math"

	"github.com/kaenlog/kaenlog/wire"
)

// ProducerIDBlockSize is how many producer ids one ProducerIDsRecord
// allocates: Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE. Only the
// first InitProducerID of a block writes to the metadata log.
const ProducerIDBlockSize = 1000

// InitProducerID gives an idempotent producer its id: a new one, with
// epoch 0, every time, as Kafka's transaction coordinator does for a
// producer without a transactional id (the request's ProducerID,
// ProducerEpoch and TransactionTimeoutMs are not consulted; kaenlog has no
// transactions). Ids come from blocks of ProducerIDBlockSize that the
// metadata log allocates durably (ProducerIDsRecord), so most calls write
// nothing; a controller opened again starts at the next block, past every
// id it ever handed out, skipping the rest of its last block: ids are
// never reused, and may be skipped. Ids stay below math.MaxInt64: once the
// next block would not fit, the answer is UNKNOWN_SERVER_ERROR, as KRaft's
// ProducerIdControlManager answers. A failed controller answers
// NOT_CONTROLLER. Nothing else is refused.
func (c *Controller) InitProducerID(req wire.InitProducerIDRequest, nowMs int64) wire.InitProducerIDResponse {
	resp := wire.InitProducerIDResponse{CorrelationID: req.CorrelationID, ProducerID: wire.NoProducerID, ProducerEpoch: wire.NoProducerEpoch}
	if c.err != nil {
		resp.ErrorCode = codeOf(c.err)
		return resp
	}
	if c.nextProducerID >= c.image.nextProducerID {
		// The block in hand is used up (or there is none since Open):
		// allocate the next one, durably, before handing out any of it.
		first := c.image.nextProducerID
		if first > math.MaxInt64-ProducerIDBlockSize {
			resp.ErrorCode = wire.CodeUnknownServerError
			return resp
		}
		o := c.begin()
		o.add(ProducerIDsRecord{BrokerID: NoLeader, BrokerEpoch: -1, NextProducerID: first + ProducerIDBlockSize})
		if err := c.commit(o, nowMs); err != nil {
			resp.ErrorCode = codeOf(err)
			return resp
		}
		c.nextProducerID = first
	}
	resp.ProducerID, resp.ProducerEpoch = c.nextProducerID, 0
	c.nextProducerID++
	return resp
}
