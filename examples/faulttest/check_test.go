package faulttest

import "testing"

// TestCheckCatchesEachKindOfFaultAndPassesACleanHistory feeds the checker
// hand-made histories, each with one fault of a kind the fault test must
// catch, and a clean one.
func TestCheckCatchesEachKindOfFaultAndPassesACleanHistory(t *testing.T) {
	final := func() map[int32]map[uint64]string {
		return map[int32]map[uint64]string{0: {0: "a", 1: "b", 2: "c"}, 1: {0: "x"}}
	}
	acked := []Entry{{0, 0, "a"}, {0, 1, "b"}, {0, 2, "c"}, {1, 0, "x"}}
	for _, tc := range []struct {
		name  string
		h     History
		check func(Result) bool
	}{
		{"clean", History{Acked: acked, Final: final(), Seen: []Entry{{0, 1, "b"}, {1, 0, "x"}}},
			func(r Result) bool { return r.OK() && r.Acked == 4 }},
		{"lost", History{Acked: append(acked, Entry{1, 1, "y"}), Final: final()},
			func(r Result) bool {
				return r.Lost == 1 && r.Misplaced == 0 && r.Duplicated == 0 && r.TruncatedSeen == 0
			}},
		{"lost by overwrite", History{Acked: acked, Final: func() map[int32]map[uint64]string {
			f := final()
			f[0][2] = "z"
			return f
		}()}, func(r Result) bool { return r.Lost == 1 && !r.OK() }},
		{"duplicate", History{Acked: acked, Final: func() map[int32]map[uint64]string {
			f := final()
			f[0][3] = "b"
			return f
		}()}, func(r Result) bool {
			return r.Duplicated == 1 && r.Lost == 0 && r.Misplaced == 0 && r.TruncatedSeen == 0
		}},
		{"duplicate acknowledged at its second copy", History{Acked: []Entry{{0, 0, "a"}, {0, 3, "b"}}, Final: func() map[int32]map[uint64]string {
			f := final()
			f[0][3] = "b"
			return f
		}()}, func(r Result) bool { return r.Duplicated == 1 && r.Lost == 0 && r.Misplaced == 0 }},
		{"misplaced", History{Acked: []Entry{{0, 0, "a"}, {0, 2, "b"}}, Final: final()},
			func(r Result) bool { return r.Misplaced == 1 && r.Lost == 0 }},
		{"truncated but seen", History{Acked: acked, Final: final(), Seen: []Entry{{0, 1, "b"}, {0, 3, "d"}}},
			func(r Result) bool { return r.TruncatedSeen == 1 && r.Lost == 0 && r.Duplicated == 0 }},
		{"seen then replaced", History{Acked: acked[:2], Final: final(), Seen: []Entry{{0, 2, "old"}}},
			func(r Result) bool { return r.TruncatedSeen == 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(tc.h)
			if !tc.check(r) {
				t.Errorf("Check = %+v", r)
			}
			if tc.name != "clean" && r.OK() {
				t.Errorf("Check passed a history with a fault: %+v", r)
			}
		})
	}
}

func TestCompareReplicas(t *testing.T) {
	a := Replica{Broker: 1, Partition: 0, HW: 3, Records: map[uint64]string{0: "a", 1: "b", 2: "c"}}
	b := Replica{Broker: 2, Partition: 0, HW: 2, Records: map[uint64]string{0: "a", 1: "b", 2: "other"}} // past its HW: allowed
	if d := CompareReplicas([]Replica{a, b}); len(d) != 0 {
		t.Errorf("divergence past a HW reported: %v", d)
	}
	c := Replica{Broker: 3, Partition: 0, HW: 3, Records: map[uint64]string{0: "a", 1: "B", 2: "c"}}
	if d := CompareReplicas([]Replica{a, b, c}); len(d) != 2 {
		t.Errorf("divergence below the HWs: got %v, want 2 reports (1–3 and 2–3 at offset 1)", d)
	}
}
