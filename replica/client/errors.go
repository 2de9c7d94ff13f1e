package client

import (
	"errors"
	"fmt"

	"github.com/kaenlog/kaenlog/wire"
)

// The client's own conditions. Everything else a call returns is, or wraps,
// a *wire.Error: a broker's refusal carries its code (errors.Is(err,
// wire.ErrNotLeaderOrFollower), wire.CodeOf(err), wire.IsRetriable(err)),
// a broken connection matches wire.ErrNetworkException, a request the
// client stopped waiting for matches wire.ErrRequestTimedOut, and a
// response that did not decode matches wire.ErrMalformed.
var (
	// ErrClosed is returned for work the client or producer gave up because
	// it was closed: records not yet acknowledged, a consumer's iteration,
	// any later call.
	ErrClosed = errors.New("client: closed")

	// ErrDeliveryTimeout fails a record that was not acknowledged within
	// ProducerConfig.DeliveryTimeoutMs of being handed to the producer
	// (Kafka's delivery.timeout.ms). The error also wraps the last error
	// the record's batch met, if any, so errors.Is finds that too (for
	// example wire.ErrNotEnoughReplicas while the ISR stayed too small).
	ErrDeliveryTimeout = errors.New("client: delivery timeout")

	// ErrBufferFull refuses a record the producer has no room for: it
	// already holds ProducerConfig.MaxBufferedBytes of records not yet
	// acknowledged (Kafka's buffer.memory). ProduceAsync and
	// ProduceManyAsync return it at once; Produce and Send wait for room
	// first, as Kafka's send() does, and return it (wrapped) once
	// ProducerConfig.MaxBlockMs passed without room.
	ErrBufferFull = errors.New("client: producer buffer full")

	// ErrMetadataTimeout fails a record, or ends a consumer's iteration,
	// that waited ProducerConfig.MaxBlockMs (ConsumerConfig.
	// DefaultAPITimeoutMs) for its topic and partition to appear in the
	// metadata (Kafka's TimeoutException "Topic ... not present in
	// metadata after ... ms"). The error names the controller's address
	// and wraps the last cause: the connection's error (matching
	// wire.ErrNetworkException), the request's timeout
	// (wire.ErrRequestTimedOut), or what the controller said of the topic
	// (wire.ErrUnknownTopicOrPartition).
	ErrMetadataTimeout = errors.New("client: no metadata")

	// ErrInvalidConfig refuses a configuration New, NewProducer or
	// NewConsumer cannot work with; the error names the field.
	ErrInvalidConfig = errors.New("client: invalid configuration")
)

// OffsetOutOfRangeError is what a consumer's iteration ends with when the
// leader answers its fetch with OFFSET_OUT_OF_RANGE: the offset asked for
// is below the partition's log start (retention removed it) or above its
// end. The client never moves the position by itself (Kafka's
// auto.offset.reset=none); the error says where the partition starts and
// ends so the caller can choose. It matches wire.ErrOffsetOutOfRange.
type OffsetOutOfRangeError struct {
	TopicPartition
	// Offset is the offset the consumer asked for.
	Offset uint64
	// LogStartOffset is the first offset the leader still holds.
	LogStartOffset uint64
	// HighWatermark is the end of what a consumer may read: the next
	// offset to be committed.
	HighWatermark uint64
}

// Error returns for example "client: orders-0: offset 7 out of range [10, 42)".
func (e *OffsetOutOfRangeError) Error() string {
	return fmt.Sprintf("client: %s: offset %d out of range [%d, %d)", e.TopicPartition, e.Offset, e.LogStartOffset, e.HighWatermark)
}

// Unwrap returns wire.ErrOffsetOutOfRange.
func (e *OffsetOutOfRangeError) Unwrap() error { return wire.ErrOffsetOutOfRange }

// refusal is a broker's answer code for tp as an error: nil for
// CodeNone, else the code's *wire.Error wrapped with where it came from.
func refusal(tp TopicPartition, from string, code wire.ErrorCode) error {
	if code == wire.CodeNone {
		return nil
	}
	return fmt.Errorf("client: %s from %s: %w", tp, from, code.Err())
}

// networkError is a broken connection to peer: it matches
// wire.ErrNetworkException and wraps cause.
func networkError(peer string, cause error) error {
	return fmt.Errorf("client: connection to %s: %w: %w", peer, wire.ErrNetworkException, cause)
}

// timeoutError is a request peer did not answer within ms: it matches
// wire.ErrRequestTimedOut, the code whose Kafka exception
// (TimeoutException) Kafka's clients raise for it too.
func timeoutError(peer string, key wire.APIKey, ms int64) error {
	return fmt.Errorf("client: %s request to %s: no answer within %d ms: %w", key, peer, ms, wire.ErrRequestTimedOut)
}

// deliveryTimeout is ErrDeliveryTimeout after ms, wrapping last when there
// was one.
func deliveryTimeout(tp TopicPartition, ms int64, last error) error {
	if last == nil {
		return fmt.Errorf("client: %s: %w after %d ms", tp, ErrDeliveryTimeout, ms)
	}
	return fmt.Errorf("client: %s: %w after %d ms: %w", tp, ErrDeliveryTimeout, ms, last)
}

// configError is ErrInvalidConfig for field.
func configError(field, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidConfig, field, fmt.Sprintf(format, args...))
}

// brokerName is how errors name broker id.
func brokerName(id int32) string { return fmt.Sprintf("broker %d", id) }
