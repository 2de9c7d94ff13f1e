package isr

import "testing"

func BenchmarkAdvanceHW(b *testing.B) {
	b.ReportAllocs()
	followers := []ReplicaLEO{{ID: 2, LEO: 8}, {ID: 3, LEO: 6}, {ID: 4, LEO: 9}, {ID: 5, LEO: 7}}
	maximal := []int32{1, 2, 3, 4, 5}
	for b.Loop() {
		AdvanceHW(10, followers, maximal, 2)
	}
}

func BenchmarkObserveAndPropose(b *testing.B) {
	b.ReportAllocs()
	s := mustState(b, Config{LeaderID: 1, ISR: []int32{1, 2, 3}, MinISR: 2}, 0)
	var now int64
	var leo uint64
	for b.Loop() {
		now++
		leo++
		_ = s.Observe(2, leo-1, leo, now)
		_, _ = s.ProposeHW(leo, now, nil)
	}
}

func BenchmarkShrinkISR(b *testing.B) {
	b.ReportAllocs()
	s := mustState(b, Config{LeaderID: 1, ISR: []int32{1, 2, 3, 4, 5}, MinISR: 2}, 0)
	for b.Loop() {
		s.ShrinkISR(1000) // nobody is old enough: the steady-state call
	}
}

func BenchmarkGateVerdict(b *testing.B) {
	b.ReportAllocs()
	g := Gate{HighWatermark: 100, ISRSize: 2, MinISR: 2}
	var v Verdict
	for i := uint64(0); b.Loop(); i++ {
		v = g.Verdict(i & 255)
	}
	_ = v
}
