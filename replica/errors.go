package replica

import (
	"errors"
	"fmt"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/wire"
)

// The replica's refusals. Each one wraps the wire error a broker answers it
// with, so one error value serves both readers: errors.Is matches the
// replica's sentinel and the wire sentinel, and wire.CodeOf gives the code
// to put on the wire. A refusal is never a success-shaped value with a code
// beside it.
var (
	// ErrNotLeader is returned when a leader-only operation (a produce,
	// serving a fetch or an offsets question, an acks verdict) reaches a
	// replica that does not lead the partition at its current epoch. It
	// wraps wire.ErrNotLeaderOrFollower (Kafka's NOT_LEADER_OR_FOLLOWER, 6):
	// the client refreshes its metadata and retries at the leader.
	ErrNotLeader = fmt.Errorf("replica: not the leader: %w", wire.ErrNotLeaderOrFollower)
	// ErrNotFollower is returned when a follower-only operation (truncating
	// the log) is asked of a replica that leads: a leader's log is what the
	// partition has committed. It wraps wire.ErrNotLeaderOrFollower.
	ErrNotFollower = fmt.Errorf("replica: not a follower: %w", wire.ErrNotLeaderOrFollower)
	// ErrStaleEpoch is returned by BecomeLeader and BecomeFollower for a
	// partition state older than one the replica already applied (a lower
	// leader epoch, or the same one with a lower partition epoch), and for a
	// change of leader that does not raise the leader epoch: leadership never
	// goes back in time. The state is not applied. It wraps
	// wire.ErrFencedLeaderEpoch.
	ErrStaleEpoch = fmt.Errorf("replica: stale leader epoch: %w", wire.ErrFencedLeaderEpoch)
	// ErrClosed is returned by every operation on a replica after Close. It
	// wraps wire.ErrNotLeaderOrFollower: a broker that no longer hosts the
	// partition answers that way.
	ErrClosed = fmt.Errorf("replica: closed: %w", wire.ErrNotLeaderOrFollower)
	// ErrInvalidState is returned by BecomeLeader and BecomeFollower for a
	// partition state that breaks the controller's invariants (a leader
	// outside its ISR, this broker told to follow itself, an ISR member that
	// is not assigned), and by a Broker or Cluster asked to act on something
	// in the wrong state (a partition it does not host, a broker that is not
	// running). It wraps wire.ErrInvalidRequest.
	ErrInvalidState = fmt.Errorf("replica: invalid state: %w", wire.ErrInvalidRequest)
	// ErrInvalidConfig is returned when a broker's or cluster's
	// configuration cannot run: a negative broker id, sizes that would
	// stall replication (a batch larger than a fetch response), a cluster of
	// no brokers. It wraps wire.ErrInvalidRequest.
	ErrInvalidConfig = fmt.Errorf("replica: invalid configuration: %w", wire.ErrInvalidRequest)
)

// storageError turns an error from the log into the replica's refusal: the
// log's error is kept (errors.Is still finds log.ErrCorrupt, log.ErrLogFailed
// ...) and the wire error a broker answers with is added. A batch the leader
// refuses is the producer's fault (CORRUPT_MESSAGE, INVALID_RECORD,
// UNSUPPORTED_COMPRESSION_TYPE, MESSAGE_TOO_LARGE, and for an idempotent
// producer INVALID_PRODUCER_EPOCH or OUT_OF_ORDER_SEQUENCE_NUMBER); a failed
// log is the broker's (KAFKA_STORAGE_ERROR: the partition is offline here
// until a restart re-verifies its files).
func storageError(err error) error {
	if err == nil {
		return nil
	}
	var code error
	switch {
	case errors.Is(err, log.ErrLogFailed):
		code = wire.ErrKafkaStorageError
	case errors.Is(err, log.ErrCorrupt):
		code = wire.ErrCorruptMessage
	case errors.Is(err, log.ErrInvalidRecord), errors.Is(err, log.ErrInvalidBatch):
		code = wire.ErrInvalidRecord
	case errors.Is(err, log.ErrUnsupportedCompression):
		code = wire.ErrUnsupportedCompressionType
	case errors.Is(err, log.ErrBatchTooLarge):
		code = wire.ErrMessageTooLarge
	case errors.Is(err, log.ErrInvalidProducerEpoch):
		code = wire.ErrInvalidProducerEpoch
	case errors.Is(err, log.ErrOutOfOrderSequence):
		code = wire.ErrOutOfOrderSequenceNumber
	case errors.Is(err, log.ErrOffsetOutOfRange):
		code = wire.ErrOffsetOutOfRange
	case errors.Is(err, log.ErrClosed):
		code = wire.ErrNotLeaderOrFollower
	default:
		code = wire.ErrKafkaStorageError
	}
	return fmt.Errorf("%w: %w", code, err)
}
