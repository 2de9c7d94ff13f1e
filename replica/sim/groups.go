package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/internal/mutation"
	"github.com/kaenlog/kaenlog/wire"
)

// The consumer group steps (Config.Groups): members of one group on the
// coordinator the brokers host, and the two invariants they are held to.
// The package documentation ("Consumer groups") tells the rules.

const (
	// groupID is the simulated group, groupTopic the topic its members
	// consume, in groupPartitions partitions: the coordinator does not
	// check that the topic exists (Kafka's does not either), and the
	// members commit offsets the simulator picks.
	groupID         = "sim-group"
	groupTopic      = "events"
	groupPartitions = 6
	// groupMembers is how many consumers take part.
	groupMembers = 3
	// firstMemberClient is the client number of member 0.
	firstMemberClient = 100
	// memberSessionMs is every member's session and rebalance timeout,
	// memberHeartbeatMs how often a member heartbeats (Kafka's default
	// heartbeat.interval.ms).
	memberSessionMs   = 10_000
	memberHeartbeatMs = 3_000
	// memberRetryBackoffMs is how long a member waits before it asks
	// for the coordinator again when none was found (Kafka's
	// retry.backoff.ms).
	memberRetryBackoffMs = 100
	// memberGiveUpMs is how long a member waits for an answer before it
	// gives the request up and finds the coordinator again: longer than
	// any delay a link draws and than the coordinator's commit timeout, so
	// that a request given up has arrived, or never will, before the
	// member sends its next.
	memberGiveUpMs = 15_000
	// groupShare is the percentage of the steps drawn from the group
	// mix (drawGroup), the rest from the regular one.
	groupShare = 85
)

// groupState is the simulated members and what the invariants remember.
type groupState struct {
	members [groupMembers]*simMember
	// next is the offset the next commit of each partition carries: the
	// simulated consumers only move forward, whoever owns the partition,
	// so that an offset can only go back if a commit is lost.
	next [groupPartitions]int64
	// floor is, by partition, the highest offset the coordinator
	// acknowledged: committed (OffsetCommit answered NONE) or answered to
	// an OffsetFetch by the coordinator the controller names.
	floor [groupPartitions]offsetFloor
	// owners are the members each generation's SyncGroup answers gave
	// each partition.
	owners map[int32]map[int32]string
	// judged records, by correlation id, whether an OffsetFetch reached
	// the broker the controller names as the leader of the group's
	// __consumer_offsets partition, leading at the controller's epoch, and
	// loaded: only its answers are held to CommittedOffsetKept, since a
	// deposed coordinator that has not heard yet answers from its old
	// state, as Kafka's does.
	judged map[int32]bool
	// committed holds, for each judged OffsetFetch, the offsets the
	// records below the high watermark of its coordinator's partition
	// committed, by partition, as they were when it arrived.
	committed map[int32]map[int32]map[int64]bool
	// floorAt holds, for each judged OffsetFetch, the floors when it
	// arrived: its answer is the coordinator's state then, and an
	// acknowledgement that reached the member later must not be held
	// against it.
	floorAt map[int32][groupPartitions]int64
}

// noFloor marks a partition with no offset acknowledged (or its last one
// excused) in floors.
const noFloor = math.MinInt64

// floors returns the offsets the invariant holds each partition to now.
func (g *groupState) floors() [groupPartitions]int64 {
	var out [groupPartitions]int64
	for p, f := range g.floor {
		out[p] = noFloor
		if f.set && !f.excused {
			out[p] = f.offset
		}
	}
	return out
}

// offsetFloor is an offset the coordinator acknowledged and the brokers
// that held it then (the ISR of its partition).
type offsetFloor struct {
	offset  int64
	holders map[int32]bool
	excused bool
	set     bool
}

// simMember is one consumer: at most one request in flight (its join,
// sync, commit, fetch or leave), and a heartbeat beside it, as a Kafka
// consumer's background thread sends.
type simMember struct {
	client int32
	coord  int32 // the coordinator it talks to, -1 until it finds one
	id     string
	gen    int32
	state  memberState
	// join is the JoinGroup answer a joined member syncs with.
	join  group.JoinGroupResponse
	owned []int32
	// rejoin asks for a JoinGroup as soon as nothing is in flight: the
	// coordinator said the group rebalances.
	rejoin bool
	call   *replica.GroupCall
	corr   int32 // call's correlation id
	kind   Kind  // the step kind of call
	sentMs int64
	// commit is what call commits, by partition.
	commit     map[int32]int64
	beat       *replica.GroupCall
	beatSentMs int64
	lastBeatMs int64
	pausedTill int64
	// retryAtMs ends the backoff after a coordinator that was not found
	// (Kafka's retry.backoff.ms).
	retryAtMs int64
}

type memberState uint8

const (
	memberOut    memberState = iota // not in the group
	memberJoined                    // joined a generation, not yet synced
	memberStable                    // synced: owns its assignment
)

func newGroupState() *groupState {
	g := &groupState{owners: map[int32]map[int32]string{}, judged: map[int32]bool{},
		committed: map[int32]map[int32]map[int64]bool{}, floorAt: map[int32][groupPartitions]int64{}}
	for i := range g.members {
		g.members[i] = &simMember{client: firstMemberClient + int32(i), coord: -1, gen: -1}
	}
	return g
}

// offsetsPartition is the __consumer_offsets partition of the group.
var offsetsPartition = replica.TopicPartition{Topic: replica.OffsetsTopic, Partition: 0}

// openGroups creates __consumer_offsets, as the first FindCoordinator
// does, and starts watching the OffsetFetch requests.
func (s *sim) openGroups() error {
	c := s.c
	err := c.Await(func() bool {
		if c.LeaderOf(offsetsPartition) >= 0 {
			return true
		}
		if _, err := c.Call(replica.BrokerAt(s.brokers[0]), &replica.GroupRequest{CorrelationID: c.NextCorrelation(),
			Body: replica.FindCoordinatorRequest{Groups: []string{groupID}}}, 1_000); err != nil {
			return false
		}
		return c.LeaderOf(offsetsPartition) >= 0
	}, 30_000)
	if err != nil {
		return fmt.Errorf("sim: %s was not created: %w", replica.OffsetsTopic, err)
	}
	s.groups = newGroupState()
	s.cov.GroupRuns++
	c.Watch(func(env replica.Envelope) {
		m, ok := env.Msg.(*replica.GroupRequest)
		if !ok || env.Response || env.To.Kind != replica.BrokerAddr {
			return
		}
		if _, ok := m.Body.(replica.OffsetFetchRequest); ok {
			// A copy the network doubled is judged too: the answer read
			// may be either's.
			a := s.authoritative(env.To.ID)
			if prev, seen := s.groups.judged[m.CorrelationID]; seen {
				a = a && prev
			}
			s.groups.judged[m.CorrelationID] = a
			if a {
				s.groups.committed[m.CorrelationID] = s.committedOffsets(env.To.ID)
				s.groups.floorAt[m.CorrelationID] = s.groups.floors()
			}
		}
	})
	return nil
}

// authoritative reports whether broker id is the coordinator the controller
// names: the leader of the group's partition at the controller's epoch.
func (s *sim) authoritative(id int32) bool {
	p, ok := s.c.Controller().Image().Partition(offsetsPartition.Topic, offsetsPartition.Partition)
	if !ok || p.Leader != id {
		return false
	}
	r, ok := s.c.Replica(id, offsetsPartition)
	return ok && r.Role() == replica.RoleLeader && r.LeaderEpoch() == p.LeaderEpoch
}

// drawGroup draws a group step: mostly a member's next move, as its state
// suggests, sometimes a fault aimed at the coordinator.
func (s *sim) drawGroup() Step {
	r := s.rand
	coord := s.c.LeaderOf(offsetsPartition)
	var down []int32
	for _, id := range s.brokers {
		if s.c.Broker(id) == nil {
			down = append(down, id)
		}
	}
	if p, ok := s.c.Controller().Image().Partition(offsetsPartition.Topic, offsetsPartition.Partition); ok && p.Leader < 0 && r.IntN(4) == 0 &&
		!slices.ContainsFunc(p.Replicas, func(id int32) bool { return s.c.Broker(id) == nil }) {
		// Crashes that were not clean shutdowns can leave no replica
		// KIP-966 lets lead, even once all are back: an operator elects
		// one uncleanly.
		return Step{Kind: Elect, Unclean: true, Offsets: true}
	}
	switch w := r.IntN(100); {
	case w < 8 && len(down) > 0:
		// Brokers come back: a group needs its partition's ISR.
		return Step{Kind: Restart, Broker: down[r.IntN(len(down))]}
	case w < 12 && coord >= 0:
		mode := vfs.KeepUnsynced
		if r.IntN(4) == 0 {
			mode = vfs.LoseUnsynced
		}
		return Step{Kind: Crash, Broker: coord, Mode: mode}
	case w < 27:
		return Step{Kind: FetchRound}
	case w < 37:
		return Step{Kind: Advance, Ms: [...]int64{1, 100, 500, 2_000, 6_500, 12_000}[r.IntN(6)]}
	case w < 40:
		return Step{Kind: Heal}
	case w < 44 && coord >= 0:
		other := replica.ControllerAt()
		if i := r.IntN(len(s.brokers) + 1); i < len(s.brokers) && s.brokers[i] != coord {
			other = replica.BrokerAt(s.brokers[i])
		}
		return Step{Kind: Cut, Node: replica.BrokerAt(coord), Other: other}
	}
	i := r.IntN(groupMembers)
	m := s.groups.members[i]
	switch m.state {
	case memberOut:
		if r.IntN(4) == 0 {
			return Step{Kind: FetchOffsets, Member: i}
		}
		return Step{Kind: Join, Member: i}
	case memberJoined:
		if r.IntN(10) == 0 {
			return Step{Kind: Leave, Member: i}
		}
		return Step{Kind: FetchOffsets, Member: i}
	}
	switch w := r.IntN(100); {
	case w < 50:
		return Step{Kind: Commit, Member: i}
	case w < 75:
		return Step{Kind: FetchOffsets, Member: i}
	case w < 85:
		return Step{Kind: Heartbeat, Member: i}
	case w < 92:
		return Step{Kind: Pause, Member: i}
	}
	return Step{Kind: Leave, Member: i}
}

// member executes a member's step. Everything it does follows from the
// step and the run's state, so that Replay does the same.
func (s *sim) member(st Step) {
	g := s.groups
	if g == nil || st.Member < 0 || st.Member >= groupMembers {
		return
	}
	m := g.members[st.Member]
	now := s.c.NowMs()
	if now < m.pausedTill || m.call != nil || now < m.retryAtMs {
		return // paused, waiting for an answer, or backing off
	}
	if m.coord < 0 || s.c.Broker(m.coord) == nil {
		s.findCoordinator(m)
		return
	}
	switch st.Kind {
	case Join:
		if m.state == memberOut {
			s.sendJoin(m)
		}
	case Heartbeat:
		if m.state == memberStable && m.beat == nil {
			s.sendHeartbeat(m)
		}
	case Commit:
		if m.state == memberStable && len(m.owned) > 0 {
			s.sendCommit(m)
		}
	case FetchOffsets:
		parts := make([]group.TopicPartition, groupPartitions)
		for p := range parts {
			parts[p] = group.TopicPartition{Topic: groupTopic, Partition: int32(p)}
		}
		s.send(m, FetchOffsets, replica.OffsetFetchRequest{Groups: []group.OffsetFetchRequest{{Group: groupID, Partitions: parts}}})
	case Leave:
		if m.id != "" {
			// A consumer that closes leaves at once, without waiting for
			// the answer (Kafka's maybeLeaveGroup).
			s.send(m, Leave, group.LeaveGroupRequest{Group: groupID, Members: []group.LeavingMember{{MemberID: m.id}}})
			m.id, m.gen, m.state, m.owned, m.rejoin = "", -1, memberOut, nil, false
		}
	case Pause:
		if m.state == memberStable {
			// The consumer stops (a long GC, a stuck poll loop) past its
			// session: the coordinator removes it and rebalances.
			m.pausedTill = now + memberSessionMs + 1_000 + int64(len(s.steps)%5)*1_000
			s.cov.GroupPauses++
		}
	}
}

func (s *sim) send(m *simMember, kind Kind, body any) {
	m.call, m.kind, m.sentMs = s.c.SendGroup(m.client, m.coord, body), kind, s.c.NowMs()
	m.corr = m.call.Correlation()
}

// findCoordinator asks the first running broker from the member's own
// number on.
func (s *sim) findCoordinator(m *simMember) {
	for i := range s.brokers {
		id := s.brokers[(int(m.client)+i)%len(s.brokers)]
		if s.c.Broker(id) != nil {
			m.coord = id
			s.send(m, kindFindCoordinator, replica.FindCoordinatorRequest{Groups: []string{groupID}})
			m.coord = -1
			return
		}
	}
}

// kindFindCoordinator and kindSync mark a member's FindCoordinator or
// SyncGroup in flight: no step sends them alone (a member finds its
// coordinator before any step's request, and syncs on its join's answer).
const (
	kindFindCoordinator = kinds + iota
	kindSync
)

func (s *sim) sendJoin(m *simMember) {
	m.rejoin = false
	s.send(m, Join, group.JoinGroupRequest{Group: groupID, MemberID: m.id, SessionTimeoutMs: memberSessionMs, RebalanceTimeoutMs: memberSessionMs,
		ProtocolType: "consumer", Protocols: []group.Protocol{{Name: "range", Metadata: []byte(groupTopic)}},
		ClientID: fmt.Sprintf("member-%d", m.client-firstMemberClient), RequireKnownMemberID: true})
}

// sendSync sends the member's SyncGroup; the leader's carries the range
// assignment of the group's partitions over the members, by member id.
func (s *sim) sendSync(m *simMember) {
	req := group.SyncGroupRequest{Group: groupID, Generation: m.gen, MemberID: m.id}
	if m.join.Leader == m.id && !m.join.SkipAssignment {
		ids := make([]string, len(m.join.Members))
		for i, jm := range m.join.Members {
			ids[i] = jm.MemberID
		}
		slices.Sort(ids)
		for i, id := range ids {
			// Kafka's RangeAssignor for one topic: each member a run of
			// partitions, the first ones one more.
			n, extra := groupPartitions/len(ids), groupPartitions%len(ids)
			start := i*n + min(i, extra)
			end := start + n
			if i < extra {
				end++
			}
			var b strings.Builder
			for p := start; p < end; p++ {
				fmt.Fprintf(&b, "%d,", p)
			}
			req.Assignments = append(req.Assignments, group.Assignment{MemberID: id, Assignment: []byte(b.String())})
		}
	}
	s.send(m, kindSync, req)
}

func (s *sim) sendHeartbeat(m *simMember) {
	m.beat = s.c.SendGroup(m.client, m.coord, group.HeartbeatRequest{Group: groupID, Generation: m.gen, MemberID: m.id})
	m.beatSentMs, m.lastBeatMs = s.c.NowMs(), s.c.NowMs()
}

// sendCommit commits the next offset of every partition the member owns,
// and gives the commit fetch rounds at this instant while they move
// anything, as sim.produce does.
func (s *sim) sendCommit(m *simMember) {
	req := group.OffsetCommitRequest{Group: groupID, Generation: m.gen, MemberID: m.id}
	m.commit = map[int32]int64{}
	for _, p := range m.owned {
		s.groups.next[p] += 1 + int64(len(s.steps)%7)
		m.commit[p] = s.groups.next[p]
		req.Partitions = append(req.Partitions, group.CommitPartition{Topic: groupTopic, Partition: p, Offset: m.commit[p], LeaderEpoch: -1})
	}
	s.send(m, Commit, req)
	for range 4 {
		if _, ok := m.call.Response(); ok {
			break
		}
		s.c.FetchRound()
	}
}

// advanceWithMembers moves the clock by ms in steps of at most a second,
// the members' background threads (answers, heartbeats, rejoins) running
// between them, as they would while time passes.
func (s *sim) advanceWithMembers(st Step, ms int64) {
	for ms > 0 {
		d := min(ms, 1_000)
		s.c.Advance(d)
		ms -= d
		s.collectGroups(st)
	}
}

// collectGroups reads the members' answers, checks them, and runs their
// background work: heartbeats when due, a rejoin the coordinator asked for,
// requests given up.
func (s *sim) collectGroups(st Step) {
	g := s.groups
	if g == nil {
		return
	}
	now := s.c.NowMs()
	for _, m := range g.members {
		if m.beat != nil {
			if body, ok := m.beat.Response(); ok {
				m.beat = nil
				if hb, ok := body.(replica.HeartbeatResponse); ok {
					s.memberErr(m, hb.Err)
				}
			} else if now-m.beatSentMs >= memberGiveUpMs {
				m.beat = nil
			}
		}
		if m.call != nil {
			if body, ok := m.call.Response(); ok {
				m.call = nil
				s.answered(st, m, body)
			} else if now-m.sentMs >= memberGiveUpMs {
				m.call, m.coord = nil, -1
				if m.kind == Join || m.kind == kindSync {
					m.state, m.rejoin = memberOut, true
				}
			}
		}
		if s.failure != nil || now < m.pausedTill || now < m.retryAtMs {
			continue
		}
		if m.call == nil && (m.rejoin || m.state != memberOut) && (m.coord < 0 || s.c.Broker(m.coord) == nil) {
			s.findCoordinator(m)
			continue
		}
		if m.call == nil && m.rejoin {
			s.sendJoin(m)
		}
		if m.state != memberOut && m.beat == nil && m.coord >= 0 && now-m.lastBeatMs >= memberHeartbeatMs {
			s.sendHeartbeat(m)
		}
	}
}

// memberErr acts on a refusal as Kafka's consumer does: a rebalance or a
// stale generation rejoins with the same id, an unknown or fenced member
// rejoins as a new one, a coordinator that moved or is loading is found
// again.
func (s *sim) memberErr(m *simMember, err error) {
	switch {
	case err == nil:
	case errors.Is(err, wire.ErrRebalanceInProgress), errors.Is(err, wire.ErrIllegalGeneration):
		m.state, m.owned, m.rejoin = memberOut, nil, true
	case errors.Is(err, wire.ErrUnknownMemberID), errors.Is(err, wire.ErrFencedInstanceID):
		m.id, m.gen, m.state, m.owned, m.rejoin = "", -1, memberOut, nil, true
	case errors.Is(err, wire.ErrNotCoordinator), errors.Is(err, wire.ErrCoordinatorNotAvailable), errors.Is(err, wire.ErrCoordinatorLoadInProgress):
		m.coord, m.retryAtMs = -1, s.c.NowMs()+memberRetryBackoffMs
		if m.state == memberJoined {
			m.state, m.rejoin = memberOut, true
		}
	}
}

// answered takes the answer to a member's request.
func (s *sim) answered(st Step, m *simMember, body any) {
	g := s.groups
	switch resp := body.(type) {
	case replica.FindCoordinatorResponse:
		if len(resp.Coordinators) == 1 && resp.Coordinators[0].Err == nil {
			m.coord = resp.Coordinators[0].NodeID
		} else {
			m.retryAtMs = s.c.NowMs() + memberRetryBackoffMs
		}
	case group.JoinGroupResponse:
		switch {
		case errors.Is(resp.Err, wire.ErrMemberIDRequired):
			m.id = resp.MemberID
			s.sendJoin(m) // at once, as Kafka's consumer does
		case resp.Err != nil:
			m.state = memberOut
			s.memberErr(m, resp.Err)
			if m.coord < 0 {
				m.rejoin = true // it tries again once it has found the coordinator
			}
		default:
			m.id, m.gen, m.join, m.state, m.owned = resp.MemberID, resp.Generation, resp, memberJoined, nil
			m.lastBeatMs = s.c.NowMs()
			s.sendSync(m) // at once, as Kafka's consumer does
		}
	case group.SyncGroupResponse:
		if resp.Err != nil {
			m.state = memberOut
			s.memberErr(m, resp.Err)
			m.rejoin = true
			return
		}
		m.state, m.owned = memberStable, nil
		for _, f := range strings.Split(strings.TrimSuffix(string(resp.Assignment), ","), ",") {
			if p, err := strconv.Atoi(f); err == nil && p >= 0 && p < groupPartitions {
				m.owned = append(m.owned, int32(p))
			}
		}
		s.checkOwners(st, m)
	case group.OffsetCommitResponse:
		for _, p := range resp.Partitions {
			if p.Err != nil {
				s.memberErr(m, p.Err)
				continue
			}
			if off, ok := m.commit[p.Partition]; ok && p.Topic == groupTopic {
				s.cov.GroupCommits++
				s.raiseFloor(p.Partition, off)
			}
		}
	case replica.OffsetFetchResponse:
		if len(resp.Groups) == 1 && resp.Groups[0].Err == nil && g.judged[m.corr] {
			s.checkFetched(st, resp.Groups[0].Partitions, g.committed[m.corr], g.floorAt[m.corr])
			delete(g.committed, m.corr)
			delete(g.floorAt, m.corr)
		} else if len(resp.Groups) == 1 {
			s.memberErr(m, resp.Groups[0].Err)
		}
	}
}

// raiseFloor records that the coordinator acknowledged offset off of
// partition p, held by the ISR of the group's partition.
func (s *sim) raiseFloor(p int32, off int64) {
	f := &s.groups.floor[p]
	if f.set && off <= f.offset && !f.excused {
		return
	}
	f.offset, f.set, f.excused, f.holders = off, true, false, map[int32]bool{}
	if pp, ok := s.c.Controller().Image().Partition(offsetsPartition.Topic, offsetsPartition.Partition); ok {
		for _, id := range pp.ISR {
			f.holders[id] = true
		}
	}
}

// checkFetched holds an OffsetFetch answer of the coordinator the
// controller names to CommittedOffsetKept: every offset it answers is one
// a record below its partition's high watermark committed (anything else
// a crash can take back), and none is below what the coordinator
// acknowledged before.
func (s *sim) checkFetched(st Step, fetched []group.FetchedOffset, committed map[int32]map[int64]bool, floors [groupPartitions]int64) {
	s.cov.GroupFetches++
	for _, f := range fetched {
		if f.Topic != groupTopic || f.Partition < 0 || f.Partition >= groupPartitions {
			continue
		}
		s.cov.Checks[CommittedOffsetKept]++
		if f.Offset >= 0 && !committed[f.Partition][f.Offset] {
			s.fail(st, CommittedOffsetKept, "partition %d of %s: coordinator %d answers offset %d, which no record below its high watermark commits",
				f.Partition, groupTopic, s.c.LeaderOf(offsetsPartition), f.Offset)
			return
		}
		if fl := floors[f.Partition]; fl != noFloor && !s.groups.floor[f.Partition].excused {
			s.cov.Checks[CommittedOffsetKept]++
			if f.Offset < fl {
				s.fail(st, CommittedOffsetKept, "partition %d of %s: offset %d was acknowledged, coordinator %d answers %d",
					f.Partition, groupTopic, fl, s.c.LeaderOf(offsetsPartition), f.Offset)
				return
			}
		}
		if f.Offset >= 0 {
			s.raiseFloor(f.Partition, f.Offset)
		}
	}
}

// checkOwners holds a SyncGroup answer to OnePartitionOwner: no partition
// the member was handed has another owner in its generation.
func (s *sim) checkOwners(st Step, m *simMember) {
	g := s.groups
	owners := g.owners[m.gen]
	if owners == nil {
		owners = map[int32]string{}
		g.owners[m.gen] = owners
		s.cov.GroupGenerations++
	}
	for _, p := range m.owned {
		s.cov.Checks[OnePartitionOwner]++
		if o, ok := owners[p]; ok && o != m.id {
			s.fail(st, OnePartitionOwner, "partition %d of %s has two owners in generation %d: %s and %s", p, groupTopic, m.gen, o, m.id)
			return
		}
		owners[p] = m.id
	}
}

// groupPowerCut takes broker id, back from a power cut, out of the holders
// of every acknowledged offset; an offset every holder may have lost this
// way is excused (log.SyncNever does not promise to survive that).
func (s *sim) groupPowerCut(id int32) {
	if s.groups == nil {
		return
	}
	for p := range s.groups.floor {
		f := &s.groups.floor[p]
		if !f.set || f.excused || !f.holders[id] {
			continue
		}
		delete(f.holders, id)
		if len(f.holders) == 0 {
			f.excused = true
			s.cov.GroupExcused++
		}
	}
}

// groupsConfig has the brokers host one __consumer_offsets partition, so
// that every fault of its leader moves the group's coordinator, with
// Kafka's group settings but a short initial rebalance delay, and
// switches on cfg's unsafe coordinator rules.
func groupsConfig(b *replica.BrokerConfig, cfg Config) {
	b.OffsetsTopicPartitions = 1
	b.Groups = group.DefaultConfig()
	b.Groups.InitialRebalanceDelayMs = 500
	mutation.Set(b, mutation.Rules{CommitBeforeReplicated: cfg.CommitBeforeReplicated, LoadBeforeHighWatermark: cfg.LoadBeforeHighWatermark})
}

// electOffsets has the controller elect a leader of the group's
// __consumer_offsets partition, uncleanly: an operator's choice to lose
// what the last ISR held rather than keep the group down. Kafka promises
// nothing across it, and neither do the invariants: what the coordinator
// acknowledged before is forgotten, and the generations with it (a
// coordinator that lost the group's records counts them again).
func (s *sim) electOffsets(st Step) {
	img := s.c.Controller().Image()
	before, _ := img.Partition(offsetsPartition.Topic, offsetsPartition.Partition)
	resp, err := s.c.Call(replica.ControllerAt(), &wire.ElectLeadersRequest{
		CorrelationID: s.c.NextCorrelation(), Topic: offsetsPartition.Topic, Partition: offsetsPartition.Partition, Unclean: st.Unclean,
	}, 1_000)
	// The answer may be lost on a faulty link while the election took
	// place: the controller's image says whether it elected a replica
	// that was neither in the ISR nor in the ELR.
	after, _ := s.c.Controller().Image().Partition(offsetsPartition.Topic, offsetsPartition.Partition)
	unclean := err == nil && resp.(*wire.ElectLeadersResponse).DataMayBeLost ||
		before.Leader < 0 && after.Leader >= 0 && !slices.Contains(before.ISR, after.Leader) && !slices.Contains(before.ELR, after.Leader)
	if !unclean || s.groups == nil {
		return
	}
	s.cov.UncleanElections++
	s.cov.GroupResets++
	for p := range s.groups.floor {
		s.groups.floor[p] = offsetFloor{}
	}
	clear(s.groups.owners)
}

// committedOffsets reads broker id's replica of the group's partition below
// its high watermark: the offsets its commit records carry, by partition.
func (s *sim) committedOffsets(id int32) map[int32]map[int64]bool {
	out := map[int32]map[int64]bool{}
	r, ok := s.c.Replica(id, offsetsPartition)
	if !ok {
		return out
	}
	l, hw := r.Log(), r.HighWatermark()
	buf, err := l.Read(nil, l.StartOffset(), 1<<30, log.IsolationLogEnd)
	if err != nil {
		return out
	}
	var sc log.BatchScanner
	sc.Reset(buf)
	var b log.Batch
	for sc.Next() {
		if sc.Header().RecordCount == 0 || sc.Header().Attributes&log.AttrControl != 0 {
			continue
		}
		if _, err := b.Decode(sc.Bytes()); err != nil {
			return out
		}
		for _, rec := range b.Records {
			if b.BaseOffset+uint64(rec.OffsetDelta) >= hw || rec.Value == nil {
				continue
			}
			k, ok, err := group.DecodeKey(rec.Key)
			if err != nil || !ok || k.IsGroup || k.Group != groupID || k.Topic != groupTopic {
				continue
			}
			v, err := group.DecodeOffsetValue(rec.Value)
			if err != nil {
				continue
			}
			if out[k.Partition] == nil {
				out[k.Partition] = map[int64]bool{}
			}
			out[k.Partition][v.Offset] = true
		}
	}
	return out
}
