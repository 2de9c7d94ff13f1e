package replica_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// Kafka's makeLeader: a broker re-elected at a new leader epoch while it
// leads keeps what it learned of its followers' logs (resetReplicaState
// with isNewLeader false), since they fetched from this very log; only a
// broker that was not leading starts them all unknown. Here the new epoch
// also drops G, which held the high watermark back: the re-elected leader
// moves it to F's known LEO at once, without waiting for F's next fetch.
func TestAReelectedLeaderKeepsItsFollowersLEOs(t *testing.T) {
	const L, F, G = 1, 2, 3
	g := newGroup(t, replica.Options{}, L, F, G)
	g.elect(L, L, F, G)
	l := g.r[L]
	g.produce(wire.AcksLeader, "a", "b", "c")
	g.fetch(F)
	g.fetch(F) // the leader knows F holds 3; G never fetched
	if leo, ok := l.ISRState().FollowerLEO(F); !ok || leo != 3 || l.HighWatermark() != 0 {
		t.Fatalf("F's LEO %d (%v), HW %d: want 3 and 0", leo, ok, l.HighWatermark())
	}

	g.elect(L, L, F) // L again, a new leader epoch, G out
	if leo, ok := l.ISRState().FollowerLEO(F); !ok || leo != 3 {
		t.Fatalf("after re-election F's LEO %d (%v), want the 3 it fetched", leo, ok)
	}
	if l.HighWatermark() != 3 {
		t.Fatalf("HW %d, want 3: F's known LEO, G no longer in the ISR", l.HighWatermark())
	}

	// A leader that was following knows nothing of the others' logs: F,
	// now the leader, waits for L to fetch.
	g.elect(F, L, F)
	f := g.r[F]
	if _, ok := f.ISRState().FollowerLEO(L); ok {
		t.Fatal("a new leader knows a follower's LEO before it fetched")
	}
}
