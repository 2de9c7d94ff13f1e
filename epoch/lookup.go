package epoch

// Entry says that leader epoch Epoch began at offset StartOffset: the first
// record written under that epoch. A cache holds entries with strictly
// increasing epochs and strictly increasing start offsets.
type Entry struct {
	Epoch       int32  // leader epoch, >= 0 in a cache
	StartOffset uint64 // offset of the epoch's first record
}

// EndOffsetForEpoch answers a follower's OffsetForLeaderEpoch question with
// the chapter's plain `<=` rule (KIP-279): it finds the largest entry epoch
// not above e, and returns that epoch with the offset where it ended — the
// next entry's start offset, or leo if it is the last entry. ok is false when
// no entry has an epoch <= e: for e = -1 (Kafka's UNDEFINED_EPOCH), for e
// below the first entry, and for no entries at all. entries must be in the
// order a Cache keeps them; any other order gets the same rule applied to the
// last matching position, never a panic. It does not allocate.
//
// The chapter's table, entries 0@0, 1@5, 3@6 and LEO 6:
//
//	e:   0      1      2      3      4      -1
//	     (0,5)  (1,6)  (1,6)  (3,6)  (3,6)  not found
//
// Asking for epoch 2, which never existed, yields epoch 1 and its end: that
// is what lets a follower converge on the largest common epoch.
//
// Kafka 4.0's LeaderEpochFileCache.endOffsetFor answers differently at the
// edges (it returns a pair of int32/int64 with -1 meaning undefined):
//
//   - (a) e equal to the latest epoch: (e, logEndOffset) — the same as here.
//   - (b) e below the earliest entry (e != -1): (e, earliest entry's start
//     offset) — the requested epoch echoed back with the first start offset,
//     because older epochs were truncated away from the start and the
//     follower should replicate from where the leader's epochs begin. Here:
//     not found.
//   - (c) e above the latest epoch: (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
//     = (-1, -1), "should never be hit" per its comment. Here: (latest, leo),
//     e.g. 4 -> (3,6) in the table above.
//   - e = -1 or an empty cache: (-1, -1) — the same as not found here.
//
// kaenlog follows the chapter's plain `<=` rule because it is what the course
// teaches and tests, byte for byte, and the rule is total and monotone: one
// sentence explains every row. In memory "not found" is ok=false, never a
// sentinel, because -1 fits neither uint64 nor a meaningful epoch; only the
// wire edge turns it into (-1, -1).
func EndOffsetForEpoch(entries []Entry, e int32, leo uint64) (epoch int32, endOffset uint64, ok bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Epoch > e {
			continue
		}
		end := leo
		if i+1 < len(entries) {
			end = entries[i+1].StartOffset
		}
		return entries[i].Epoch, end, true
	}
	return 0, 0, false
}
