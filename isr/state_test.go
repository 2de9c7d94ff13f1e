package isr

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const t0 = int64(1_700_000_000_000) // the chapter's --now-ms

// mustState builds a State or fails the test.
func mustState(t testing.TB, cfg Config, nowMs int64) *State {
	t.Helper()
	s, err := NewState(cfg, nowMs)
	if err != nil {
		t.Fatalf("NewState(%+v): %v", cfg, err)
	}
	return s
}

func TestNewStateRejects(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want error
	}{
		{"ISR without the leader", Config{LeaderID: 1, ISR: []int32{2, 3}, MinISR: 1}, ErrLeaderNotInISR},
		{"empty ISR", Config{LeaderID: 1, Replicas: []int32{1, 2}, MinISR: 1}, ErrLeaderNotInISR},
		{"duplicate in ISR", Config{LeaderID: 1, ISR: []int32{1, 2, 2}, MinISR: 1}, ErrDuplicateReplica},
		{"duplicate in replicas", Config{LeaderID: 1, Replicas: []int32{1, 2, 1}, ISR: []int32{1}, MinISR: 1}, ErrDuplicateReplica},
		{"min ISR zero", Config{LeaderID: 1, ISR: []int32{1}, MinISR: 0}, ErrInvalidMinISR},
		{"min ISR negative", Config{LeaderID: 1, ISR: []int32{1}, MinISR: -1}, ErrInvalidMinISR},
		{"negative id (a consumer, not a broker)", Config{LeaderID: 1, ISR: []int32{1, -1}, MinISR: 1}, ErrInvalidReplicaID},
		{"ISR member not assigned", Config{LeaderID: 1, Replicas: []int32{1, 2}, ISR: []int32{1, 3}, MinISR: 1}, ErrUnknownReplica},
		{"leader not assigned", Config{LeaderID: 1, Replicas: []int32{2, 3}, ISR: []int32{1}, MinISR: 1}, ErrUnknownReplica},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewState(tt.cfg, t0)
			if !errors.Is(err, tt.want) {
				t.Fatalf("NewState(%+v) error = %v, want %v", tt.cfg, err, tt.want)
			}
			if s != nil {
				t.Fatalf("NewState returned a State along with error %v", err)
			}
		})
	}
}

func TestNewStateAccessors(t *testing.T) {
	s := mustState(t, Config{LeaderID: 2, Replicas: []int32{3, 2, 1, 4}, ISR: []int32{3, 2, 1}, MinISR: 2}, t0)
	if diff := cmp.Diff([]int32{1, 2, 3}, s.ISR()); diff != "" {
		t.Errorf("ISR() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int32{1, 2, 3, 4}, s.Replicas()); diff != "" {
		t.Errorf("Replicas() mismatch (-want +got):\n%s", diff)
	}
	if s.LeaderID() != 2 || s.MinISR() != 2 || s.LagMaxMs() != DefaultLagMaxMs {
		t.Errorf("LeaderID, MinISR, LagMaxMs = %d, %d, %d", s.LeaderID(), s.MinISR(), s.LagMaxMs())
	}
	if s.UnderMinISR() {
		t.Error("UnderMinISR with 3 members and min 2")
	}
	for _, id := range []int32{1, 2, 3} {
		if !s.InISR(id) {
			t.Errorf("InISR(%d) = false", id)
		}
	}
	if s.InISR(4) || s.InISR(9) {
		t.Error("InISR true for a replica outside the ISR")
	}
	// Initial ISR followers are caught up as of construction; others are not.
	for _, id := range []int32{1, 3} {
		if at, ok := s.LastCaughtUpMs(id); !ok || at != t0 {
			t.Errorf("LastCaughtUpMs(%d) = (%d, %v), want (%d, true)", id, at, ok, t0)
		}
	}
	for _, id := range []int32{2, 4, 9} {
		if at, ok := s.LastCaughtUpMs(id); ok {
			t.Errorf("LastCaughtUpMs(%d) = (%d, true), want not found", id, at)
		}
		if leo, ok := s.FollowerLEO(id); ok {
			t.Errorf("FollowerLEO(%d) = (%d, true), want not found", id, leo)
		}
	}
	// ISR() is a copy.
	got := s.ISR()
	got[0] = 99
	if s.ISR()[0] != 1 {
		t.Error("mutating ISR() result changed the State")
	}
}

func TestNewStateReplicasDefaultToISRAndLagDefault(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, ISR: []int32{1, 2}, MinISR: 1, LagMaxMs: -5}, t0)
	if diff := cmp.Diff([]int32{1, 2}, s.Replicas()); diff != "" {
		t.Errorf("Replicas() mismatch (-want +got):\n%s", diff)
	}
	if s.LagMaxMs() != DefaultLagMaxMs {
		t.Errorf("LagMaxMs() = %d, want %d", s.LagMaxMs(), DefaultLagMaxMs)
	}
	s = mustState(t, Config{LeaderID: 1, ISR: []int32{1}, MinISR: 1, LagMaxMs: 10}, t0)
	if s.LagMaxMs() != 10 {
		t.Errorf("LagMaxMs() = %d, want 10", s.LagMaxMs())
	}
}

// TestObserveLastCaughtUp walks Kafka's lastCaughtUpTimeMs rule
// (Replica.updateFetchStateOrThrow) one fetch at a time.
func TestObserveLastCaughtUp(t *testing.T) {
	type fetch struct {
		fetchOffset, leaderLEO uint64
		nowMs                  int64
		wantCaughtUp           int64 // 0 = not caught up yet
	}
	tests := []struct {
		name    string
		inISR   bool
		fetches []fetch
	}{
		{"at the leader's LEO: caught up now", true, []fetch{
			{5, 5, 100, 100},
			{5, 5, 200, 200},
		}},
		{"reached the LEO of the previous fetch: caught up then", true, []fetch{
			{3, 5, 100, t0Initial},
			{5, 8, 150, 100}, // 5 >= 5 (leader LEO at previous fetch) -> previous fetch time
			{8, 11, 190, 150},
		}},
		{"behind both: unchanged", true, []fetch{
			{3, 5, 100, t0Initial},
			{4, 9, 150, t0Initial},
		}},
		{"first fetch behind, outside ISR: still never caught up", false, []fetch{
			{3, 5, 100, 0},
			{4, 9, 150, 0},
			{9, 12, 160, 150},
		}},
		{"caught-up time never moves backwards", true, []fetch{
			{5, 5, 500, 500},
			{5, 5, 400, 500}, // clock handed in out of order
		}},
		{"previous leader LEO is the max seen", true, []fetch{
			{1, 10, 100, t0Initial},
			{1, 4, 110, t0Initial},  // leader LEO reported lower (truncated leader log): remembered max stays 10
			{4, 12, 120, t0Initial}, // 4 < 10: not caught up as of 110
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isr := []int32{1}
			if tt.inISR {
				isr = append(isr, 2)
			}
			s := mustState(t, Config{LeaderID: 1, Replicas: []int32{1, 2}, ISR: isr, MinISR: 1}, t0Initial)
			for i, f := range tt.fetches {
				if err := s.Observe(2, f.fetchOffset, f.leaderLEO, f.nowMs); err != nil {
					t.Fatalf("fetch %d: Observe: %v", i, err)
				}
				got, ok := s.LastCaughtUpMs(2)
				if f.wantCaughtUp == 0 {
					if ok {
						t.Fatalf("fetch %d %+v: LastCaughtUpMs = %d, want never caught up", i, f, got)
					}
					continue
				}
				if !ok || got != f.wantCaughtUp {
					t.Fatalf("fetch %d %+v: LastCaughtUpMs = (%d, %v), want %d", i, f, got, ok, f.wantCaughtUp)
				}
				if leo, _ := s.FollowerLEO(2); leo != f.fetchOffset {
					t.Fatalf("fetch %d: FollowerLEO = %d, want %d", i, leo, f.fetchOffset)
				}
			}
		})
	}
}

// t0Initial is the construction time in TestObserveLastCaughtUp: small so
// the table reads easily, and nonzero so "0" can mean "not caught up".
const t0Initial = 1

func TestObserveRejects(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2}, MinISR: 1}, t0)
	if err := s.Observe(2, 4, 4, t0); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		id   int32
		off  uint64
		leo  uint64
		want error
	}{
		{"the leader itself", 1, 0, 4, ErrUnknownReplica},
		{"not assigned", 7, 0, 4, ErrUnknownReplica},
		{"consumer id", -1, 0, 4, ErrUnknownReplica},
		{"fetch beyond leader LEO", 2, 5, 4, ErrFetchOffsetOutOfRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.Observe(tt.id, tt.off, tt.leo, t0+1); !errors.Is(err, tt.want) {
				t.Fatalf("Observe(%d, %d, %d) = %v, want %v", tt.id, tt.off, tt.leo, err, tt.want)
			}
			// A rejected fetch records nothing.
			if leo, ok := s.FollowerLEO(2); !ok || leo != 4 {
				t.Fatalf("FollowerLEO(2) = (%d, %v) after rejected fetch, want (4, true)", leo, ok)
			}
			if at, _ := s.LastCaughtUpMs(2); at != t0 {
				t.Fatalf("LastCaughtUpMs(2) = %d after rejected fetch, want %d", at, t0)
			}
		})
	}
}

func TestObserveOutsideISRDoesNotCountOrJoin(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2}, MinISR: 1}, t0)
	must(t, s.Observe(2, 10, 10, t0))
	must(t, s.Observe(3, 2, 10, t0)) // far behind, but not in the ISR
	if hw, ok := s.ProposeHW(10, t0, nil); !ok || hw != 10 {
		t.Fatalf("ProposeHW = (%d, %v), want (10, true): replica 3 is outside the ISR", hw, ok)
	}
	must(t, s.Observe(3, 10, 10, t0+5))
	if s.InISR(3) {
		t.Fatal("Observe put replica 3 into the ISR; only Readmit may")
	}
	if leo, ok := s.FollowerLEO(3); !ok || leo != 10 {
		t.Fatalf("FollowerLEO(3) = (%d, %v), want (10, true)", leo, ok)
	}
}

func TestProposeHW(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, ISR: []int32{1, 2, 3}, MinISR: 2}, t0)
	// Unobserved ISR followers count as LEO 0: nothing is committed yet.
	if hw, ok := s.ProposeHW(5, t0, nil); !ok || hw != 0 {
		t.Fatalf("ProposeHW before any fetch = (%d, %v), want (0, true)", hw, ok)
	}
	must(t, s.Observe(2, 5, 5, t0))
	if hw, _ := s.ProposeHW(5, t0, nil); hw != 0 {
		t.Fatalf("ProposeHW with replica 3 unobserved = %d, want 0", hw)
	}
	must(t, s.Observe(3, 4, 5, t0))
	if hw, _ := s.ProposeHW(5, t0, nil); hw != 4 {
		t.Fatalf("ProposeHW = %d, want 4 (replica 3 is slowest)", hw)
	}
	if _, err := s.RemoveLostSession(3); err != nil {
		t.Fatal(err)
	}
	// Removed for its session, 3 is still caught up by time: it holds the HW
	// back while its broker may rejoin, and stops once it may not.
	if hw, _ := s.ProposeHW(5, t0, nil); hw != 4 {
		t.Fatalf("ProposeHW after removing caught-up, eligible 3 = %d, want 4", hw)
	}
	if hw, _ := s.ProposeHW(5, t0, func(id int32) bool { return id != 3 }); hw != 5 {
		t.Fatalf("ProposeHW after removing ineligible 3 = %d, want 5", hw)
	}
	if _, err := s.RemoveLostSession(2); err != nil {
		t.Fatal(err)
	}
	if hw, ok := s.ProposeHW(5, t0, nil); ok {
		t.Fatalf("ProposeHW under min ISR = (%d, true), want no proposal", hw)
	}
}

func TestHotPathDoesNotAllocate(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, ISR: []int32{1, 2, 3}, MinISR: 2}, t0)
	now := t0
	n := testing.AllocsPerRun(200, func() {
		now++
		_ = s.Observe(2, 7, 9, now)
		_, _ = s.ProposeHW(9, now, nil)
		_ = s.Gate(7).Verdict(8)
	})
	if n != 0 {
		t.Fatalf("Observe+ProposeHW+Verdict allocated %v times per run", n)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
