package isr

import "testing"

// TestGateChapterTable is the chapter's "two errors, not one" table.
func TestGateChapterTable(t *testing.T) {
	tests := []struct {
		situation string
		gate      Gate
		required  uint64
		want      Verdict
	}{
		{"HW has not reached the required offset", Gate{HighWatermark: 3, ISRSize: 2, MinISR: 2}, 5, NotYet},
		{"HW reached, ISR still full", Gate{HighWatermark: 5, ISRSize: 2, MinISR: 2}, 5, Committed},
		{"HW reached, but the ISR shrank after append", Gate{HighWatermark: 5, ISRSize: 1, MinISR: 2}, 5, NotEnoughReplicasAfterAppend},
		// The check order: HW first. Under min ISR but HW below the offset is NotYet.
		{"HW below the offset and ISR under min", Gate{HighWatermark: 3, ISRSize: 1, MinISR: 2}, 5, NotYet},
		{"record at offset 4 needs HW 5 (exclusive)", Gate{HighWatermark: 4, ISRSize: 2, MinISR: 2}, 4 + 1, NotYet},
		{"HW above the offset", Gate{HighWatermark: 9, ISRSize: 3, MinISR: 2}, 5, Committed},
		{"required 0 is committed at once", Gate{HighWatermark: 0, ISRSize: 1, MinISR: 1}, 0, Committed},
	}
	for _, tt := range tests {
		t.Run(tt.situation, func(t *testing.T) {
			if got := tt.gate.Verdict(tt.required); got != tt.want {
				t.Fatalf("%+v.Verdict(%d) = %v, want %v", tt.gate, tt.required, got, tt.want)
			}
		})
	}
}

func TestVerdictString(t *testing.T) {
	for v, want := range map[Verdict]string{
		NotYet:                       "NotYet",
		Committed:                    "Committed",
		NotEnoughReplicasAfterAppend: "NotEnoughReplicasAfterAppend",
		Verdict(7):                   "Verdict(7)",
	} {
		if got := v.String(); got != want {
			t.Errorf("Verdict(%d).String() = %q, want %q", v, got, want)
		}
	}
}

func TestStateGate(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, ISR: []int32{1, 2}, MinISR: 2}, t0)
	if g := s.Gate(7); g != (Gate{HighWatermark: 7, ISRSize: 2, MinISR: 2}) {
		t.Fatalf("Gate(7) = %+v", g)
	}
}
