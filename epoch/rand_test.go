package epoch

import (
	"flag"
	"math/rand/v2"
	"testing"
)

// seed drives every randomized test in this package. The default is fixed so
// runs are deterministic; -seed reproduces a reported failure.
var seed = flag.Uint64("seed", 20250101, "seed for randomized tests")

// newRand returns a PCG source seeded from -seed and makes sure the seed is
// printed if the test fails.
func newRand(t testing.TB) *rand.Rand {
	t.Helper()
	s := *seed
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("randomized with -seed=%d", s)
		}
	})
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}
