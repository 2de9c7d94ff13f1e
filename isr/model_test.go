package isr

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// fetchRecord is one accepted fetch, kept whole by the naive model.
type fetchRecord struct {
	offset, leaderLEO uint64
	nowMs             int64
}

// model is a deliberately naive replica of State: sets as maps, and the
// last caught-up time recomputed from each follower's full fetch history.
type model struct {
	leader   int32
	minISR   int
	lag      int64
	replicas []int32
	isr      map[int32]bool
	initial  map[int32]int64 // caught-up time granted at construction
	history  map[int32][]fetchRecord
}

// lastCaughtUp applies Kafka's rule to the whole history: the max over the
// construction time and every fetch's candidate.
func (m *model) lastCaughtUp(id int32) (int64, bool) {
	at, ok := m.initial[id]
	h := m.history[id]
	for k, f := range h {
		var cand int64
		var has bool
		if f.offset >= f.leaderLEO {
			cand, has = f.nowMs, true
		} else if k > 0 {
			var maxLEO uint64
			for _, p := range h[:k] {
				maxLEO = max(maxLEO, p.leaderLEO)
			}
			if f.offset >= maxLEO {
				cand, has = h[k-1].nowMs, true
			}
		}
		if has && (!ok || cand > at) {
			at, ok = cand, true
		}
	}
	return at, ok
}

func (m *model) leo(id int32) (uint64, bool) {
	h := m.history[id]
	if len(h) == 0 {
		return 0, false
	}
	return h[len(h)-1].offset, true
}

// proposeHW is Kafka's rule: the smallest LEO among the ISR, and among the
// observed followers outside it that were caught up within the lag at now
// and are eligible.
func (m *model) proposeHW(leaderLEO uint64, now int64, eligible func(int32) bool) (uint64, bool) {
	if len(m.isr) < m.effectiveMinISR() {
		return 0, false
	}
	hw := leaderLEO
	for _, id := range m.replicas {
		if id == m.leader {
			continue
		}
		leo, observed := m.leo(id) // an unobserved ISR member counts as 0
		at, caughtUp := m.lastCaughtUp(id)
		if m.isr[id] || observed && caughtUp && at >= now-m.lag && eligible(id) {
			hw = min(hw, leo)
		}
	}
	return hw, true
}

// effectiveMinISR caps min.insync.replicas at the replication factor, as
// Kafka's Partition.effectiveMinIsr does.
func (m *model) effectiveMinISR() int { return min(m.minISR, len(m.replicas)) }

func (m *model) assigned(id int32) bool { return id != m.leader && slices.Contains(m.replicas, id) }

func TestStateMatchesNaiveModel(t *testing.T) {
	r := newRand(t)
	for run := range 300 {
		leader := int32(r.IntN(4))
		replicas := []int32{leader}
		for _, id := range r.Perm(6) {
			if int32(id) != leader && len(replicas) < 2+r.IntN(4) {
				replicas = append(replicas, int32(id))
			}
		}
		isr := []int32{leader}
		for _, id := range replicas[1:] {
			if r.IntN(3) > 0 {
				isr = append(isr, id)
			}
		}
		minISR := 1 + r.IntN(3)
		lag := int64(1 + r.IntN(50))
		now := int64(r.IntN(1000))

		s, err := NewState(Config{LeaderID: leader, Replicas: replicas, ISR: isr, MinISR: minISR, LagMaxMs: lag}, now)
		if err != nil {
			t.Fatalf("run %d: NewState: %v", run, err)
		}
		m := &model{leader: leader, minISR: minISR, lag: lag, replicas: replicas,
			isr: map[int32]bool{}, initial: map[int32]int64{}, history: map[int32][]fetchRecord{}}
		for _, id := range isr {
			m.isr[id] = true
			if id != leader {
				m.initial[id] = now
			}
		}

		ineligible := int32(r.IntN(7))
		eligible := func(id int32) bool { return id != ineligible }
		leaderLEO := uint64(0)
		for step := range 200 {
			where := fmt.Sprintf("run %d step %d", run, step)
			now += int64(r.IntN(20)) - 3 // mostly forward, sometimes back
			if r.IntN(3) == 0 {
				leaderLEO += uint64(r.IntN(4))
			}
			id := int32(r.IntN(7)) - 1 // includes -1 and unassigned ids
			switch op := r.IntN(10); {
			case op < 6:
				off := uint64(r.IntN(int(leaderLEO) + 3))
				err := s.Observe(id, off, leaderLEO, now)
				switch {
				case !m.assigned(id):
					wantErr(t, where, err, ErrUnknownReplica)
				case off > leaderLEO:
					wantErr(t, where, err, ErrFetchOffsetOutOfRange)
				default:
					wantErr(t, where, err, nil)
					m.history[id] = append(m.history[id], fetchRecord{off, leaderLEO, now})
				}
			case op < 8:
				cutoff := now - m.lag
				changed := false
				for member := range m.isr {
					if member == m.leader {
						continue
					}
					if at, ok := m.lastCaughtUp(member); !ok || at < cutoff {
						delete(m.isr, member)
						changed = true
					}
				}
				if got := s.ShrinkISR(now); got != changed {
					t.Fatalf("%s: ShrinkISR(%d) = %v, model %v", where, now, got, changed)
				}
			case op < 9:
				changed, err := s.RemoveLostSession(id)
				switch {
				case id == m.leader:
					wantErr(t, where, err, ErrLeaderRemoval)
				case !m.assigned(id):
					wantErr(t, where, err, ErrUnknownReplica)
				default:
					wantErr(t, where, err, nil)
					if changed != m.isr[id] {
						t.Fatalf("%s: RemoveLostSession(%d) changed=%v, model member=%v", where, id, changed, m.isr[id])
					}
					delete(m.isr, id)
				}
			default:
				hw := uint64(r.IntN(int(leaderLEO) + 1))
				start := uint64(r.IntN(int(leaderLEO) + 1))
				err := s.Readmit(id, hw, start)
				leo, observed := m.leo(id)
				switch {
				case m.isr[id]:
					wantErr(t, where, err, nil)
				case !m.assigned(id):
					wantErr(t, where, err, ErrUnknownReplica)
				case !observed || leo < hw || leo < start:
					wantErr(t, where, err, ErrNotCaughtUp)
				default:
					wantErr(t, where, err, nil)
					m.isr[id] = true
				}
			}
			checkAgainstModel(t, where, s, m, leaderLEO, now, eligible)
		}
	}
}

func wantErr(t *testing.T, where string, got, want error) {
	t.Helper()
	if want == nil && got != nil || !errors.Is(got, want) {
		t.Fatalf("%s: error %v, want %v", where, got, want)
	}
}

func checkAgainstModel(t *testing.T, where string, s *State, m *model, leaderLEO uint64, now int64, eligible func(int32) bool) {
	t.Helper()
	isr := s.ISR()
	if !slices.IsSorted(isr) || len(slices.Compact(slices.Clone(isr))) != len(isr) {
		t.Fatalf("%s: ISR %v not sorted and unique", where, isr)
	}
	if !slices.Contains(isr, m.leader) {
		t.Fatalf("%s: leader %d missing from ISR %v", where, m.leader, isr)
	}
	if len(isr) != len(m.isr) {
		t.Fatalf("%s: ISR %v, model %v", where, isr, m.isr)
	}
	for _, id := range isr {
		if !m.isr[id] || !slices.Contains(m.replicas, id) {
			t.Fatalf("%s: ISR %v, model %v, replicas %v", where, isr, m.isr, m.replicas)
		}
	}
	if s.UnderMinISR() != (len(m.isr) < m.effectiveMinISR()) {
		t.Fatalf("%s: UnderMinISR %v with ISR %v, min %d", where, s.UnderMinISR(), isr, m.minISR)
	}
	got, gotOK := s.ProposeHW(leaderLEO, now, eligible)
	want, wantOK := m.proposeHW(leaderLEO, now, eligible)
	if got != want || gotOK != wantOK {
		t.Fatalf("%s: ProposeHW(%d, %d) = (%d, %v), model (%d, %v)", where, leaderLEO, now, got, gotOK, want, wantOK)
	}
	for _, id := range m.replicas {
		if id == m.leader {
			continue
		}
		gotAt, gotOK := s.LastCaughtUpMs(id)
		wantAt, wantOK := m.lastCaughtUp(id)
		if gotAt != wantAt || gotOK != wantOK {
			t.Fatalf("%s: LastCaughtUpMs(%d) = (%d, %v), model (%d, %v)", where, id, gotAt, gotOK, wantAt, wantOK)
		}
		gotLEO, gotOK := s.FollowerLEO(id)
		wantLEO, wantOK := m.leo(id)
		if gotLEO != wantLEO || gotOK != wantOK {
			t.Fatalf("%s: FollowerLEO(%d) = (%d, %v), model (%d, %v)", where, id, gotLEO, gotOK, wantLEO, wantOK)
		}
	}
}
