package replica_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/isr"
)

// Three replicas: broker 1 leads, brokers 2 and 3 follow, each over its own
// link. The high watermark is the smallest LEO in the ISR; a follower that
// stops fetching holds it back until the leader's time rule removes it; a
// follower outside the ISR still fetches everything but holds nothing back;
// and the controller's Readmit brings it back only once it has caught up,
// after which it holds the high watermark again.
func TestReviewThreeReplicasHighWatermarkIsMinOverISR(t *testing.T) {
	b := newBrokers(t, 1, 2, 3)
	b.lead(1, 0, []int32{2, 3}, 2, now)
	b.follow(2, 1, 0)
	b.follow(3, 1, 0)
	leader := b.r[1]

	// Three records; both followers copy them, and a second round tells the
	// leader both LEOs.
	b.produce(1, 3)
	for range 2 {
		b.mustFetch(2, 1, now)
		b.mustFetch(3, 1, now)
		b.check(1)
	}
	if hw := leader.HighWatermark(); hw != 3 {
		t.Fatalf("both followers at LEO 3: leader HW %d, want 3", hw)
	}

	// Broker 3 stops fetching. Broker 2 keeps up, but the HW is the minimum
	// over the ISR, and broker 3 is still in it at LEO 3.
	b.produce(1, 4) // offsets 3..6
	for range 2 {
		b.mustFetch(2, 1, now+1000)
		b.check(1)
	}
	if got := [3]uint64{leader.LEO(), b.r[2].LEO(), leader.HighWatermark()}; got != [3]uint64{7, 7, 3} {
		t.Fatalf("broker 3 silent: (leader LEO, broker 2 LEO, HW) = %v, want (7, 7, 3)", got)
	}
	if hw := b.r[2].HighWatermark(); hw != 3 {
		t.Fatalf("broker 2 learned HW %d, want the leader's 3", hw)
	}

	// The leader's time rule: broker 2 caught up at now+1000, broker 3 last
	// at now. One millisecond past broker 3's lag window only broker 3 goes.
	later := now + isr.DefaultLagMaxMs + 1
	changed, err := leader.ShrinkISR(later)
	if err != nil || !changed {
		t.Fatalf("ShrinkISR: %v %v", changed, err)
	}
	if got := leader.ISR().ISR(); !slices.Equal(got, []int32{1, 2}) {
		t.Fatalf("ISR after the shrink %v, want [1 2]", got)
	}
	if hw := leader.HighWatermark(); hw != 7 {
		t.Fatalf("with broker 3 out, the HW should jump to broker 2's LEO 7, got %d", hw)
	}
	b.check(1)

	// Outside the ISR, broker 3 still fetches, and gets everything up to the
	// leader's log end, not only what is committed...
	b.produce(1, 2) // offsets 7, 8
	b.mustFetch(3, 1, later)
	if leo := b.r[3].LEO(); leo != 9 {
		t.Fatalf("an out-of-ISR follower should still copy to the log end: LEO %d, want 9", leo)
	}
	// ...but it holds nothing back: broker 2's round alone moves the HW.
	b.mustFetch(2, 1, later)
	b.mustFetch(2, 1, later)
	if hw := leader.HighWatermark(); hw != 9 {
		t.Fatalf("after broker 2 reached 9 the HW should be 9, got %d", hw)
	}
	b.check(1)

	// Broker 3 stops again while outside; the HW does not wait for it.
	b.produce(1, 1) // offset 9
	b.mustFetch(2, 1, later)
	b.mustFetch(2, 1, later)
	if hw := leader.HighWatermark(); hw != 10 {
		t.Fatalf("an out-of-ISR follower at LEO 9 held the HW at %d, want 10", hw)
	}
	// It is not caught up, so the controller may not readmit it.
	if err := leader.Readmit(3); !errors.Is(err, isr.ErrNotCaughtUp) {
		t.Fatalf("readmitting broker 3 at LEO 9 under HW 10: %v, want ErrNotCaughtUp", err)
	}
	b.mustFetch(3, 1, later) // copies offset 9, reports LEO 9
	b.mustFetch(3, 1, later) // reports LEO 10
	if err := leader.Readmit(3); err != nil {
		t.Fatalf("readmitting a caught-up broker 3: %v", err)
	}
	if got := leader.ISR().ISR(); !slices.Equal(got, []int32{1, 2, 3}) {
		t.Fatalf("ISR after readmit %v, want [1 2 3]", got)
	}

	// Back in the ISR, broker 3 holds the HW once more.
	b.produce(1, 1) // offset 10
	b.mustFetch(2, 1, later)
	b.mustFetch(2, 1, later)
	if hw := leader.HighWatermark(); hw != 10 {
		t.Fatalf("readmitted broker 3 at LEO 10 should hold the HW at 10, got %d", hw)
	}
	b.mustFetch(3, 1, later)
	b.mustFetch(3, 1, later)
	if hw := leader.HighWatermark(); hw != 11 {
		t.Fatalf("all three at 11: HW %d", hw)
	}
	b.check(1)
	for _, f := range []int32{2, 3} {
		b.mustFetch(f, 1, later)
		sameLog(t, b.r[f], leader)
		if hw := b.r[f].HighWatermark(); hw != 11 {
			t.Fatalf("broker %d HW %d, want 11", f, hw)
		}
	}
	b.check(1)
}

// Under min.insync.replicas the HW stops even though every follower has
// every record, and a follower's HW never passes what it holds.
func TestReviewThreeReplicasUnderMinISRFreezesHW(t *testing.T) {
	b := newBrokers(t, 1, 2, 3)
	b.lead(1, 0, []int32{2, 3}, 3, now)
	b.follow(2, 1, 0)
	b.follow(3, 1, 0)
	b.produce(1, 2)
	for range 2 {
		b.mustFetch(2, 1, now)
		b.mustFetch(3, 1, now)
	}
	b.check(1)
	if hw := b.r[1].HighWatermark(); hw != 2 {
		t.Fatalf("HW %d, want 2", hw)
	}
	// Only broker 2 keeps fetching; broker 3 drops out by time, and with
	// min.insync.replicas 3 nothing more commits.
	later := now + isr.DefaultLagMaxMs + 1
	b.produce(1, 3)
	b.mustFetch(2, 1, later)
	b.mustFetch(2, 1, later)
	if _, err := b.r[1].ShrinkISR(later); err != nil {
		t.Fatal(err)
	}
	if !b.r[1].ISR().UnderMinISR() {
		t.Fatalf("ISR %v should be under min 3", b.r[1].ISR().ISR())
	}
	b.mustFetch(2, 1, later)
	if hw := b.r[1].HighWatermark(); hw != 2 {
		t.Fatalf("under min ISR the HW moved to %d", hw)
	}
	if hw, leo := b.r[2].HighWatermark(), b.r[2].LEO(); hw != 2 || leo != 5 {
		t.Fatalf("broker 2: LEO %d HW %d, want 5 and 2", leo, hw)
	}
	b.check(1)
}
