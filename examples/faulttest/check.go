package faulttest

import (
	"fmt"
	"slices"
	"sort"
)

// Entry is one record at one offset of one partition.
type Entry struct {
	Partition int32  // the partition the record is in
	Offset    uint64 // its offset there
	Value     string // its value, unique in a run
}

// History is what a run observed, as the checker takes it.
type History struct {
	// Acked is every record the producer had acknowledged: where the
	// leader said it landed.
	Acked []Entry
	// Final is each partition's whole log as read from its final leader
	// from offset 0, offset → value.
	Final map[int32]map[uint64]string
	// Seen is every record any consumer was handed during the run.
	Seen []Entry
}

// Result is what the checker found. OK means nothing at all.
type Result struct {
	Acked int // acknowledged records
	Lost  int // acknowledged, absent from the final log
	// Misplaced counts acknowledged records present in the final log,
	// but not at the acknowledged offset. (A non-idempotent retry may
	// write a record twice and be acknowledged at either copy: that is a
	// duplicate, not a misplacement.)
	Misplaced  int
	Duplicated int // values found at more than one offset of the final logs
	// TruncatedSeen counts consumer observations the final log does not
	// hold at that offset: a consumer saw a record that was later cut.
	TruncatedSeen int
	// Problems describes the first few of each, for the test log.
	Problems []string
}

// OK reports whether the history is clean.
func (r Result) OK() bool {
	return r.Lost == 0 && r.Misplaced == 0 && r.Duplicated == 0 && r.TruncatedSeen == 0
}

const maxProblems = 20

func (r *Result) problem(format string, args ...any) {
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// Check checks a history:
//   - every acknowledged record is in the final log exactly once, at its
//     acknowledged offset (Lost, Misplaced);
//   - no value appears at two offsets of the final logs (Duplicated; values
//     are unique by construction, so any repeat is a duplicate write);
//   - every (offset, value) a consumer saw is in the final log at that
//     offset (TruncatedSeen).
func Check(h History) Result {
	r := Result{Acked: len(h.Acked)}
	where := map[string][]Entry{} // value → every place it is in the final logs
	parts := make([]int32, 0, len(h.Final))
	for p := range h.Final {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	for _, p := range parts {
		offs := make([]uint64, 0, len(h.Final[p]))
		for off := range h.Final[p] {
			offs = append(offs, off)
		}
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
		for _, off := range offs {
			v := h.Final[p][off]
			where[v] = append(where[v], Entry{p, off, v})
		}
	}
	for v, es := range where {
		if len(es) > 1 {
			r.Duplicated += len(es) - 1
			r.problem("duplicated: %q at %v", v, es)
		}
	}
	for _, a := range h.Acked {
		es := where[a.Value]
		switch {
		case len(es) == 0:
			r.Lost++
			r.problem("lost: %q acknowledged at %d@%d is not in the final log (there: %q)", a.Value, a.Partition, a.Offset, h.Final[a.Partition][a.Offset])
		case !slices.Contains(es, a):
			r.Misplaced++
			r.problem("misplaced: %q acknowledged at %d@%d is at %v", a.Value, a.Partition, a.Offset, es)
		}
	}
	for _, s := range h.Seen {
		got, ok := h.Final[s.Partition][s.Offset]
		if !ok || got != s.Value {
			r.TruncatedSeen++
			r.problem("truncated but seen: a consumer saw %q at %d@%d; the final log has %q (present %v)", s.Value, s.Partition, s.Offset, got, ok)
		}
	}
	return r
}

// Replica is one broker's copy of one partition, up to its checkpointed
// high watermark.
type Replica struct {
	Broker    int               // the broker holding this copy
	Partition int32             // the partition it is a copy of
	HW        uint64            // its checkpointed high watermark
	Records   map[uint64]string // its values by offset
}

// CompareReplicas reports every offset below both high watermarks at
// which two replicas of a partition hold different records (or one holds
// one and the other none).
func CompareReplicas(rs []Replica) []string {
	var out []string
	for i := range rs {
		for j := i + 1; j < len(rs); j++ {
			a, b := rs[i], rs[j]
			if a.Partition != b.Partition {
				continue
			}
			hw := min(a.HW, b.HW)
			for off := uint64(0); off < hw; off++ {
				va, oka := a.Records[off]
				vb, okb := b.Records[off]
				if oka != okb || va != vb {
					out = append(out, fmt.Sprintf("partition %d offset %d (below both HWs %d, %d): broker %d has %q (%v), broker %d has %q (%v)",
						a.Partition, off, a.HW, b.HW, a.Broker, va, oka, b.Broker, vb, okb))
					if len(out) >= maxProblems {
						return out
					}
				}
			}
		}
	}
	return out
}
