package wire

import (
	"fmt"
	"math"
)

// FromWireI64 converts an offset read from the wire (int64) to the in-memory
// form (uint64). A negative value is never a valid offset here, so it is
// refused with an error matching ErrNegativeOffset instead of wrapping
// around to a huge uint64. The few fields where Kafka writes -1 for "none"
// are decoded before this is called, so -1 never reaches memory.
func FromWireI64(v int64) (uint64, error) {
	if v < 0 {
		return 0, fmt.Errorf("%w: %d", ErrNegativeOffset, v)
	}
	return uint64(v), nil
}

// ToWireI64 converts an in-memory offset (uint64) to the wire form (int64).
// Offsets above math.MaxInt64 cannot be written; they are refused with an
// error matching ErrOffsetOverflow rather than silently turning negative.
func ToWireI64(v uint64) (int64, error) {
	if v > math.MaxInt64 {
		return 0, fmt.Errorf("%w: %d", ErrOffsetOverflow, v)
	}
	return int64(v), nil
}
