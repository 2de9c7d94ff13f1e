package kafka_test

import (
	"flag"
	"math/rand/v2"
	"testing"
)

// seed drives the randomized tests of this package (which faults, when, how
// many records a client reads before it restarts). The default is fixed;
// -seed reproduces a reported run.
var seed = flag.Uint64("seed", 20261202, "seed for randomized tests")

// newRand returns a PCG source seeded from -seed and logs the seed, so that
// a failing run names it.
func newRand(t testing.TB) *rand.Rand {
	t.Helper()
	s := *seed
	t.Logf("randomized with -seed=%d", s)
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}
