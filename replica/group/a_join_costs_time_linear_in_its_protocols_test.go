package group_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/group"
)

// A JoinGroup lists as many protocols as its frame holds (the listener
// bounds an array to 1<<16 elements), and the coordinator runs on the
// broker's one event loop: choosing among them must cost time linear in
// the protocols the members list, as Kafka's counted supportedProtocols
// does. Checking each of the first member's protocols against each other
// member's list was quadratic: 8192 protocols took half a second a join,
// 65536 about half a minute, the broker's replication and every other
// request stalled meanwhile. Measured as a ratio in one run, the sizes
// interleaved and each the fastest of seven: sixteen times the protocols
// must cost well under 256 times the time (the quadratic cost measured
// 337 times; the linear one 30 to 45, and up to 86 under -race, on a
// loaded machine).
func TestAJoinCostsTimeLinearInItsProtocols(t *testing.T) {
	const small, large = 1024, 16 * 1024
	joins := func(n int) time.Duration {
		protos := make([]group.Protocol, n)
		for i := range protos {
			protos[i] = group.Protocol{Name: fmt.Sprintf("p%d", i)}
		}
		h := newHarness(t, quickConfig())
		start := time.Now()
		for range 3 {
			h.join(group.JoinGroupRequest{Group: "g", Protocols: protos})
		}
		h.settle()
		return time.Since(start)
	}
	bestSmall, bestLarge := time.Duration(1<<63-1), time.Duration(1<<63-1)
	for range 7 {
		bestSmall, bestLarge = min(bestSmall, joins(small)), min(bestLarge, joins(large))
	}
	t.Logf("three joins of %d protocols: %v, of %d: %v", small, bestSmall, large, bestLarge)
	if ratio := float64(bestLarge) / float64(bestSmall); ratio > 150 {
		t.Fatalf("three joins of %d protocols took %v, of %d %v: %.0f times for 16 times the protocols", small, bestSmall, large, bestLarge, ratio)
	}
}
