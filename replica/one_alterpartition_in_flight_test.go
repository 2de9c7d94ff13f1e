package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// One AlterPartition request in flight per partition, as Kafka's
// AlterPartitionManager keeps it: a partition state at the same leader
// epoch ends the leader's proposal, but not the request sent for it. Until
// that request is answered nothing new is sent, and its answer, refused or
// not, is then ignored: it was for a proposal that no longer exists. The
// story of issue 15 §3, which used to leave the ISR stuck at {L, F} and the
// high watermark at 0 for as long as no other state came.
func TestAnAnswerToASupersededProposalIsIgnoredAndTheISRStillShrinks(t *testing.T) {
	const L, F = 1, 2
	g := newGroup(t, replica.Options{}, L, F) // replica.lag.time.max.ms 30 s, resend after 5 s
	l := g.r[L]

	// Leader L at epoch 5, partition epoch 1, ISR {L, F}, 10 records. F
	// never fetches: it holds the high watermark at 0.
	g.st = replica.PartitionState{Leader: L, LeaderEpoch: 5, PartitionEpoch: 1, Replicas: []int32{L, F}, ISR: []int32{L, F}, MinISR: 1}
	g.publish()
	g.produce(wire.AcksLeader, "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9")
	if l.LEO() != 10 || l.HighWatermark() != 0 {
		t.Fatalf("LEO %d HW %d, want 10 and 0", l.LEO(), l.HighWatermark())
	}

	// t0+30001: F has not caught up for longer than the lag bound. The
	// check proposes ISR [L]: req1, at partition epoch 1.
	g.now = t0 + 30_001
	l.CheckISR(g.now)
	req1, ok := l.AlterPartition(g.now)
	if !ok || req1.PartitionEpoch != 1 || !slices.Equal(members(req1), []int32{L}) {
		t.Fatalf("req1 %+v (sent %v), want ISR [1] at partition epoch 1", req1, ok)
	}

	// The controller publishes partition epoch 2, still ISR {L, F}, at the
	// same leader epoch (it changed the partition for its own reasons).
	// L's proposal is over; req1 is still unanswered.
	g.st.PartitionEpoch = 2
	g.publish()
	if _, pending := l.ISRState().InFlight(); pending {
		t.Fatal("the same-epoch state left the proposal pending")
	}

	// t0+60002: the check finds F out of sync again, but proposes nothing
	// while req1 is unanswered. What goes out is req1 itself, resent after
	// the retry interval: still partition epoch 1.
	g.now = t0 + 60_002
	l.CheckISR(g.now)
	if _, pending := l.ISRState().InFlight(); pending {
		t.Fatal("a second proposal was made while req1 is unanswered")
	}
	again, ok := l.AlterPartition(g.now)
	if !ok || !sameRequest(again, req1) {
		t.Fatalf("sent %+v (%v), want req1 resent %+v", again, ok, req1)
	}

	// The controller answers req1: INVALID_UPDATE_VERSION, since it is at
	// partition epoch 2. The answer frees the partition and puts nothing on
	// hold.
	refused := wire.AlterPartitionResponse{ErrorCode: wire.CodeInvalidUpdateVersion}
	answeredAt := g.now
	if err := l.ApplyAlterPartition(&req1, &refused, g.now); err != nil {
		t.Fatalf("the answer to a superseded proposal was acted on: %v", err)
	}
	if _, ok := l.AlterPartition(g.now + replica.DefaultAlterPartitionRetryMs); ok {
		t.Fatal("something is still being sent after req1's answer")
	}

	// The next ISR check, at most replica.lag.time.max.ms/2 later, proposes
	// [L] again, from the state as it is now: req2, at partition epoch 2.
	g.now = l.NextTickMs()
	if g.now > t0+60_002+15_000 {
		t.Fatalf("next ISR check at t0+%d, want within 15 s of the last", g.now-t0)
	}
	l.Tick(g.now)
	req2, ok := l.AlterPartition(g.now)
	if !ok || req2.PartitionEpoch != 2 || !slices.Equal(members(req2), []int32{L}) {
		t.Fatalf("req2 %+v (sent %v), want ISR [1] at partition epoch 2", req2, ok)
	}

	// req2's answer is lost. A copy of req1's answer arrives late: it
	// names partition epoch 1, so it is not req2's, and changes nothing.
	if err := l.ApplyAlterPartition(&req1, &refused, g.now+1); err != nil {
		t.Fatalf("a late answer to req1 was applied to req2: %v", err)
	}
	// So req2 goes out again after the retry interval.
	g.now += replica.DefaultAlterPartitionRetryMs
	resent, ok := l.AlterPartition(g.now)
	if !ok || !sameRequest(resent, req2) {
		t.Fatalf("sent %+v (%v), want req2 resent", resent, ok)
	}

	// The controller commits it at partition epoch 3. F is out, L alone
	// holds the high watermark: it moves to the LEO.
	committed := wire.AlterPartitionResponse{Leader: L, LeaderEpoch: 5, PartitionEpoch: 3, ISR: []int32{L}}
	if err := l.ApplyAlterPartition(&resent, &committed, g.now); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.ISR(), []int32{L}) || l.HighWatermark() != 10 || l.PartitionEpoch() != 3 {
		t.Fatalf("ISR %v HW %d partition epoch %d, want [1], 10 and 3", l.ISR(), l.HighWatermark(), l.PartitionEpoch())
	}
	// One ISR check and one lost answer after req1's answer, not "until
	// some other partition state arrives".
	if waited, bound := g.now-answeredAt, int64(15_000+replica.DefaultAlterPartitionRetryMs); waited > bound {
		t.Fatalf("the ISR shrank %d ms after req1's answer, want within %d", waited, bound)
	}
}

// A success answering a request whose proposal a partition state already
// ended is ignored too: the state the controller published decides, not
// an answer to a question the leader no longer asks.
func TestASuccessForASupersededProposalIsIgnored(t *testing.T) {
	const L, F, G = 1, 2, 3
	g := newGroup(t, replica.Options{LagMaxMs: 1000}, L, F, G)
	g.elect(L, L, F, G)
	l := g.r[L]
	g.produce(wire.AcksLeader, "a")
	g.fetch(F)
	g.now += 1001
	g.fetch(F) // F caught up now; G never fetched
	l.CheckISR(g.now)
	req, ok := l.AlterPartition(g.now)
	if !ok || !slices.Equal(members(req), []int32{L, F}) {
		t.Fatalf("proposal %+v (%v), want [1 2]", req, ok)
	}
	// The controller commits it, but the answer is slow; meanwhile it also
	// removes F (F's session expired) and publishes that first.
	g.st.PartitionEpoch += 2
	g.st.ISR = []int32{L}
	g.publish()
	late := wire.AlterPartitionResponse{Leader: L, LeaderEpoch: g.st.LeaderEpoch, PartitionEpoch: g.st.PartitionEpoch - 1, ISR: []int32{L, F}}
	if err := l.ApplyAlterPartition(&req, &late, g.now); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.ISR(), []int32{L}) || l.PartitionEpoch() != g.st.PartitionEpoch {
		t.Fatalf("ISR %v at partition epoch %d, want the published [1] at %d", l.ISR(), l.PartitionEpoch(), g.st.PartitionEpoch)
	}
	// The partition is free: F's next fetch proposes it back at once.
	g.fetch(F)
	if next, ok := l.AlterPartition(g.now); !ok || !slices.Equal(members(next), []int32{L, F}) || next.PartitionEpoch != g.st.PartitionEpoch {
		t.Fatalf("after the late answer: %+v (%v), want [1 2] at partition epoch %d", next, ok, g.st.PartitionEpoch)
	}
}

// members are the broker ids a request proposes.
func members(req wire.AlterPartitionRequest) []int32 {
	ids := make([]int32, len(req.NewISR))
	for i, m := range req.NewISR {
		ids[i] = m.BrokerID
	}
	return ids
}

// sameRequest reports whether two requests propose the same thing at the
// same epochs.
func sameRequest(a, b wire.AlterPartitionRequest) bool {
	return a.LeaderEpoch == b.LeaderEpoch && a.PartitionEpoch == b.PartitionEpoch && slices.Equal(a.NewISR, b.NewISR)
}
