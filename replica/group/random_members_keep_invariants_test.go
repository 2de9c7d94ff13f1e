package group_test

import (
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

// simMember is one consumer as the randomized test plays it: it joins,
// syncs, heartbeats from a background "thread", commits the partitions it
// owns, leaves, pauses past its session, or restarts (static members). Like
// Kafka's consumer, it joins again or leaves only once its commits in
// flight are answered.
type simMember struct {
	name, instance string
	id             string
	gen            int32
	state          string // out, joining, syncing, stable, paused
	ref            uint64
	rejoin         bool
	owned          []int32
	pos            map[int32]int64
	inflight       map[uint64]map[int32]int64
	lastBeat       int64
	pauseUntil     int64
}

const simPartitions = 6

// TestRandomMembersKeepOnePartitionOwnerPerGenerationAndOffsetsNeverGoBack
// drives many members through joins, syncs, heartbeats, leaves, pauses past
// the session, static restarts and commits, with the high watermark lagging
// at random, and checks after every step that (1) every member is handed
// exactly the bytes the generation's one leader assigned it, so no
// partition has two owners in a generation, and (2) a committed offset, as
// OffsetFetch shows it, never goes backwards except by an acknowledged
// reset, and an acknowledged commit is visible at once.
func TestRandomMembersKeepOnePartitionOwnerPerGenerationAndOffsetsNeverGoBack(t *testing.T) {
	for seed := int64(1); seed <= 12; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) { runMembers(t, seed, 1500) })
	}
}

func runMembers(t *testing.T, seed int64, steps int) {
	rng := rand.New(rand.NewSource(seed))
	cfg := group.DefaultConfig()
	cfg.MemberIDSeed = uint64(seed)
	h := newHarness(t, cfg)
	step := 0
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d, step %d: %s", seed, step, fmt.Sprintf(format, args...))
	}
	var sims []*simMember
	for i := 0; i < 7; i++ {
		s := &simMember{name: fmt.Sprintf("m%d", i), state: "out", inflight: map[uint64]map[int32]int64{}}
		if i%3 == 0 {
			s.instance = "pod-" + s.name
		}
		sims = append(sims, s)
	}
	leaderOf := map[int32]string{}            // generation -> the member that assigned it
	assigned := map[int32]map[string][]byte{} // generation -> member -> bytes
	ownerOf := map[int32]map[int32]string{}   // generation -> partition -> member
	seen := map[int32]int64{}                 // partition -> last offset OffsetFetch showed
	resetOK := map[int32]bool{}               // partition -> an acknowledged reset allows going back
	var resetRef uint64
	instanceOf := map[string]string{} // member id -> group.instance.id
	failovers := 0

	// Answers the old coordinator released before a failover may name a
	// generation the log never recorded, which the new one reuses: the
	// model learns nothing from them (the member's next request meets the
	// new coordinator, which must refuse it).
	epoch, lastLoadedGen := 0, int32(0)
	refEpoch := map[uint64]int{}
	join := func(s *simMember) {
		s.state, s.rejoin = "joining", false
		defer func() { refEpoch[s.ref] = epoch }()
		s.ref = h.join(group.JoinGroupRequest{Group: "g", MemberID: s.id, GroupInstanceID: s.instance, ClientID: s.name,
			RequireKnownMemberID: true, Protocols: []group.Protocol{{Name: "range", Metadata: subscription("t")}}})
	}
	out := func(s *simMember, forgetID bool) {
		s.state, s.owned = "out", nil
		if forgetID {
			s.id = ""
		}
	}
	heartbeat := func(s *simMember) {
		s.lastBeat = h.now
		err := h.c.Heartbeat(h.now, group.HeartbeatRequest{Group: "g", Generation: s.gen, MemberID: s.id, GroupInstanceID: s.instance})
		switch {
		case err == nil:
		case errors.Is(err, wire.ErrRebalanceInProgress), errors.Is(err, wire.ErrIllegalGeneration):
			s.rejoin = true
		case errors.Is(err, wire.ErrUnknownMemberID), errors.Is(err, wire.ErrFencedInstanceID):
			s.rejoin = true
			s.id = ""
		default:
			fail("%s heartbeat: %v", s.name, err)
		}
	}
	checkOffsets := func() {
		resp := h.c.OffsetFetch(group.OffsetFetchRequest{Group: "g"})
		for _, f := range resp.Partitions {
			if f.Offset < seen[f.Partition] && !resetOK[f.Partition] {
				fail("partition %d's committed offset went back from %d to %d", f.Partition, seen[f.Partition], f.Offset)
			}
			seen[f.Partition] = f.Offset
			resetOK[f.Partition] = false
		}
	}

	for step = 0; step < steps; step++ {
		h.holdCommits = rng.Intn(10) < 3
		// Answers.
		for _, s := range sims {
			for ref, offs := range s.inflight {
				a, ok := h.answers[ref].(group.OffsetCommitResponse)
				if !ok {
					continue
				}
				delete(s.inflight, ref)
				for _, p := range a.Partitions {
					if p.Err != nil {
						continue
					}
					if f := fetchOne(h, "g", "t", p.Partition); f.Offset < offs[p.Partition] {
						fail("%s's commit of %d to partition %d is acknowledged but OffsetFetch shows %d", s.name, offs[p.Partition], p.Partition, f.Offset)
					}
				}
			}
			switch s.state {
			case "joining":
				a, ok := h.answers[s.ref].(group.JoinGroupResponse)
				if !ok {
					continue
				}
				switch {
				case errors.Is(a.Err, wire.ErrMemberIDRequired):
					s.id = a.MemberID
					join(s)
				case errors.Is(a.Err, wire.ErrUnknownMemberID), errors.Is(a.Err, wire.ErrFencedInstanceID):
					out(s, true)
				case a.Err != nil:
					out(s, false)
				default:
					stale := refEpoch[s.ref] != epoch && a.Generation > lastLoadedGen
					if _, ok := assigned[a.Generation][a.MemberID]; !ok && s.instance != "" && !stale {
						// KIP-345: a static member joining again in the same
						// generation keeps its instance's assignment under
						// its new id.
						for id, b := range assigned[a.Generation] {
							if instanceOf[id] == s.instance {
								assigned[a.Generation][a.MemberID] = b
								delete(assigned[a.Generation], id)
							}
						}
					}
					instanceOf[a.MemberID] = s.instance
					s.id, s.gen, s.state = a.MemberID, a.Generation, "syncing"
					s.lastBeat = h.now
					req := group.SyncGroupRequest{Group: "g", Generation: a.Generation, MemberID: s.id, GroupInstanceID: s.instance}
					if a.Leader == s.id && !a.SkipAssignment && !stale {
						if other, ok := leaderOf[a.Generation]; ok && other != s.name {
							fail("generation %d has two leaders, %s and %s", a.Generation, other, s.name)
						}
						leaderOf[a.Generation] = s.name
						assigned[a.Generation] = map[string][]byte{}
						for p := int32(0); p < simPartitions; p++ {
							m := a.Members[int(p)%len(a.Members)].MemberID
							assigned[a.Generation][m] = append(assigned[a.Generation][m], []byte(fmt.Sprintf("%d,", p))...)
						}
						for m, b := range assigned[a.Generation] {
							req.Assignments = append(req.Assignments, group.Assignment{MemberID: m, Assignment: b})
						}
					}
					s.ref = h.sync(req)
				}
			case "syncing":
				a, ok := h.answers[s.ref].(group.SyncGroupResponse)
				if !ok {
					continue
				}
				switch {
				case errors.Is(a.Err, wire.ErrUnknownMemberID), errors.Is(a.Err, wire.ErrFencedInstanceID):
					out(s, true)
				case a.Err != nil:
					out(s, false)
				default:
					want, known := assigned[s.gen][s.id]
					if gens, ok := assigned[s.gen]; !ok || (!known && len(a.Assignment) != 0) || string(want) != string(a.Assignment) {
						fail("%s (%s) in generation %d was handed %q, the leader assigned it %q (generation known: %v)", s.name, s.id, s.gen, a.Assignment, want, gens != nil)
					}
					s.owned, s.state = nil, "stable"
					s.pos = map[int32]int64{}
					for _, f := range strings.Split(strings.TrimSuffix(string(a.Assignment), ","), ",") {
						if f == "" {
							continue
						}
						p64, _ := strconv.ParseInt(f, 10, 32)
						p := int32(p64)
						if ownerOf[s.gen] == nil {
							ownerOf[s.gen] = map[int32]string{}
						}
						if o, dup := ownerOf[s.gen][p]; dup && o != s.name {
							fail("partition %d has two owners in generation %d: %s and %s", p, s.gen, o, s.name)
						}
						ownerOf[s.gen][p] = s.name
						s.owned = append(s.owned, p)
						s.pos[p] = max(fetchOne(h, "g", "t", p).Offset, 0)
					}
				}
			}
		}
		if resetRef != 0 {
			if a, ok := h.answers[resetRef].(group.OffsetCommitResponse); ok {
				resetRef = 0
				if a.Partitions[0].Err == nil {
					resetOK[a.Partitions[0].Partition] = true
				}
			}
		}
		// The background threads: heartbeats, rejoins once commits are answered.
		for _, s := range sims {
			if s.state == "paused" && h.now >= s.pauseUntil {
				s.state = "stable"
			}
			if (s.state == "stable" || s.state == "syncing") && h.now-s.lastBeat >= 3000 {
				heartbeat(s)
			}
			if (s.rejoin || s.state == "out") && len(s.inflight) == 0 && s.state != "joining" && s.state != "paused" && rng.Intn(3) == 0 {
				join(s)
			}
		}
		// One random action.
		s := sims[rng.Intn(len(sims))]
		switch r := rng.Intn(100); {
		case r < 45 && s.state == "stable" && !s.rejoin && len(s.owned) > 0:
			p := s.owned[rng.Intn(len(s.owned))]
			s.pos[p] += int64(1 + rng.Intn(10))
			ref := h.commit(group.OffsetCommitRequest{Group: "g", Generation: s.gen, MemberID: s.id, GroupInstanceID: s.instance,
				Partitions: []group.CommitPartition{{Topic: "t", Partition: p, Offset: s.pos[p], LeaderEpoch: -1}}})
			s.inflight[ref] = map[int32]int64{p: s.pos[p]}
		case r < 50 && s.state == "stable" && len(s.inflight) == 0:
			h.c.LeaveGroup(h.now, group.LeaveGroupRequest{Group: "g", Members: []group.LeavingMember{{MemberID: s.id, GroupInstanceID: s.instance}}})
			h.pump()
			out(s, true)
		case r < 55 && s.state == "stable" && len(s.inflight) == 0:
			s.state, s.pauseUntil = "paused", h.now+int64(5000+rng.Intn(20000))
		case r < 58 && s.instance != "" && s.state == "stable" && len(s.inflight) == 0:
			out(s, true) // a static member restarts: same instance id, no member id
			join(s)
		case r < 60 && resetRef == 0:
			// An admin resets a partition; accepted only while the group is Empty.
			resetRef = h.commit(group.OffsetCommitRequest{Group: "g", Generation: -1,
				Partitions: []group.CommitPartition{{Topic: "t", Partition: int32(rng.Intn(simPartitions)), Offset: 0}}})
		}
		h.advance(int64(rng.Intn(1500)))
		if !h.holdCommits {
			h.hw = uint64(len(h.log))
			h.c.Committed(h.hw)
			h.pump()
		}
		if step%250 == 249 {
			// The partition's leadership moves: the new leader's log is the
			// committed prefix, the old coordinator unloads, the new one
			// loads it. Generations the log never recorded may be reused.
			h.log = h.log[:h.hw]
			next := group.New(group.Config{MinSessionTimeoutMs: cfg.MinSessionTimeoutMs, MaxSessionTimeoutMs: cfg.MaxSessionTimeoutMs,
				InitialRebalanceDelayMs: cfg.InitialRebalanceDelayMs, MaxGroupSize: cfg.MaxGroupSize, MaxMetadataBytes: cfg.MaxMetadataBytes,
				MemberIDSeed: uint64(seed)*7919 + uint64(step)})
			next.BeginLoad()
			if err := next.Load(h.log...); err != nil {
				fail("load: %v", err)
			}
			next.Loaded(h.now)
			h.c.Unload()
			h.pump()
			h.c = next
			loadedGen := int32(0)
			for _, rec := range h.log {
				if k, ok, _ := group.DecodeKey(rec.Key); ok && k.IsGroup && k.Group == "g" && rec.Value != nil {
					v, err := group.DecodeGroupValue(rec.Value)
					if err != nil {
						fail("group record: %v", err)
					}
					loadedGen = v.Generation
				}
			}
			for gen := range leaderOf {
				if gen > loadedGen {
					delete(leaderOf, gen)
					delete(assigned, gen)
					delete(ownerOf, gen)
				}
			}
			failovers++
			epoch++
			lastLoadedGen = loadedGen
		}
		checkOffsets()
	}
	t.Logf("seed %d: %d generations assigned, %d records in the log, %d partitions with offsets, %d failovers", seed, len(leaderOf), len(h.log), len(seen), failovers)
	if len(leaderOf) < 5 {
		fail("only %d generations were assigned: the test did not exercise rebalances", len(leaderOf))
	}
}
