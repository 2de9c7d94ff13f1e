package sim

import (
	"slices"

	"github.com/kaenlog/kaenlog/epoch"
	"github.com/kaenlog/kaenlog/replica"
)

// Invariant names a checked property.
type Invariant uint8

// The invariants, checked after every step.
const (
	TypeOk Invariant = iota
	WeakIsr
	StrongIsr
	LeaderInIsr
	ValidHighWatermark
	AcknowledgedKept
	AgreeBelowHighWatermark
	MonotoneHighWatermark
	MonotoneLeaderEpoch
	SortedEpochCaches
	ConsumerVisibility
	TimersAdvance
	// Operable: the cluster keeps working — brokers start, the controller
	// reopens from its log, logs read back, one offset is acknowledged
	// once.
	Operable
	// Idempotence: a record of the idempotent producer appears at most once
	// in a leader's log.
	Idempotence
	// ProducerOrder: the records the idempotent producer had acknowledged
	// appear in a leader's log in the order they were produced.
	ProducerOrder
	// CommittedOffsetKept: an offset the group coordinator acknowledged
	// (an OffsetCommit answered NONE, or an OffsetFetch answer of the
	// coordinator the controller names) is never answered lower by that
	// coordinator later, across its moves and crashes.
	CommittedOffsetKept
	// OnePartitionOwner: no partition is handed to two members of one
	// generation.
	OnePartitionOwner
	invariants // the number of invariants
)

var invariantNames = [...]string{"TypeOk", "WeakIsr", "StrongIsr", "LeaderInIsr", "ValidHighWatermark",
	"AcknowledgedKept", "AgreeBelowHighWatermark", "MonotoneHighWatermark", "MonotoneLeaderEpoch",
	"SortedEpochCaches", "ConsumerVisibility", "TimersAdvance", "Operable", "Idempotence", "ProducerOrder",
	"CommittedOffsetKept", "OnePartitionOwner"}

// String returns the invariant's name.
func (i Invariant) String() string {
	if i < invariants {
		return invariantNames[i]
	}
	return "Invariant(?)"
}

// member is a replica held to the invariants this step.
type member struct {
	r *replica.Replica
	v logView
}

// check verifies every invariant after step st.
func (s *sim) check(st Step) {
	if s.failure != nil {
		return
	}
	c := s.c
	img := c.Controller().Image()
	p, ok := img.Partition(topic.Topic, topic.Partition)
	if !ok {
		s.fail(st, Operable, "the controller lost the partition")
		return
	}
	members := map[int32]member{}
	for _, id := range s.brokers {
		b := c.Broker(id)
		if b == nil || b.Halted() != nil || b.Epoch() < 0 {
			continue
		}
		if reg, ok := img.Broker(id); !ok || reg.Epoch != b.Epoch() {
			continue // not registered under this incarnation yet
		}
		r, ok := b.Replica(topic)
		if !ok {
			continue
		}
		v, ok := s.logOf(id)
		s.cov.Checks[Operable]++
		if !ok {
			s.fail(st, Operable, "broker %d's log of %v does not read back", id, topic)
			return
		}
		members[id] = member{r: r, v: v}
	}
	ids := make([]int32, 0, len(members))
	for id := range members {
		ids = append(ids, id)
	}
	slices.Sort(ids)

	// TypeOk and the epoch caches.
	for _, id := range ids {
		m := members[id]
		s.cov.Checks[TypeOk]++
		if m.v.start > m.v.hw || m.v.hw > m.v.leo {
			s.fail(st, TypeOk, "broker %d has start %d, HW %d, LEO %d", id, m.v.start, m.v.hw, m.v.leo)
			return
		}
		if !s.sortedCache(st, id, m) {
			return
		}
		if prev, seen := s.epochs[id]; seen && m.r.LeaderEpoch() < prev {
			s.fail(st, MonotoneLeaderEpoch, "broker %d went from leader epoch %d to %d", id, prev, m.r.LeaderEpoch())
			return
		}
		s.epochs[id] = m.r.LeaderEpoch()
		s.cov.Checks[MonotoneLeaderEpoch]++
	}

	// Liveness of the clock: once everything due has run, no node is still
	// due (a node whose next tick stays in the past would spin forever).
	now := c.NowMs()
	for _, id := range s.brokers {
		if b := c.Broker(id); b != nil {
			s.cov.Checks[TimersAdvance]++
			if next := b.NextTickMs(); next <= now {
				s.fail(st, TimersAdvance, "broker %d is still due at %d after the clock ran to %d", id, next, now)
				return
			}
		}
	}
	s.cov.Checks[TimersAdvance]++
	if next := c.Controller().NextTickMs(); next <= now {
		s.fail(st, TimersAdvance, "the controller is still due at %d after the clock ran to %d", next, now)
		return
	}

	// The controller's view.
	if len(p.ISR) < int(s.minISR) {
		s.cov.UnderMinIsr++
	}
	s.cov.Checks[LeaderInIsr]++
	if p.Leader >= 0 && !slices.Contains(p.ISR, p.Leader) {
		s.fail(st, LeaderInIsr, "leader %d is not in the ISR %v", p.Leader, p.ISR)
		return
	}
	s.cov.Checks[MonotoneLeaderEpoch]++
	if p.LeaderEpoch < s.ctlEpoch {
		s.fail(st, MonotoneLeaderEpoch, "the controller went from leader epoch %d to %d", s.ctlEpoch, p.LeaderEpoch)
		return
	}
	if p.LeaderEpoch > s.ctlEpoch && s.ctlEpoch >= 0 {
		s.cov.Elections++
	}
	s.ctlEpoch = p.LeaderEpoch

	// Every replica presuming leadership.
	for _, id := range ids {
		m := members[id]
		if m.r.Role() != replica.RoleLeader {
			continue
		}
		key := leaderEpoch{id, m.r.LeaderEpoch()}
		s.cov.Checks[MonotoneHighWatermark]++
		if m.v.hw < s.hw[key] {
			s.fail(st, MonotoneHighWatermark, "leader %d at epoch %d went from HW %d to %d", id, key.epoch, s.hw[key], m.v.hw)
			return
		}
		s.hw[key] = m.v.hw
		// WeakIsr over the members of the leader's own ISR that the
		// controller still counts: a member that came back from a power cut
		// is out of the controller's ISR from its registration on, and the
		// leader merely has not heard yet (the TLA+ model has no power cuts).
		local := slices.DeleteFunc(m.r.ISR(), func(x int32) bool { return !slices.Contains(p.ISR, x) })
		if !s.isrAgrees(st, WeakIsr, id, m, local, members) {
			return
		}
		if !s.isrAgrees(st, StrongIsr, id, m, p.ISR, members) {
			return
		}
	}

	// The leader the controller names, once it leads at the controller's
	// epoch.
	if l, ok := members[p.Leader]; ok && l.r.Role() == replica.RoleLeader && l.r.LeaderEpoch() == p.LeaderEpoch {
		for _, id := range p.ISR {
			if m, ok := members[id]; ok && id != p.Leader {
				s.cov.Checks[ValidHighWatermark]++
				if m.v.leo < l.v.hw {
					s.fail(st, ValidHighWatermark, "ISR member %d has LEO %d below leader %d's HW %d", id, m.v.leo, p.Leader, l.v.hw)
					return
				}
			}
		}
		// The maps are walked in Go's random order: report the lowest
		// offset that fails, so that a replay fails the same way.
		bad, badOK := uint64(0), false
		for off, rec := range s.acked {
			if rec.excused {
				continue
			}
			s.cov.Checks[AcknowledgedKept]++
			if l.v.at(off) != rec.value && (!badOK || off < bad) {
				bad, badOK = off, true
			}
		}
		if badOK {
			s.fail(st, AcknowledgedKept, "offset %d was acknowledged as %q; leader %d at epoch %d holds %q", bad, s.acked[bad].value, p.Leader, p.LeaderEpoch, l.v.at(bad))
			return
		}
		if !s.checkIdempotence(st, p.Leader, l.v) {
			return
		}
		for off, v := range s.consumed {
			if rec, ok := s.acked[off]; ok && rec.excused {
				continue
			}
			s.cov.Checks[ConsumerVisibility]++
			if l.v.at(off) != v && (!badOK || off < bad) {
				bad, badOK = off, true
			}
		}
		if badOK {
			s.fail(st, ConsumerVisibility, "a consumer read %q at offset %d; leader %d at epoch %d holds %q", s.consumed[bad], bad, p.Leader, p.LeaderEpoch, l.v.at(bad))
			return
		}
	}

	// Any two replicas agree below both their high watermarks.
	for i, a := range ids {
		for _, b := range ids[i+1:] {
			va, vb := members[a].v, members[b].v
			lo, hi := max(va.start, vb.start), min(va.hw, vb.hw)
			s.cov.Checks[AgreeBelowHighWatermark]++
			for off := lo; off < hi; off++ {
				if va.at(off) != vb.at(off) {
					s.fail(st, AgreeBelowHighWatermark, "at offset %d broker %d holds %q, broker %d %q (HWs %d and %d)", off, a, va.at(off), b, vb.at(off), va.hw, vb.hw)
					return
				}
			}
		}
	}
}

// isrAgrees checks that every held member of isr agrees with leader id
// below its high watermark (WeakIsr for the leader's own ISR, StrongIsr for
// the controller's).
func (s *sim) isrAgrees(st Step, inv Invariant, id int32, l member, isr []int32, members map[int32]member) bool {
	for _, mid := range isr {
		m, ok := members[mid]
		if !ok || mid == id {
			continue
		}
		s.cov.Checks[inv]++
		for off := max(l.v.start, m.v.start); off < l.v.hw; off++ {
			if l.v.at(off) != m.v.at(off) {
				s.fail(st, inv, "leader %d (epoch %d, HW %d) holds %q at offset %d, ISR member %d holds %q",
					id, l.r.LeaderEpoch(), l.v.hw, l.v.at(off), off, mid, m.v.at(off))
				return false
			}
		}
	}
	return true
}

// sortedCache checks that broker id's epoch cache is strictly increasing
// and names, for every offset of its log, the epoch stamped in the batch
// that holds it.
func (s *sim) sortedCache(st Step, id int32, m member) bool {
	entries := m.r.Epochs()
	s.cov.Checks[SortedEpochCaches]++
	for i := 1; i < len(entries); i++ {
		if entries[i].Epoch <= entries[i-1].Epoch || entries[i].StartOffset <= entries[i-1].StartOffset {
			s.fail(st, SortedEpochCaches, "broker %d's cache %v is not strictly increasing", id, entries)
			return false
		}
	}
	for off := m.v.start; off < m.v.leo; off++ {
		if e, ok := epochAt(entries, off); !ok || e != m.v.epochs[off] {
			s.fail(st, SortedEpochCaches, "broker %d's cache %v says epoch %d (%v) at offset %d, its log %d",
				id, entries, e, ok, off, m.v.epochs[off])
			return false
		}
	}
	return true
}

// epochAt is the epoch whose range holds off.
func epochAt(entries []epoch.Entry, off uint64) (int32, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].StartOffset <= off {
			return entries[i].Epoch, true
		}
	}
	return 0, false
}
