package kafka

import (
	"fmt"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// InitProducerID (key 22), v0-v5.
//
// Behavior:
//   - an idempotent producer's id, cluster-unique: the broker forwards the
//     request to the controller, which hands ids out of blocks its
//     metadata log allocates, and relays the answer (REQUEST_TIMED_OUT if
//     the controller does not answer in time, which clients retry);
//   - every call gets a new id at epoch 0: for an idempotent producer a
//     new id is as good as KIP-360's bumped epoch, its sequences start
//     again at 0;
//   - v3+ (KIP-360): the ProducerID and ProducerEpoch a producer names to
//     resume are checked as Kafka's KafkaApis checks them (both -1, or
//     neither: otherwise INVALID_REQUEST) and then not consulted: without
//     a TransactionalID Kafka's transaction coordinator, too, hands out a
//     new id at epoch 0 whatever they say;
//   - a TransactionalID is refused with INVALID_REQUEST: kaenlog has no
//     transactions (no transaction coordinator, no markers), so v4's
//     PRODUCER_FENCED and v5's TRANSACTION_ABORTABLE (KIP-890), which only
//     a transactional id gets, are never answered;
//   - v6 (KIP-939's two-phase commit) is transactional too, and kmsg
//     v1.15.1 does not know it.

func init() {
	regKey(&api{key: initProducerIDKey, name: "InitProducerID", min: 0, max: 5, decode: decodeInitProducerID, encode: encodeInitProducerID, shape: initProducerIDShape})
}

// initProducerIDShape is an InitProducerID request's layout, v0-v5
// (kmsg's InitProducerIDRequest).
func initProducerIDShape(version int16, flexible bool) shape {
	s := shape{str, fixedBytes(4)} // TransactionalID, TransactionTimeoutMillis
	if version >= 3 {
		s = append(s, fixedBytes(8+2)) // ProducerID, ProducerEpoch
	}
	return append(s, tagsIf(flexible)...)
}

func decodeInitProducerID(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.InitProducerIDRequest)
	halfResume := st.version >= 3 && (kr.ProducerID == wire.NoProducerID) != (kr.ProducerEpoch == wire.NoProducerEpoch)
	if kr.TransactionalID != nil || halfResume {
		resp := kmsg.NewPtrInitProducerIDResponse()
		resp.ErrorCode, resp.ProducerID, resp.ProducerEpoch = kafkaCode(wire.CodeInvalidRequest), -1, -1
		st.local = resp
		return nil, errLocal
	}
	m := &wire.InitProducerIDRequest{CorrelationID: st.corr, TransactionTimeoutMs: -1, ProducerID: wire.NoProducerID, ProducerEpoch: wire.NoProducerEpoch}
	return m, nil
}

func encodeInitProducerID(_ *Codec, _ *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.InitProducerIDResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to an InitProducerID", m.APIKey())
	}
	resp := kmsg.NewPtrInitProducerIDResponse()
	resp.ErrorCode, resp.ProducerID, resp.ProducerEpoch = kafkaCode(w.ErrorCode), w.ProducerID, w.ProducerEpoch
	return resp, nil
}
