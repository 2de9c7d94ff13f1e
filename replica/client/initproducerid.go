package client

// TEMPORARY: InitProducerId (Kafka's API key 22) as branch idem specifies
// it for package wire, until that branch is merged; then this file goes
// and the three functions below call wire's types.

import (
	"encoding/binary"
	"fmt"

	"github.com/kaenlog/kaenlog/wire"
)

const apiInitProducerID wire.APIKey = 22

// initProducerIDRequest is {CorrelationID, TransactionTimeoutMs i32 (-1),
// ProducerID i64 (-1), ProducerEpoch i16 (-1)}.
type initProducerIDRequest struct{ corr int32 }

func (initProducerIDRequest) APIKey() wire.APIKey  { return apiInitProducerID }
func (r initProducerIDRequest) Correlation() int32 { return r.corr }
func (r initProducerIDRequest) AppendTo(dst []byte) ([]byte, error) {
	dst = binary.BigEndian.AppendUint16(dst, uint16(apiInitProducerID))
	dst = binary.BigEndian.AppendUint16(dst, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.corr))
	dst = binary.BigEndian.AppendUint32(dst, 0xffffffff)
	dst = binary.BigEndian.AppendUint64(dst, 0xffffffffffffffff)
	return binary.BigEndian.AppendUint16(dst, 0xffff), nil
}

func newInitProducerIDRequest() wire.Message { return &initProducerIDRequest{} }

func setOtherCorrelation(m wire.Message, corr int32) {
	if r, ok := m.(*initProducerIDRequest); ok {
		r.corr = corr
	}
}

// decodeInitProducerID decodes {CorrelationID, ErrorCode i16, ProducerID
// i64, ProducerEpoch i16} and turns a refusal into its error.
func decodeInitProducerID(payload []byte) (producerIdent, error) {
	if len(payload) != 8+2+8+2 || binary.BigEndian.Uint16(payload) != uint16(apiInitProducerID) || binary.BigEndian.Uint16(payload[2:]) != 0 {
		return producerIdent{}, fmt.Errorf("%w: InitProducerIdResponse of %d bytes", wire.ErrMalformed, len(payload))
	}
	code := wire.ErrorCode(binary.BigEndian.Uint16(payload[8:]))
	if code != wire.CodeNone {
		return producerIdent{}, fmt.Errorf("client: InitProducerId: %w", code.Err())
	}
	id := int64(binary.BigEndian.Uint64(payload[10:]))
	epoch := int16(binary.BigEndian.Uint16(payload[18:]))
	if id < 0 || epoch < 0 {
		return producerIdent{}, fmt.Errorf("%w: InitProducerIdResponse producer %d epoch %d", wire.ErrMalformed, id, epoch)
	}
	return producerIdent{id: id, epoch: epoch, ok: true}, nil
}
