package testkit

import (
	"flag"
	"math/rand/v2"
	"testing"
)

// seed drives every randomized test of a test binary that links this
// package. The default is fixed so runs are deterministic; -seed N
// replays a reported failure.
var seed = flag.Uint64("seed", 20261201, "seed for the math/rand/v2 generators of randomized tests")

// NewRand returns a PCG generator seeded from -seed and logs the seed if
// t fails, so that the failure can be replayed.
func NewRand(t testing.TB) *rand.Rand {
	t.Helper()
	s := *seed
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("random seed: %d (replay with -seed %d)", s, s)
		}
	})
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}
