package wire

import (
	"errors"
	"math"
	"testing"
)

func TestOffsetConversions(t *testing.T) {
	for _, v := range []int64{0, 1, 1 << 40, math.MaxInt64} {
		u, err := FromWireI64(v)
		if err != nil || u != uint64(v) {
			t.Fatalf("FromWireI64(%d) = %d, %v", v, u, err)
		}
		back, err := ToWireI64(u)
		if err != nil || back != v {
			t.Fatalf("ToWireI64(%d) = %d, %v", u, back, err)
		}
	}
	for _, v := range []int64{-1, -2, math.MinInt64} {
		if _, err := FromWireI64(v); !errors.Is(err, ErrNegativeOffset) || !errors.Is(err, ErrMalformed) {
			t.Errorf("FromWireI64(%d) err = %v, want ErrNegativeOffset", v, err)
		}
	}
	for _, v := range []uint64{math.MaxInt64 + 1, math.MaxUint64} {
		if _, err := ToWireI64(v); !errors.Is(err, ErrOffsetOverflow) {
			t.Errorf("ToWireI64(%d) err = %v, want ErrOffsetOverflow", v, err)
		}
	}
}
