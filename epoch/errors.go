package epoch

import "errors"

// Sentinel errors. Every error returned by this package wraps one of these,
// so callers match with errors.Is.
var (
	// ErrBadCheckpoint is returned by ParseCheckpoint when the
	// leader-epoch-checkpoint content is malformed: a version other than 0,
	// a missing or negative entry count, a count that does not match the
	// entry lines, a line that is not two decimal integers, a negative epoch
	// or start offset, or epochs or start offsets that are not strictly
	// increasing; and by FromEntries for entries a Cache cannot hold.
	ErrBadCheckpoint = errors.New("epoch: malformed leader-epoch checkpoint")

	// ErrInvalidEpoch is returned by Cache.Assign for a negative epoch.
	// Kafka's UNDEFINED_EPOCH (-1) means "no epoch" and is never stored.
	ErrInvalidEpoch = errors.New("epoch: invalid leader epoch")

	// ErrOffsetOverflow is returned by Cache.Assign and Cache.TruncateFromStart
	// for a start offset above math.MaxInt64: offsets are int64 on the wire and
	// in the checkpoint, so such an entry could never be written or sent.
	ErrOffsetOverflow = errors.New("epoch: offset does not fit int64")
)
