package client

import (
	"math"
	"math/rand/v2"
)

// Kafka's retry backoff defaults (CommonClientConfigs): retry.backoff.ms,
// retry.backoff.max.ms, and the fixed multiplier and jitter of
// org.apache.kafka.common.utils.ExponentialBackoff as Kafka's clients use
// it (KIP-580).
const (
	DefaultRetryBackoffMs    = 100
	DefaultRetryBackoffMaxMs = 1000
	backoffMultiplier        = 2
	backoffJitter            = 0.2
)

// backoff is Kafka's ExponentialBackoff: the wait before retry number
// attempts (0 for the first retry) is
//
//	min(max, random[1-jitter, 1+jitter) × initial × 2^min(attempts, log2(max/initial)))
//
// so 100, 200, 400, 800 then 1000 ms, each ±20%, never above max. The
// randomness comes from a source seeded by the caller, so a run replays.
// It is not safe for concurrent use; its owner's lock guards it.
type backoff struct {
	initial, max int64
	expMax       float64
	rng          *rand.Rand
}

// newBackoff returns the backoff from initialMs growing to maxMs, jittered
// from a PCG source seeded with seed.
func newBackoff(initialMs, maxMs int64, seed uint64) *backoff {
	initialMs = min(initialMs, maxMs)
	b := &backoff{initial: initialMs, max: maxMs, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	if maxMs > initialMs {
		b.expMax = math.Log(float64(maxMs)/float64(max(initialMs, 1))) / math.Log(backoffMultiplier)
	}
	return b
}

// delayMs returns the wait in milliseconds before retry number attempts.
func (b *backoff) delayMs(attempts int) int64 {
	if b.expMax == 0 {
		return b.initial
	}
	exp := math.Min(float64(max(attempts, 0)), b.expMax)
	term := float64(b.initial) * math.Pow(backoffMultiplier, exp)
	factor := 1 - backoffJitter + 2*backoffJitter*b.rng.Float64()
	return min(int64(factor*term), b.max)
}
