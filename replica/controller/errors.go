package controller

import (
	"fmt"

	"github.com/kaenlog/kaenlog/wire"
)

// Sentinel errors. Each wraps the wire sentinel whose code it carries, so
// errors.Is matches both and wire.CodeOf(err) gives the code to send.
var (
	// ErrBadRecord is returned by DecodeRecord, and so by
	// Image.ApplyBatches and Open, for bytes that are not a metadata record
	// of this package's encoding. It carries wire.CodeCorruptMessage.
	ErrBadRecord = fmt.Errorf("controller: malformed metadata record: %w", wire.ErrCorruptMessage)

	// ErrInvariant is returned by Image.Apply for a record that decodes but
	// would break the image's invariants (a partition epoch that does not
	// go up by exactly one, a leader outside the ISR, ...). The metadata
	// log is corrupt or belongs to another cluster. It carries
	// wire.CodeCorruptMessage.
	ErrInvariant = fmt.Errorf("controller: record breaks the metadata image: %w", wire.ErrCorruptMessage)

	// ErrFailed is returned by Failed, ReadMetadata and every later call
	// once a store operation failed: the controller no longer knows what
	// is durable, so it serves nothing until it is reopened from its
	// store. It carries wire.CodeNotController, as Kafka's controller
	// resigns on such a fault and its clients look for the next one.
	ErrFailed = fmt.Errorf("controller: failed, reopen it from its store: %w", wire.ErrNotController)

	// ErrInvalidConfig is returned by Open for a Config field out of range.
	// It carries wire.CodeInvalidRequest.
	ErrInvalidConfig = fmt.Errorf("controller: invalid config: %w", wire.ErrInvalidRequest)
)

// badRecord formats a DecodeRecord or AppendTo refusal.
func badRecord(t RecordType, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrBadRecord, t, fmt.Sprintf(format, args...))
}

// invariant formats an Image.Apply refusal.
func invariant(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvariant, fmt.Sprintf(format, args...))
}

// failed formats the error that fails the controller: it matches ErrFailed
// (and so carries wire.CodeNotController) and names the store's error.
func failed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFailed, fmt.Sprintf(format, args...))
}
