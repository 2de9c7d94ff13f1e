package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// rules are the safe truncation rules; each scenario runs under both.
var rules = []replica.TruncationRule{replica.TruncateOnFetch, replica.TruncateByLeaderEpoch}

// converge drives follower f to agreement with the leader: epoch questions
// first where its rule asks them, then fetches until nothing new comes.
func (g *group) converge(f int32) {
	g.t.Helper()
	fr, l := g.r[f], g.r[g.st.Leader]
	for range 20 {
		if q, ok := fr.NextEpochQuery(g.now); ok {
			resp, _ := l.HandleOffsetsForLeaderEpoch(&q)
			if err := fr.ApplyEpochAnswer(&q, &resp, g.now); err != nil {
				g.t.Fatal(err)
			}
			continue
		}
		before := fr.LEO()
		resp := g.fetch(f)
		if !resp.HasDivergingEpoch && len(resp.Records) == 0 && fr.LEO() == before {
			return
		}
	}
	g.t.Fatalf("broker %d did not converge", f)
}

// agree fails unless the replicas hold the same records and epoch caches.
func (g *group) agree(ids ...int32) {
	g.t.Helper()
	want, wantEpochs := values(g.t, g.r[ids[0]]), g.r[ids[0]].Epochs()
	for _, id := range ids[1:] {
		if got := values(g.t, g.r[id]); !slices.Equal(got, want) {
			g.t.Fatalf("broker %d holds %q, broker %d %q", id, got, ids[0], want)
		}
		if got := g.r[id].Epochs(); !slices.Equal(got, wantEpochs) {
			g.t.Fatalf("broker %d epochs %v, broker %d %v", id, got, ids[0], wantEpochs)
		}
	}
}

// KIP-279's fast leader change A→B→A (kafka-rules.md §8.2): A writes m1
// and m2 at epoch 1, B copies only m1; B leads at epoch 2 and writes m3 at
// offset 1, which A never sees; A leads again at epoch 3. B's m3 sits where
// A's m2 is: B must drop it, not keep it under KIP-101's "start of the next
// epoch" (which would be offset 2). At the end every log and every epoch
// cache is equal.
func TestFastLeaderChangeABA(t *testing.T) {
	for _, rule := range rules {
		t.Run(rule.String(), func(t *testing.T) {
			const a, b = 1, 2
			g := newGroup(t, replica.Options{Truncation: rule}, a, b)
			g.elect(a, a, b)
			g.produce(wire.AcksLeader, "m1")
			g.fetch(b)
			g.produce(wire.AcksLeader, "m2") // B never gets it
			g.elect(b, a, b)
			g.produce(wire.AcksLeader, "m3") // at offset 1, on B only
			g.elect(a, a, b)                 // before A fetched from B
			g.produce(wire.AcksLeader, "m4")
			g.converge(b)
			g.agree(a, b)
			if got := values(t, g.r[b]); !slices.Equal(got, []string{"m1", "m2", "m4"}) {
				t.Fatalf("B holds %q, want m1 m2 m4", got)
			}
		})
	}
}

// KIP-101 scenario 2: divergence after two hard failures. A (leader) has m1
// and m2, B only m1; both crash. B comes back first, is elected and writes
// m3 at offset 1. A comes back holding m2 at offset 1 and follows B: by the
// epoch rules it drops m2 and takes m3, and the logs agree again.
func TestDivergenceAfterTwoHardFailures(t *testing.T) {
	for _, rule := range rules {
		t.Run(rule.String(), func(t *testing.T) {
			const a, b = 1, 2
			g := newGroup(t, replica.Options{Truncation: rule}, a, b)
			g.elect(a, a, b)
			g.produce(wire.AcksLeader, "m1")
			g.fetch(b)
			g.produce(wire.AcksLeader, "m2")
			g.restart(a)
			g.restart(b)
			g.elect(b, b) // B first, alone
			g.produce(wire.AcksLeader, "m3")
			g.converge(a)
			g.agree(a, b)
			if got := values(t, g.r[a]); !slices.Equal(got, []string{"m1", "m3"}) {
				t.Fatalf("A holds %q, want m1 m3", got)
			}
		})
	}
}

// KIP-101 scenario 1 under the old rule: a follower that truncates to its
// own high watermark on restart and then wins an election loses a committed
// record. B's fetch that lets the leader commit m2 reaches the leader, but B
// restarts before the answer — carrying the new high watermark — arrives.
// The rule exists so the loss can be shown (and caught).
func TestHighWatermarkTruncationLosesACommittedRecord(t *testing.T) {
	const a, b = 1, 2
	g := newGroup(t, replica.Options{Truncation: replica.TruncateToHighWatermark}, a, b)
	g.st.MinISR = 2
	g.elect(a, a, b)
	g.produce(wire.AcksLeader, "m1")
	g.fetch(b)
	g.fetch(b)
	g.produce(wire.AcksLeader, "m2")
	g.fetch(b) // B holds m2; its HW says 1
	p, _ := g.r[b].NextFetch(g.now)
	g.r[a].HandleFetch(replica.FetchFrom{ReplicaID: b, ReplicaEpoch: -1}, &p, 1<<20, nil, g.now) // the answer is lost
	if g.r[a].HighWatermark() != 2 || g.r[b].HighWatermark() != 1 {
		t.Fatalf("leader HW %d follower HW %d, want 2 and 1: m2 committed, B does not know", g.r[a].HighWatermark(), g.r[b].HighWatermark())
	}
	g.restart(b)
	g.elect(a, a, b) // B rejoins as a follower: the old rule cuts it to its HW
	if g.r[b].LEO() != 1 {
		t.Fatalf("B LEO %d after the old rule, want its HW 1", g.r[b].LEO())
	}
	g.elect(b, b) // A fails; B, in the ISR, is elected
	g.converge(a)
	if got := values(t, g.r[a]); slices.Contains(got, "m2") || !slices.Equal(got, values(t, g.r[b])) {
		t.Fatalf("A holds %q, B %q: the committed m2 should be gone from both", got, values(t, g.r[b]))
	}
}
