package group

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/kaenlog/kaenlog/wire"
)

// State is a classic group's state (Kafka's ClassicGroupState).
type State int8

// The classic group states.
const (
	// Empty: no members; the group may still hold offsets.
	Empty State = iota
	// PreparingRebalance: members are joining for the next generation.
	PreparingRebalance
	// CompletingRebalance: the generation is formed; the leader's
	// assignment is awaited (Kafka's old name: AwaitingSync).
	CompletingRebalance
	// Stable: every member has the generation's assignment.
	Stable
	// Dead: the group is being removed.
	Dead
)

// String returns Kafka's name for s, as DescribeGroups and ListGroups
// show it.
func (s State) String() string {
	switch s {
	case Empty:
		return "Empty"
	case PreparingRebalance:
		return "PreparingRebalance"
	case CompletingRebalance:
		return "CompletingRebalance"
	case Stable:
		return "Stable"
	case Dead:
		return "Dead"
	}
	return fmt.Sprintf("State(%d)", int8(s))
}

// NewMemberJoinTimeoutMs bounds how long a new member's first JoinGroup
// may wait in a rebalance (Kafka's group.classic.new.member.join.timeout.ms
// default): its session cannot run while it waits, and a client that gave
// up and joined again would otherwise stay as a defunct member.
const NewMemberJoinTimeoutMs = 5 * 60 * 1000

// Config is a coordinator's configuration. DefaultConfig gives Kafka's
// defaults.
type Config struct {
	// MinSessionTimeoutMs and MaxSessionTimeoutMs bound a member's
	// session timeout (group.min.session.timeout.ms,
	// group.max.session.timeout.ms).
	MinSessionTimeoutMs, MaxSessionTimeoutMs int32
	// InitialRebalanceDelayMs is how long the first rebalance of an Empty
	// group waits for more members (group.initial.rebalance.delay.ms).
	InitialRebalanceDelayMs int64
	// MaxGroupSize is the most members a group may have (group.max.size).
	MaxGroupSize int
	// MaxMetadataBytes bounds a committed offset's metadata
	// (offset.metadata.max.bytes).
	MaxMetadataBytes int
	// MemberIDSeed seeds the suffixes of new member ids. Kafka's are
	// random UUIDs; a host gives each load a seed of its own (for example
	// from the partition's leader epoch and its broker id), and ids that
	// collide with a member the group has are skipped.
	MemberIDSeed uint64
}

// DefaultConfig returns Kafka's defaults: sessions of 6 s to 30 min, a 3 s
// initial rebalance delay, no group size limit, 4096 bytes of metadata.
func DefaultConfig() Config {
	return Config{
		MinSessionTimeoutMs:     6000,
		MaxSessionTimeoutMs:     1800000,
		InitialRebalanceDelayMs: 3000,
		MaxGroupSize:            math.MaxInt32,
		MaxMetadataBytes:        4096,
	}
}

type phase int8

const (
	notCoordinator phase = iota
	loading
	active
)

// Coordinator is the group coordinator of one __consumer_offsets
// partition: the classic groups that hash to it and their offsets. It is a
// state machine: it reads no clock and starts no goroutine; every entry
// point takes the time as nowMs, waiting answers come out of Ready, and
// the host drives timeouts with Tick at NextDeadlineMs. It is not safe for
// concurrent use.
type Coordinator struct {
	cfg    Config
	phase  phase
	groups map[string]*group
	idSeq  uint64

	// loaded is what Load replayed, built into groups by Loaded.
	loadedGroups  map[string]GroupValue
	loadedOffsets map[string]map[TopicPartition]OffsetValue

	nextSeq uint64
	writes  []Write
	pending []*pendingWrite // in Seq order
	out     []Response
}

type pendingWrite struct {
	seq        uint64
	records    []Record
	appended   bool
	lastOffset uint64
	onCommit   func()      // after the records are applied
	onFail     func(error) // err is the coordinator's answer
}

type group struct {
	id             string
	state          State
	protocolType   string
	protocol       string
	generation     int32
	leader         string
	members        []*member // join order
	byID           map[string]*member
	pendingMembers map[string]int64
	static         map[string]string // instance id -> member id
	stateTimeMs    int64
	offsets        map[TopicPartition]OffsetValue

	// PreparingRebalance: the join completes at joinDeadline, or when all
	// have joined unless initialDelay. initialDelay waits delayMs, then
	// again within delayRemainingMs (Kafka's InitialDelayedJoin).
	joinDeadline     int64
	initialDelay     bool
	delayMs          int64
	delayRemainingMs int64
	newMemberAdded   bool

	// Members that have not sent SyncGroup for this generation by
	// syncDeadline are removed (Kafka's pending sync).
	pendingSync  map[string]bool
	syncDeadline int64
}

type member struct {
	id, instanceID     string
	clientID, host     string
	sessionTimeoutMs   int32
	rebalanceTimeoutMs int32
	protocolType       string
	protocols          []Protocol
	assignment         []byte
	isNew              bool
	joinRef, syncRef   uint64
	awaitingJoin       bool
	awaitingSync       bool
	heartbeatDeadline  int64
}

// New returns a coordinator that answers NOT_COORDINATOR until it is
// loaded (BeginLoad, Load, Loaded).
func New(cfg Config) *Coordinator {
	return &Coordinator{cfg: cfg, groups: map[string]*group{}}
}

// PartitionFor returns the __consumer_offsets partition whose leader
// coordinates group, as Kafka computes it:
// Utils.abs(groupId.hashCode()) % groupMetadataTopicPartitionCount, with
// Java's String.hashCode and Utils.abs (which maps Integer.MIN_VALUE to
// 0). partitions is the topic's partition count (Kafka's default 50) and
// must be positive.
func PartitionFor(group string, partitions int32) int32 {
	h := JavaStringHashCode(group)
	if h == math.MinInt32 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return h % partitions
}

// JavaStringHashCode is Java's String.hashCode: s[0]*31^(n-1) + ... +
// s[n-1] in int32 arithmetic over s's UTF-16 code units.
func JavaStringHashCode(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 { // a surrogate pair in Java's UTF-16
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// BeginLoad starts loading: until Loaded, every request is answered
// COORDINATOR_LOAD_IN_PROGRESS. Any state from an earlier load is dropped
// (as by Unload).
func (c *Coordinator) BeginLoad() {
	c.Unload()
	c.phase = loading
	c.loadedGroups = map[string]GroupValue{}
	c.loadedOffsets = map[string]map[TopicPartition]OffsetValue{}
}

// Load replays records of the partition, in offset order: the last value
// of a key wins and a tombstone deletes it, as compaction would leave
// them. Keys of record types kaenlog does not read are skipped. An error
// (matching ErrMalformedRecord) leaves the coordinator loading: the host
// should not serve a partition it cannot read.
func (c *Coordinator) Load(records ...Record) error {
	if c.phase != loading {
		return errors.New("group: Load outside BeginLoad and Loaded")
	}
	for _, rec := range records {
		k, ok, err := DecodeKey(rec.Key)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if k.IsGroup {
			if rec.Value == nil {
				delete(c.loadedGroups, k.Group)
				continue
			}
			v, err := DecodeGroupValue(rec.Value)
			if err != nil {
				return err
			}
			c.loadedGroups[k.Group] = v
			continue
		}
		tp := TopicPartition{k.Topic, k.Partition}
		if rec.Value == nil {
			delete(c.loadedOffsets[k.Group], tp)
			continue
		}
		v, err := DecodeOffsetValue(rec.Value)
		if err != nil {
			return err
		}
		if c.loadedOffsets[k.Group] == nil {
			c.loadedOffsets[k.Group] = map[TopicPartition]OffsetValue{}
		}
		c.loadedOffsets[k.Group][tp] = v
	}
	return nil
}

// Loaded ends loading and starts answering. A group with members comes
// back Stable with its generation and assignments, each member's session
// starting now (as in Kafka's loader); one with offsets only is Empty.
func (c *Coordinator) Loaded(nowMs int64) {
	if c.phase != loading {
		return
	}
	for id, v := range c.loadedGroups {
		g := c.groupOf(id, true)
		g.protocolType, g.protocol, g.leader, g.generation = v.ProtocolType, v.Protocol, v.Leader, v.Generation
		g.stateTimeMs = v.CurrentStateTimestampMs
		for _, mv := range v.Members {
			m := &member{id: mv.MemberID, instanceID: mv.GroupInstanceID, clientID: mv.ClientID, host: mv.ClientHost,
				sessionTimeoutMs: mv.SessionTimeoutMs, rebalanceTimeoutMs: mv.RebalanceTimeoutMs,
				protocolType: v.ProtocolType, protocols: []Protocol{{v.Protocol, mv.Subscription}}, assignment: mv.Assignment,
				heartbeatDeadline: nowMs + int64(mv.SessionTimeoutMs)}
			g.members = append(g.members, m)
			g.byID[m.id] = m
			if m.instanceID != "" {
				g.static[m.instanceID] = m.id
			}
		}
		if len(g.members) > 0 {
			g.state = Stable
		}
	}
	for id, offs := range c.loadedOffsets {
		if len(offs) == 0 && c.groups[id] == nil {
			continue // every offset was tombstoned
		}
		g := c.groupOf(id, true)
		for tp, v := range offs {
			g.offsets[tp] = v
		}
	}
	c.loadedGroups, c.loadedOffsets = nil, nil
	c.phase = active
}

// Unload stops coordinating: the partition's leadership moved. Every
// waiting answer is released with NOT_COORDINATOR, writes not yet
// committed are forgotten (their answers say NOT_COORDINATOR, not
// success), and from now on every request is answered NOT_COORDINATOR.
func (c *Coordinator) Unload() {
	for _, id := range c.groupIDs() {
		g := c.groups[id]
		for _, m := range g.members {
			c.answerJoinErr(m, wire.ErrNotCoordinator)
			c.answerSyncErr(m, wire.ErrNotCoordinator)
		}
	}
	for _, p := range c.pending {
		p.onFail(wire.ErrNotCoordinator)
	}
	c.pending, c.writes = nil, nil
	c.groups = map[string]*group{}
	c.loadedGroups, c.loadedOffsets = nil, nil
	c.phase = notCoordinator
}

// Ready drains the writes to append and the answers to send.
func (c *Coordinator) Ready() Ready {
	r := Ready{Writes: c.writes, Responses: c.out}
	c.writes, c.out = nil, nil
	return r
}

// Appended reports that write seq was appended with its last record at
// lastOffset. Its answers wait for Committed.
func (c *Coordinator) Appended(seq, lastOffset uint64) {
	for _, p := range c.pending {
		if p.seq == seq {
			p.appended, p.lastOffset = true, lastOffset
		}
	}
}

// AppendFailed reports that write seq was not appended, or was not
// committed (acks=all failed): its answers carry the error Kafka's
// coordinator maps err to. A write never appended is not applied. One
// reported Appended is on the log all the same (a leader's log is never
// truncated: losing the leadership calls Unload) and commits if the high
// watermark passes it, and the next leader replays it; its offsets are
// then applied as any committed write's, as Kafka's coordinator runtime
// keeps a timed-out write's state — else a later DeleteGroups or
// OffsetDelete, not knowing them, writes no tombstone for them and they
// come back at the next load.
func (c *Coordinator) AppendFailed(seq uint64, err error) {
	for i, p := range c.pending {
		if p.seq == seq {
			onFail := p.onFail
			if p.appended {
				p.onCommit, p.onFail = func() {}, func(error) {}
			} else {
				c.pending = slices.Delete(c.pending, i, i+1)
			}
			onFail(err)
			return
		}
	}
}

// Committed reports the partition's high watermark: every appended write
// whose last offset is below hw is committed. Its offsets become visible
// to OffsetFetch and its answers are released, in write order.
func (c *Coordinator) Committed(hw uint64) {
	for len(c.pending) > 0 {
		p := c.pending[0]
		if !p.appended || p.lastOffset >= hw {
			return
		}
		c.pending = c.pending[1:]
		for _, rec := range p.records {
			c.applyOffsetRecord(rec)
		}
		p.onCommit()
	}
}

// checkRecord decodes rec as a load would.
func checkRecord(rec Record) error {
	k, ok, err := DecodeKey(rec.Key)
	switch {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("%w: a key of a version kaenlog does not write", ErrMalformedRecord)
	case rec.Value == nil:
		return nil
	case k.IsGroup:
		_, err = DecodeGroupValue(rec.Value)
	default:
		_, err = DecodeOffsetValue(rec.Value)
	}
	return err
}

// applyOffsetRecord applies a committed offset record (a commit or a
// tombstone) to the offsets cache; group records were applied when
// written.
func (c *Coordinator) applyOffsetRecord(rec Record) {
	k, ok, err := DecodeKey(rec.Key)
	if err != nil || !ok || k.IsGroup {
		return
	}
	tp := TopicPartition{k.Topic, k.Partition}
	if rec.Value == nil {
		if g := c.groups[k.Group]; g != nil {
			delete(g.offsets, tp)
		}
		return
	}
	v, err := DecodeOffsetValue(rec.Value)
	if err != nil {
		return
	}
	c.groupOf(k.Group, true).offsets[tp] = v
}

// maxRecordString is the longest string a record holds: Kafka's record
// strings have an int16 length, where a flexible request's compact
// strings have none.
const maxRecordString = math.MaxInt16

// write queues records; their answers run at commit or failure. A record
// the loader could not read (a string longer than maxRecordString) is
// never written: the partition would never load again, for any of its
// groups. The write fails at once instead, as Kafka's record serializer
// fails (UNKNOWN_SERVER_ERROR).
func (c *Coordinator) write(records []Record, onCommit func(), onFail func(error)) {
	for _, rec := range records {
		if err := checkRecord(rec); err != nil {
			onFail(fmt.Errorf("group: a record the loader could not read: %w", err))
			return
		}
	}
	c.nextSeq++
	c.writes = append(c.writes, Write{Seq: c.nextSeq, Records: records})
	c.pending = append(c.pending, &pendingWrite{seq: c.nextSeq, records: records, onCommit: onCommit, onFail: onFail})
}

// phaseErr is the refusal of every request while not active.
func (c *Coordinator) phaseErr() error {
	switch c.phase {
	case notCoordinator:
		return wire.ErrNotCoordinator
	case loading:
		return wire.ErrCoordinatorLoadInProgress
	}
	return nil
}

// storeErr maps a failed write of group metadata to the answer, as
// Kafka's GroupMetadataManager.storeGroup does.
func storeErr(err error) error {
	switch {
	case errors.Is(err, wire.ErrNotCoordinator) || errors.Is(err, wire.ErrNotLeaderOrFollower) || errors.Is(err, wire.ErrKafkaStorageError):
		return wire.ErrNotCoordinator
	case errors.Is(err, wire.ErrUnknownTopicOrPartition) || errors.Is(err, wire.ErrNotEnoughReplicas) ||
		errors.Is(err, wire.ErrNotEnoughReplicasAfterAppend) || errors.Is(err, wire.ErrRequestTimedOut):
		return wire.ErrCoordinatorNotAvailable
	}
	return wire.ErrUnknownServerError
}

// commitErr maps a failed write of offsets, as Kafka's storeOffsets does:
// like storeErr, but a batch too large is INVALID_COMMIT_OFFSET_SIZE.
func commitErr(err error) error {
	if errors.Is(err, wire.ErrMessageTooLarge) {
		return wire.ErrInvalidCommitOffsetSize
	}
	return storeErr(err)
}

func (c *Coordinator) groupOf(id string, create bool) *group {
	g := c.groups[id]
	if g == nil && create {
		g = &group{id: id, pendingMembers: map[string]int64{}, static: map[string]string{}, byID: map[string]*member{},
			offsets: map[TopicPartition]OffsetValue{}, pendingSync: map[string]bool{}}
		c.groups[id] = g
	}
	return g
}

func (c *Coordinator) groupIDs() []string {
	ids := make([]string, 0, len(c.groups))
	for id := range c.groups {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// get returns the member with id, nil for none (by the index: a group
// may have many members, and every request names one).
func (g *group) get(id string) *member { return g.byID[id] }

// validateMember is Kafka's ClassicGroup.validateMember: an instance id
// the group does not map is unknown, one another member id holds is
// fenced; an unknown member id is unknown.
func (g *group) validateMember(memberID, instanceID string) (*member, error) {
	if instanceID != "" {
		holder, ok := g.static[instanceID]
		if !ok {
			return nil, wire.ErrUnknownMemberID
		}
		if holder != memberID {
			return nil, wire.ErrFencedInstanceID
		}
	}
	m := g.get(memberID)
	if m == nil {
		return nil, wire.ErrUnknownMemberID
	}
	return m, nil
}

func (g *group) transition(s State, nowMs int64) {
	g.state, g.stateTimeMs = s, nowMs
}

// rebalanceTimeoutMs is the longest of the members' rebalance timeouts.
func (g *group) rebalanceTimeoutMs() int64 {
	var t int32
	for _, m := range g.members {
		t = max(t, m.rebalanceTimeoutMs)
	}
	return int64(t)
}

// candidates are the protocols every member supports, in the first
// member's order of preference (Kafka's candidateProtocols). Each member's
// protocols are counted once, over a set: the cost is linear in the
// protocols the members list (a member may list 1<<16), where checking
// each name against each member's list was quadratic and stalled the
// broker's event loop for seconds a join.
func (g *group) candidates() []string {
	if len(g.members) == 0 {
		return nil
	}
	// Only the first member's protocols can be candidates; last is the
	// member (index+1) that counted a name last, so that a member listing
	// a name twice counts it once.
	type tally struct{ count, last int }
	tallies := make(map[string]tally, len(g.members[0].protocols))
	for _, p := range g.members[0].protocols {
		tallies[p.Name] = tally{}
	}
	for i, m := range g.members {
		for _, p := range m.protocols {
			if t, ok := tallies[p.Name]; ok && t.last != i+1 {
				tallies[p.Name] = tally{t.count + 1, i + 1}
			}
		}
	}
	var out []string
	for _, p := range g.members[0].protocols {
		if tallies[p.Name].count == len(g.members) {
			out = append(out, p.Name)
			tallies[p.Name] = tally{} // listed once
		}
	}
	return out
}

func (m *member) metadata(protocol string) []byte {
	for _, p := range m.protocols {
		if p.Name == protocol {
			return p.Metadata
		}
	}
	return nil
}

// supportsProtocols is Kafka's ClassicGroup.supportsProtocols: an Empty
// group takes any non-empty protocol type and list; otherwise the type
// must match and one protocol must be supported by every member.
func (g *group) supportsProtocols(protocolType string, protocols []Protocol) bool {
	if len(g.members) == 0 {
		return protocolType != "" && len(protocols) > 0
	}
	if protocolType != g.protocolType {
		return false
	}
	offered := make(map[string]bool, len(protocols))
	for _, p := range protocols {
		offered[p.Name] = true
	}
	for _, name := range g.candidates() {
		if offered[name] {
			return true
		}
	}
	return false
}

// selectProtocol is Kafka's ClassicGroup.selectProtocol: each member votes
// for its most preferred protocol that every member supports, and the
// most voted wins. Kafka breaks a tie in hash-map order; kaenlog takes the
// first of the tied in the first member's preference order.
func (g *group) selectProtocol() string {
	cands := g.candidates()
	isCand := make(map[string]bool, len(cands))
	for _, name := range cands {
		isCand[name] = true
	}
	votes := map[string]int{}
	for _, m := range g.members {
		for _, p := range m.protocols {
			if isCand[p.Name] {
				votes[p.Name]++
				break
			}
		}
	}
	best := ""
	for _, name := range cands {
		if best == "" || votes[name] > votes[best] {
			best = name
		}
	}
	return best
}

// newMemberID is Kafka's prefix + "-" + UUID, with the UUID drawn from
// the seeded sequence and never equal to a member's or pending member's.
func (c *Coordinator) newMemberID(g *group, prefix string) string {
	// The id must fit a record's string with its 37-byte suffix (the
	// prefix is a client id, which may have up to 32767 bytes).
	prefix = prefix[:min(len(prefix), maxRecordString-37)]
	for {
		c.idSeq++
		a := splitmix(c.cfg.MemberIDSeed + 2*c.idSeq)
		b := splitmix(c.cfg.MemberIDSeed + 2*c.idSeq + 1)
		id := fmt.Sprintf("%s-%08x-%04x-%04x-%04x-%012x", prefix, a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
		if _, pending := g.pendingMembers[id]; !pending && g.get(id) == nil {
			return id
		}
	}
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// groupRecord is the group's metadata record as it stands, with each
// member's assignment from assign (or its current one when assign is nil).
func (g *group) groupRecord(assign map[string][]byte) Record {
	v := GroupValue{ProtocolType: g.protocolType, Generation: g.generation, Protocol: g.protocol, Leader: g.leader,
		CurrentStateTimestampMs: g.stateTimeMs}
	for _, m := range g.members {
		a := m.assignment
		if assign != nil {
			a = assign[m.id]
		}
		v.Members = append(v.Members, MemberValue{MemberID: m.id, GroupInstanceID: m.instanceID, ClientID: m.clientID,
			ClientHost: m.host, RebalanceTimeoutMs: m.rebalanceTimeoutMs, SessionTimeoutMs: m.sessionTimeoutMs,
			Subscription: m.metadata(g.protocol), Assignment: a})
	}
	return Record{Key: GroupKey(g.id), Value: EncodeGroupValue(v)}
}

// subscribedTopics is Kafka's ClassicGroup.computeSubscribedTopics: the
// topics of the members' consumer subscriptions, known (ok) only for the
// "consumer" protocol type with every subscription readable.
func (g *group) subscribedTopics() (topics map[string]bool, ok bool) {
	if g.protocolType != "consumer" || g.protocol == "" {
		return nil, false
	}
	topics = map[string]bool{}
	for _, m := range g.members {
		ts, err := DecodeSubscribedTopics(m.metadata(g.protocol))
		if err != nil {
			return nil, false
		}
		for _, t := range ts {
			topics[t] = true
		}
	}
	return topics, true
}

func (c *Coordinator) answerJoin(m *member, r JoinGroupResponse) {
	if !m.awaitingJoin {
		return
	}
	r.Ref = m.joinRef
	m.awaitingJoin = false
	c.out = append(c.out, r)
}

func (c *Coordinator) answerJoinErr(m *member, err error) {
	c.answerJoin(m, JoinGroupResponse{Err: err, Generation: -1, MemberID: m.id})
}

func (c *Coordinator) answerSync(m *member, r SyncGroupResponse) {
	if !m.awaitingSync {
		return
	}
	r.Ref = m.syncRef
	m.awaitingSync = false
	c.out = append(c.out, r)
}

func (c *Coordinator) answerSyncErr(m *member, err error) {
	c.answerSync(m, SyncGroupResponse{Err: err})
}

func (c *Coordinator) joinErr(req JoinGroupRequest, err error) {
	c.out = append(c.out, JoinGroupResponse{Ref: req.Ref, Err: err, Generation: -1, MemberID: req.MemberID})
}

// joinResult is the JoinGroup answer of the group's current generation;
// the leader's lists the members.
func (g *group) joinResult(m *member) JoinGroupResponse {
	r := JoinGroupResponse{Generation: g.generation, ProtocolType: g.protocolType, Protocol: g.protocol,
		Leader: g.leader, MemberID: m.id}
	if m.id == g.leader {
		for _, o := range g.members {
			r.Members = append(r.Members, JoinMember{MemberID: o.id, GroupInstanceID: o.instanceID, Metadata: o.metadata(g.protocol)})
		}
	}
	return r
}

// JoinGroup handles a JoinGroupRequest; its answer comes out of Ready,
// at once for a refusal or MEMBER_ID_REQUIRED, else when the rebalance
// completes (Kafka's GroupMetadataManager.classicGroupJoin).
func (c *Coordinator) JoinGroup(nowMs int64, req JoinGroupRequest) {
	if req.Group == "" {
		c.joinErr(req, wire.ErrInvalidGroupID) // before the coordinator, as Kafka's
		return
	}
	if err := c.phaseErr(); err != nil {
		c.joinErr(req, err)
		return
	}
	if req.SessionTimeoutMs < c.cfg.MinSessionTimeoutMs || req.SessionTimeoutMs > c.cfg.MaxSessionTimeoutMs {
		c.joinErr(req, wire.ErrInvalidSessionTimeout)
		return
	}
	g := c.groups[req.Group]
	if g == nil {
		if req.MemberID != "" {
			c.joinErr(req, wire.ErrUnknownMemberID)
			return
		}
		g = c.groupOf(req.Group, true)
	}
	if g.state == Dead {
		c.joinErr(req, wire.ErrCoordinatorNotAvailable)
		return
	}
	if !g.supportsProtocols(req.ProtocolType, req.Protocols) {
		c.joinErr(req, wire.ErrInconsistentGroupProtocol)
		c.maybeDropEmpty(g)
		return
	}
	if !c.acceptJoining(g, req.MemberID) {
		c.joinErr(req, wire.ErrGroupMaxSizeReached)
		c.maybeDropEmpty(g)
		return
	}
	switch {
	case req.MemberID == "" && req.GroupInstanceID != "":
		c.staticJoin(nowMs, g, req)
	case req.MemberID == "":
		id := c.newMemberID(g, req.ClientID)
		if req.RequireKnownMemberID {
			// KIP-394: the id is remembered as pending for a session
			// timeout; the member joins again with it.
			g.pendingMembers[id] = nowMs + int64(req.SessionTimeoutMs)
			c.out = append(c.out, JoinGroupResponse{Ref: req.Ref, Err: wire.ErrMemberIDRequired, Generation: -1, MemberID: id})
			return
		}
		c.addMemberAndRebalance(nowMs, g, id, req)
	default:
		if _, ok := g.pendingMembers[req.MemberID]; ok {
			if req.GroupInstanceID != "" {
				// A pending member is dynamic; Kafka throws
				// IllegalStateException, answered UNKNOWN_SERVER_ERROR.
				// Taking the id would leave its holder in the group.
				c.joinErr(req, wire.ErrUnknownServerError)
				return
			}
			delete(g.pendingMembers, req.MemberID)
			c.addMemberAndRebalance(nowMs, g, req.MemberID, req)
			return
		}
		m, err := g.validateMember(req.MemberID, req.GroupInstanceID)
		if err != nil {
			c.joinErr(req, err)
			return
		}
		switch g.state {
		case PreparingRebalance:
			c.updateMemberAndRebalance(nowMs, g, m, req)
		case CompletingRebalance:
			if m.matches(req) {
				// The member lost the answer: give it again.
				m.awaitingJoin, m.joinRef = true, req.Ref
				c.answerJoin(m, g.joinResult(m))
				return
			}
			c.updateMemberAndRebalance(nowMs, g, m, req)
		case Stable:
			if m.id == g.leader || !m.matches(req) {
				// A leader joining again may want a new assignment
				// (new topics); a member with new metadata needs one.
				c.updateMemberAndRebalance(nowMs, g, m, req)
				return
			}
			m.awaitingJoin, m.joinRef = true, req.Ref
			c.answerJoin(m, g.joinResult(m))
		default:
			c.joinErr(req, wire.ErrUnknownMemberID)
		}
	}
}

// maybeDropEmpty removes a group that never formed and holds nothing: one
// a refused first join, or a pending member that never came back, made.
func (c *Coordinator) maybeDropEmpty(g *group) bool {
	if g.state == Empty && len(g.members) == 0 && len(g.pendingMembers) == 0 && len(g.offsets) == 0 && g.generation == 0 {
		delete(c.groups, g.id)
		return true
	}
	return false
}

// acceptJoining is Kafka's acceptJoiningMember: group.max.size counts
// members awaiting join while preparing, all members otherwise.
func (c *Coordinator) acceptJoining(g *group, memberID string) bool {
	switch g.state {
	case Empty, Dead:
		return true
	case PreparingRebalance:
		if m := g.get(memberID); (m != nil && m.awaitingJoin) || len(g.members) < c.cfg.MaxGroupSize {
			return true // fewer members than the bound: fewer waiting too
		}
		n := 0
		for _, m := range g.members {
			if m.awaitingJoin {
				n++
			}
		}
		return n < c.cfg.MaxGroupSize
	}
	return g.get(memberID) != nil || len(g.members) < c.cfg.MaxGroupSize
}

func (m *member) matches(req JoinGroupRequest) bool {
	if len(m.protocols) != len(req.Protocols) {
		return false
	}
	for i, p := range m.protocols {
		q := req.Protocols[i]
		if p.Name != q.Name || string(p.Metadata) != string(q.Metadata) {
			return false
		}
	}
	return true
}

// staticJoin is Kafka's static member join without a member id (KIP-345):
// a new instance id joins like a new member without MEMBER_ID_REQUIRED; a
// known one takes a new member id and fences the old one.
func (c *Coordinator) staticJoin(nowMs int64, g *group, req JoinGroupRequest) {
	oldID, known := g.static[req.GroupInstanceID]
	if !known {
		c.addMemberAndRebalance(nowMs, g, c.newMemberID(g, req.GroupInstanceID), req)
		return
	}
	newID := c.newMemberID(g, req.GroupInstanceID)
	m := g.get(oldID)
	c.answerJoinErr(m, wire.ErrFencedInstanceID)
	c.answerSyncErr(m, wire.ErrFencedInstanceID)
	g.replaceStatic(req.GroupInstanceID, oldID, newID)
	m.heartbeatDeadline = nowMs + int64(m.sessionTimeoutMs)
	switch g.state {
	case Stable:
		if m.matches(req) && g.selectProtocol() == g.protocol {
			// The same member came back: keep the generation and its
			// assignment, once the new id is written (KIP-345).
			oldProtocols, oldRebalance, oldSession := m.protocols, m.rebalanceTimeoutMs, m.sessionTimeoutMs
			m.updateFrom(req)
			m.awaitingJoin, m.joinRef = true, req.Ref
			gen := g.generation
			c.write([]Record{g.groupRecord(nil)}, func() {
				r := g.joinResult(m)
				r.SkipAssignment = m.id == g.leader
				c.answerJoin(m, r)
			}, func(err error) {
				if c.groups[g.id] == g && g.generation == gen && g.get(newID) == m {
					g.replaceStatic(req.GroupInstanceID, newID, oldID)
					m.protocols, m.rebalanceTimeoutMs, m.sessionTimeoutMs = oldProtocols, oldRebalance, oldSession
				}
				r := JoinGroupResponse{Err: storeErr(err), Generation: -1, MemberID: newID}
				c.answerJoin(m, r)
			})
			return
		}
		c.updateMemberAndRebalance(nowMs, g, m, req)
	case CompletingRebalance:
		// The old id may already be in the leader's hands: the new id
		// would get no assignment, so rebalance again.
		c.updateMemberAndRebalance(nowMs, g, m, req)
	default:
		c.updateMemberAndRebalance(nowMs, g, m, req)
	}
}

func (g *group) replaceStatic(instanceID, oldID, newID string) {
	m := g.get(oldID)
	m.id = newID
	delete(g.byID, oldID)
	g.byID[newID] = m
	g.static[instanceID] = newID
	if g.leader == oldID {
		g.leader = newID
	}
	if g.pendingSync[oldID] {
		delete(g.pendingSync, oldID)
		g.pendingSync[newID] = true
	}
}

func (m *member) updateFrom(req JoinGroupRequest) {
	m.protocols = slices.Clone(req.Protocols)
	m.protocolType = req.ProtocolType
	m.sessionTimeoutMs, m.rebalanceTimeoutMs = req.SessionTimeoutMs, req.RebalanceTimeoutMs
	if req.ClientID != "" {
		m.clientID = req.ClientID
	}
	if req.ClientHost != "" {
		m.host = req.ClientHost
	}
}

// addMemberAndRebalance adds a member; the first becomes the leader.
func (c *Coordinator) addMemberAndRebalance(nowMs int64, g *group, id string, req JoinGroupRequest) {
	m := &member{id: id, instanceID: req.GroupInstanceID, isNew: true}
	m.updateFrom(req)
	if g.state == PreparingRebalance && g.generation == 0 {
		g.newMemberAdded = true // the initial delay may wait again
	}
	if len(g.members) == 0 {
		g.protocolType = req.ProtocolType
	}
	g.members = append(g.members, m)
	g.byID[id] = m
	if g.leader == "" {
		g.leader = id
	}
	if m.instanceID != "" {
		g.static[m.instanceID] = id
	}
	m.awaitingJoin, m.joinRef = true, req.Ref
	// A new member's session cannot run while its join waits; bound the
	// wait instead (Kafka's new member join timeout).
	m.heartbeatDeadline = nowMs + NewMemberJoinTimeoutMs
	c.maybePrepareRebalance(nowMs, g)
	c.tryCompleteJoin(nowMs, g)
}

func (c *Coordinator) updateMemberAndRebalance(nowMs int64, g *group, m *member, req JoinGroupRequest) {
	c.answerJoinErr(m, wire.ErrRebalanceInProgress) // a join it replaces
	m.updateFrom(req)
	m.awaitingJoin, m.joinRef = true, req.Ref
	c.maybePrepareRebalance(nowMs, g)
	c.tryCompleteJoin(nowMs, g)
}

// maybePrepareRebalance starts a rebalance from Empty, CompletingRebalance
// or Stable (Kafka's canRebalance).
func (c *Coordinator) maybePrepareRebalance(nowMs int64, g *group) {
	if g.state == Empty || g.state == CompletingRebalance || g.state == Stable {
		c.prepareRebalance(nowMs, g)
	}
}

// prepareRebalance is Kafka's prepareRebalance: a generation being
// completed is abandoned (its SyncGroups answer REBALANCE_IN_PROGRESS);
// from Empty the join waits the initial delay, otherwise up to the
// longest rebalance timeout.
func (c *Coordinator) prepareRebalance(nowMs int64, g *group) {
	if g.state == CompletingRebalance {
		c.resetAssignment(g, wire.ErrRebalanceInProgress)
	}
	g.pendingSync = map[string]bool{}
	timeout := g.rebalanceTimeoutMs()
	if g.state == Empty && c.cfg.InitialRebalanceDelayMs > 0 {
		delay := min(c.cfg.InitialRebalanceDelayMs, timeout)
		g.initialDelay, g.newMemberAdded = true, false
		g.delayMs, g.delayRemainingMs = delay, timeout-delay
		g.joinDeadline = nowMs + delay
	} else {
		g.initialDelay = false
		g.joinDeadline = nowMs + timeout
	}
	g.transition(PreparingRebalance, nowMs)
}

func (c *Coordinator) resetAssignment(g *group, err error) {
	for _, m := range g.members {
		m.assignment = nil
		c.answerSyncErr(m, err)
	}
}

// tryCompleteJoin completes the join once every member and no pending
// member is waiting (Kafka's hasAllMembersJoined); the initial delay only
// ends by its timer.
func (c *Coordinator) tryCompleteJoin(nowMs int64, g *group) {
	if g.state != PreparingRebalance || g.initialDelay || len(g.pendingMembers) > 0 {
		return
	}
	for _, m := range g.members {
		if !m.awaitingJoin {
			return
		}
	}
	c.completeJoin(nowMs, g)
}

// completeJoin is Kafka's onCompleteJoin: members that did not join again
// are removed, a leader that did not is replaced, and the next generation
// starts; each member gets its JoinGroup answer.
func (c *Coordinator) completeJoin(nowMs int64, g *group) {
	kept := g.members[:0]
	for _, m := range g.members {
		if m.awaitingJoin {
			kept = append(kept, m)
			continue
		}
		delete(g.byID, m.id)
		if m.instanceID != "" {
			delete(g.static, m.instanceID)
		}
	}
	clear(g.members[len(kept):])
	g.members = kept
	if g.get(g.leader) == nil {
		g.leader = ""
		if len(g.members) > 0 {
			g.leader = g.members[0].id
		}
	}
	g.generation++
	g.initialDelay = false
	if len(g.members) == 0 {
		g.protocol = ""
		g.transition(Empty, nowMs)
		c.write([]Record{g.groupRecord(nil)}, func() {}, func(error) {})
		return
	}
	g.protocol = g.selectProtocol()
	g.transition(CompletingRebalance, nowMs)
	g.pendingSync = map[string]bool{}
	g.syncDeadline = nowMs + g.rebalanceTimeoutMs()
	for _, m := range g.members {
		g.pendingSync[m.id] = true
		m.isNew = false
		m.heartbeatDeadline = nowMs + int64(m.sessionTimeoutMs)
		c.answerJoin(m, g.joinResult(m))
	}
}

// SyncGroup handles a SyncGroupRequest; its answer comes out of Ready when
// the leader's assignment is committed (Kafka's classicGroupSync).
func (c *Coordinator) SyncGroup(nowMs int64, req SyncGroupRequest) {
	fail := func(err error) { c.out = append(c.out, SyncGroupResponse{Ref: req.Ref, Err: err}) }
	if req.Group == "" {
		fail(wire.ErrInvalidGroupID)
		return
	}
	if err := c.phaseErr(); err != nil {
		fail(err)
		return
	}
	g := c.groups[req.Group]
	if g == nil {
		fail(wire.ErrUnknownMemberID)
		return
	}
	if g.state == Dead {
		fail(wire.ErrCoordinatorNotAvailable)
		return
	}
	m, err := g.validateMember(req.MemberID, req.GroupInstanceID)
	if err != nil {
		fail(err)
		return
	}
	if req.Generation != g.generation {
		fail(wire.ErrIllegalGeneration)
		return
	}
	if (req.ProtocolType != "" && req.ProtocolType != g.protocolType) || (req.Protocol != "" && req.Protocol != g.protocol) {
		fail(wire.ErrInconsistentGroupProtocol)
		return
	}
	switch g.state {
	case PreparingRebalance:
		fail(wire.ErrRebalanceInProgress)
	case Stable:
		delete(g.pendingSync, m.id)
		m.heartbeatDeadline = nowMs + int64(m.sessionTimeoutMs)
		c.out = append(c.out, SyncGroupResponse{Ref: req.Ref, ProtocolType: g.protocolType, Protocol: g.protocol, Assignment: m.assignment})
	case CompletingRebalance:
		c.answerSyncErr(m, wire.ErrRebalanceInProgress) // a sync it replaces
		m.awaitingSync, m.syncRef = true, req.Ref
		delete(g.pendingSync, m.id)
		if m.id != g.leader {
			return
		}
		assign := map[string][]byte{}
		for _, a := range req.Assignments {
			if g.get(a.MemberID) != nil {
				assign[a.MemberID] = a.Assignment
			}
		}
		gen := g.generation
		current := func() bool { return c.groups[g.id] == g && g.generation == gen && g.state == CompletingRebalance }
		c.write([]Record{g.groupRecord(assign)}, func() {
			if !current() {
				return
			}
			for _, o := range g.members {
				o.assignment = assign[o.id]
				o.heartbeatDeadline = c.lastNow(nowMs, o)
				c.answerSync(o, SyncGroupResponse{ProtocolType: g.protocolType, Protocol: g.protocol, Assignment: o.assignment})
			}
			g.transition(Stable, nowMs)
		}, func(err error) {
			if !current() {
				return
			}
			c.resetAssignment(g, storeErr(err))
			c.maybePrepareRebalance(nowMs, g)
		})
	default:
		fail(wire.ErrUnknownMemberID)
	}
}

// lastNow keeps a member's session deadline no earlier than it was: the
// commit callback has no clock of its own.
func (c *Coordinator) lastNow(nowMs int64, m *member) int64 {
	return max(m.heartbeatDeadline, nowMs+int64(m.sessionTimeoutMs))
}

// Heartbeat handles a HeartbeatRequest (Kafka's classicGroupHeartbeat).
func (c *Coordinator) Heartbeat(nowMs int64, req HeartbeatRequest) error {
	if req.Group == "" {
		return wire.ErrInvalidGroupID
	}
	if err := c.phaseErr(); err != nil {
		return err
	}
	g := c.groups[req.Group]
	if g == nil {
		return wire.ErrUnknownMemberID
	}
	if g.state == Dead {
		return wire.ErrCoordinatorNotAvailable
	}
	m, err := g.validateMember(req.MemberID, req.GroupInstanceID)
	if err != nil {
		return err
	}
	if req.Generation != g.generation {
		return wire.ErrIllegalGeneration
	}
	m.heartbeatDeadline = nowMs + int64(m.sessionTimeoutMs)
	if g.state == PreparingRebalance {
		return wire.ErrRebalanceInProgress
	}
	return nil
}

// LeaveGroup handles a LeaveGroupRequest (Kafka's classicGroupLeave).
func (c *Coordinator) LeaveGroup(nowMs int64, req LeaveGroupRequest) LeaveGroupResponse {
	if req.Group == "" {
		return LeaveGroupResponse{Err: wire.ErrInvalidGroupID}
	}
	if err := c.phaseErr(); err != nil {
		return LeaveGroupResponse{Err: err}
	}
	g := c.groups[req.Group]
	var resp LeaveGroupResponse
	if g != nil && g.state == Dead {
		return LeaveGroupResponse{Err: wire.ErrCoordinatorNotAvailable}
	}
	for _, lm := range req.Members {
		r := LeftMember{MemberID: lm.MemberID, GroupInstanceID: lm.GroupInstanceID}
		r.Err = c.leave(nowMs, g, lm)
		resp.Members = append(resp.Members, r)
	}
	return resp
}

func (c *Coordinator) leave(nowMs int64, g *group, lm LeavingMember) error {
	if g == nil {
		return wire.ErrUnknownMemberID
	}
	id := lm.MemberID
	if id == "" {
		held, ok := g.static[lm.GroupInstanceID]
		if lm.GroupInstanceID == "" || !ok {
			return wire.ErrUnknownMemberID
		}
		id = held
	}
	if _, ok := g.pendingMembers[id]; ok && lm.GroupInstanceID == "" {
		delete(g.pendingMembers, id)
		c.tryCompleteJoin(nowMs, g)
		return nil
	}
	m, err := g.validateMember(id, lm.GroupInstanceID)
	if err != nil {
		return err
	}
	c.removeMember(nowMs, g, m)
	return nil
}

// removeMember is Kafka's removeMemberAndUpdateGroup: a waiting join is
// answered UNKNOWN_MEMBER_ID, the leadership passes to the next member,
// and the group rebalances (or completes the join it was waiting for).
func (c *Coordinator) removeMember(nowMs int64, g *group, m *member) {
	c.answerJoinErr(m, wire.ErrUnknownMemberID)
	c.answerSyncErr(m, wire.ErrUnknownMemberID)
	i := slices.Index(g.members, m)
	g.members = slices.Delete(g.members, i, i+1)
	delete(g.byID, m.id)
	if m.instanceID != "" && g.static[m.instanceID] == m.id {
		delete(g.static, m.instanceID)
	}
	delete(g.pendingSync, m.id)
	if g.leader == m.id {
		g.leader = ""
		if len(g.members) > 0 {
			g.leader = g.members[0].id
		}
	}
	switch g.state {
	case Stable, CompletingRebalance:
		c.maybePrepareRebalance(nowMs, g)
	case PreparingRebalance:
		c.tryCompleteJoin(nowMs, g)
	}
}

// NextDeadlineMs returns the earliest time Tick has work: a session, a
// pending member, a rebalance or a sync that expires. ok is false when
// nothing is timed.
func (c *Coordinator) NextDeadlineMs() (deadlineMs int64, ok bool) {
	deadlineMs = math.MaxInt64
	for _, g := range c.groups {
		for _, d := range g.pendingMembers {
			deadlineMs = min(deadlineMs, d)
		}
		for _, m := range g.members {
			if m.sessionRuns() {
				deadlineMs = min(deadlineMs, m.heartbeatDeadline)
			}
		}
		if g.state == PreparingRebalance {
			deadlineMs = min(deadlineMs, g.joinDeadline)
		}
		if len(g.pendingSync) > 0 && (g.state == CompletingRebalance || g.state == Stable) {
			deadlineMs = min(deadlineMs, g.syncDeadline)
		}
	}
	return deadlineMs, deadlineMs != math.MaxInt64
}

// sessionRuns is Kafka's hasSatisfiedHeartbeat turned around: a member
// waiting in a JoinGroup or SyncGroup cannot heartbeat and is kept,
// except a new member, whose wait is bounded by NewMemberJoinTimeoutMs.
func (m *member) sessionRuns() bool {
	return m.isNew || (!m.awaitingJoin && !m.awaitingSync)
}

// Tick runs the timeouts due at nowMs: members whose session expired are
// removed, pending member ids are forgotten, a rebalance whose timeout
// passed completes without the members that did not join, and members
// that did not sync by the rebalance timeout are removed.
func (c *Coordinator) Tick(nowMs int64) {
	if c.phase != active {
		return
	}
	for _, id := range c.groupIDs() {
		g := c.groups[id]
		for pid, d := range g.pendingMembers {
			if d <= nowMs {
				delete(g.pendingMembers, pid)
			}
		}
		if c.maybeDropEmpty(g) {
			continue // a group only a forgotten pending member had made
		}
		for _, m := range slices.Clone(g.members) {
			if m.sessionRuns() && m.heartbeatDeadline <= nowMs {
				c.removeMember(nowMs, g, m)
			}
		}
		if g.state == PreparingRebalance && g.joinDeadline <= nowMs {
			if g.initialDelay && g.newMemberAdded && g.delayRemainingMs > 0 {
				// Kafka's InitialDelayedJoin.onComplete: wait again, the
				// remaining budget less the delay that just passed.
				delay := min(c.cfg.InitialRebalanceDelayMs, g.delayRemainingMs)
				g.delayRemainingMs = max(g.delayRemainingMs-g.delayMs, 0)
				g.delayMs, g.newMemberAdded = delay, false
				g.joinDeadline = nowMs + delay
			} else {
				g.initialDelay = false
				c.completeJoin(nowMs, g)
			}
		} else {
			c.tryCompleteJoin(nowMs, g)
		}
		if len(g.pendingSync) > 0 && (g.state == CompletingRebalance || g.state == Stable) && g.syncDeadline <= nowMs {
			for _, m := range slices.Clone(g.members) {
				if g.pendingSync[m.id] {
					c.removeMember(nowMs, g, m)
				}
			}
			g.pendingSync = map[string]bool{}
		}
	}
}

// OffsetCommit handles an OffsetCommitRequest (Kafka's
// OffsetMetadataManager.commitOffset with ClassicGroup.validateOffsetCommit).
// Its answer comes out of Ready once the offsets' records are committed:
// an acknowledged offset survives the coordinator's failover.
func (c *Coordinator) OffsetCommit(nowMs int64, req OffsetCommitRequest) {
	resp := OffsetCommitResponse{Ref: req.Ref, Partitions: make([]PartitionResult, len(req.Partitions))}
	for i, p := range req.Partitions {
		resp.Partitions[i] = PartitionResult{Topic: p.Topic, Partition: p.Partition}
	}
	failAll := func(err error) {
		for i := range resp.Partitions {
			resp.Partitions[i].Err = err
		}
		c.out = append(c.out, resp)
	}
	if req.Group == "" {
		failAll(wire.ErrInvalidGroupID)
		return
	}
	if err := c.phaseErr(); err != nil {
		failAll(err)
		return
	}
	g := c.groups[req.Group]
	if g == nil {
		if req.Generation >= 0 {
			// Kafka answers GROUP_ID_NOT_FOUND from OffsetCommit v9 on.
			failAll(wire.ErrIllegalGeneration)
			return
		}
		g = c.groupOf(req.Group, true) // a simple group
	}
	m, err := g.validateCommit(req)
	if err != nil {
		failAll(err)
		c.maybeDropEmpty(g)
		return
	}
	if m != nil {
		// A member's commit is also a heartbeat (Kafka's
		// completeAndScheduleNextHeartbeatExpiration in doCommitOffsets).
		m.heartbeatDeadline = nowMs + int64(m.sessionTimeoutMs)
	}
	var records []Record
	var written []int
	for i, p := range req.Partitions {
		if wire.ValidateTopic(p.Topic) != nil {
			// No topic has that name (Kafka answers a commit for a topic
			// it does not have so); a name too long for a record would
			// make one the loader refuses.
			resp.Partitions[i].Err = wire.ErrUnknownTopicOrPartition
			continue
		}
		if len(p.Metadata) > min(c.cfg.MaxMetadataBytes, maxRecordString) {
			resp.Partitions[i].Err = wire.ErrOffsetMetadataTooLarge
			continue
		}
		if p.Offset < 0 {
			resp.Partitions[i].Err = wire.ErrInvalidCommitOffsetSize
			continue
		}
		records = append(records, Record{Key: OffsetKey(req.Group, p.Topic, p.Partition),
			Value: EncodeOffsetValue(OffsetValue{Offset: p.Offset, LeaderEpoch: p.LeaderEpoch, Metadata: p.Metadata, CommitTimestampMs: nowMs})})
		written = append(written, i)
	}
	if len(records) == 0 {
		c.out = append(c.out, resp)
		return
	}
	c.write(records, func() {
		c.out = append(c.out, resp)
	}, func(err error) {
		for _, i := range written {
			resp.Partitions[i].Err = commitErr(err)
		}
		c.out = append(c.out, resp)
	})
}

// validateCommit is Kafka's ClassicGroup.validateOffsetCommit; it returns
// the committing member, nil for a commit outside group management.
func (g *group) validateCommit(req OffsetCommitRequest) (*member, error) {
	if g.state == Dead {
		return nil, wire.ErrCoordinatorNotAvailable
	}
	if req.Generation < 0 && g.state == Empty {
		return nil, nil // outside group management
	}
	m, err := g.validateMember(req.MemberID, req.GroupInstanceID)
	if err != nil {
		return nil, err
	}
	if req.Generation != g.generation {
		return nil, wire.ErrIllegalGeneration
	}
	if g.state == CompletingRebalance {
		// The member has the new generation but not its assignment yet.
		return nil, wire.ErrRebalanceInProgress
	}
	return m, nil
}

// OffsetFetch handles an OffsetFetchRequest: committed offsets only; a
// partition (or group) without one answers offset -1 with no error.
func (c *Coordinator) OffsetFetch(req OffsetFetchRequest) OffsetFetchResponse {
	if err := c.phaseErr(); err != nil {
		return OffsetFetchResponse{Err: err}
	}
	var offs map[TopicPartition]OffsetValue
	if g := c.groups[req.Group]; g != nil {
		offs = g.offsets
	}
	parts := req.Partitions
	if parts == nil {
		for tp := range offs {
			parts = append(parts, tp)
		}
		sort.Slice(parts, func(i, j int) bool {
			if parts[i].Topic != parts[j].Topic {
				return parts[i].Topic < parts[j].Topic
			}
			return parts[i].Partition < parts[j].Partition
		})
	}
	var resp OffsetFetchResponse
	for _, tp := range parts {
		f := FetchedOffset{Topic: tp.Topic, Partition: tp.Partition, Offset: -1, LeaderEpoch: noLeaderEpoch}
		if v, ok := offs[tp]; ok {
			f.Offset, f.LeaderEpoch, f.Metadata = v.Offset, v.LeaderEpoch, v.Metadata
		}
		resp.Partitions = append(resp.Partitions, f)
	}
	return resp
}

// ListGroups handles a ListGroupsRequest.
func (c *Coordinator) ListGroups(req ListGroupsRequest) ListGroupsResponse {
	if err := c.phaseErr(); err != nil {
		return ListGroupsResponse{Err: err}
	}
	var resp ListGroupsResponse
	for _, id := range c.groupIDs() {
		g := c.groups[id]
		if g.state == Dead || (req.States != nil && !slices.Contains(req.States, g.state)) ||
			(req.Types != nil && !slices.ContainsFunc(req.Types, func(t string) bool { return strings.EqualFold(t, g.protocolType) })) {
			continue
		}
		resp.Groups = append(resp.Groups, ListedGroup{Group: id, ProtocolType: g.protocolType, State: g.state})
	}
	return resp
}

// DescribeGroups describes groups (Kafka's DescribeGroups): a group with
// no state is Dead with no error; members' metadata and assignments are
// given in Stable only, as Kafka gives them.
func (c *Coordinator) DescribeGroups(groups []string) []DescribedGroup {
	out := make([]DescribedGroup, 0, len(groups))
	for _, id := range groups {
		d := DescribedGroup{Group: id, State: Dead}
		if err := c.phaseErr(); err != nil {
			d.Err = err
			out = append(out, d)
			continue
		}
		if g := c.groups[id]; g != nil {
			d.State, d.ProtocolType = g.state, g.protocolType
			if g.state == Stable {
				d.Protocol = g.protocol
			}
			for _, m := range g.members {
				dm := DescribedMember{MemberID: m.id, GroupInstanceID: m.instanceID, ClientID: m.clientID, ClientHost: m.host}
				if g.state == Stable {
					dm.Metadata, dm.Assignment = m.metadata(g.protocol), m.assignment
				}
				d.Members = append(d.Members, dm)
			}
		}
		out = append(out, d)
	}
	return out
}

// TopicsDeleted forgets every group's offsets of topics deleted (or
// deleted and created again under the same name), as Kafka's
// onPartitionsDeleted does: their tombstones are written, commits still
// in flight included, and the offsets go once the tombstones are
// committed. Offsets are keyed by topic name, so without it a consumer of
// the new topic would resume at the old topic's offset, skipping the new
// one's records up to it. A coordinator not loaded does nothing (as
// Kafka's, the next loader keeps what the log holds).
func (c *Coordinator) TopicsDeleted(topics []string) {
	if c.phase != active || len(topics) == 0 {
		return
	}
	deleted := make(map[string]bool, len(topics))
	for _, t := range topics {
		deleted[t] = true
	}
	type groupPartition struct {
		group string
		tp    TopicPartition
	}
	gone := map[groupPartition]bool{}
	for id, g := range c.groups {
		for tp := range g.offsets {
			if deleted[tp.Topic] {
				gone[groupPartition{id, tp}] = true
			}
		}
	}
	for _, p := range c.pending { // commits in flight: the tombstones follow them
		for _, rec := range p.records {
			if k, ok, err := DecodeKey(rec.Key); err == nil && ok && !k.IsGroup && deleted[k.Topic] {
				gone[groupPartition{k.Group, TopicPartition{k.Topic, k.Partition}}] = true
			}
		}
	}
	if len(gone) == 0 {
		return
	}
	keys := slices.SortedFunc(maps.Keys(gone), func(x, y groupPartition) int {
		return cmp.Or(cmp.Compare(x.group, y.group), cmp.Compare(x.tp.Topic, y.tp.Topic), cmp.Compare(x.tp.Partition, y.tp.Partition))
	})
	// A write per group, as Kafka's cleanupGroupMetadata: one batch for
	// every group could pass the log's batch bound.
	for len(keys) > 0 {
		n := 1
		for n < len(keys) && keys[n].group == keys[0].group {
			n++
		}
		records := make([]Record, n)
		for i, k := range keys[:n] {
			records[i] = Record{Key: OffsetKey(k.group, k.tp.Topic, k.tp.Partition)}
		}
		c.write(records, func() {}, func(error) {})
		keys = keys[n:]
	}
}

// DeleteGroups handles a DeleteGroupsRequest: only an Empty group is
// deleted (NON_EMPTY_GROUP otherwise), by tombstones for its offsets and
// metadata; it is Dead until they are committed.
func (c *Coordinator) DeleteGroups(nowMs int64, req DeleteGroupsRequest) {
	resp := DeleteGroupsResponse{Ref: req.Ref, Results: make([]GroupResult, len(req.Groups))}
	var records []Record
	var deleted []*group
	var idx []int
	for i, id := range req.Groups {
		resp.Results[i].Group = id
		if err := c.phaseErr(); err != nil {
			resp.Results[i].Err = err
			continue
		}
		g := c.groups[id]
		switch {
		case g == nil || g.state == Dead:
			resp.Results[i].Err = wire.ErrGroupIDNotFound
		case g.state != Empty:
			resp.Results[i].Err = wire.ErrNonEmptyGroup
		default:
			for _, tp := range sortedPartitions(c.offsetPartitions(g)) {
				records = append(records, Record{Key: OffsetKey(id, tp.Topic, tp.Partition)})
			}
			records = append(records, Record{Key: GroupKey(id)})
			g.transition(Dead, nowMs)
			deleted = append(deleted, g)
			idx = append(idx, i)
		}
	}
	if len(records) == 0 {
		c.out = append(c.out, resp)
		return
	}
	c.write(records, func() {
		for _, g := range deleted {
			if c.groups[g.id] == g && len(g.offsets) == 0 {
				delete(c.groups, g.id)
			} else if c.groups[g.id] == g {
				// An offset committed after the tombstones keeps it.
				g.transition(Empty, nowMs)
			}
		}
		c.out = append(c.out, resp)
	}, func(err error) {
		for _, g := range deleted {
			if c.groups[g.id] == g {
				g.transition(Empty, nowMs)
			}
		}
		for _, i := range idx {
			resp.Results[i].Err = storeErr(err)
		}
		c.out = append(c.out, resp)
	})
}

// offsetPartitions are the partitions g holds an offset of, or will once
// the writes waiting for the high watermark commit: a delete's tombstones
// follow those writes on the log, so they must name them too.
func (c *Coordinator) offsetPartitions(g *group) map[TopicPartition]bool {
	tps := make(map[TopicPartition]bool, len(g.offsets))
	for tp := range g.offsets {
		tps[tp] = true
	}
	for _, p := range c.pending {
		for _, rec := range p.records {
			if k, ok, err := DecodeKey(rec.Key); err == nil && ok && !k.IsGroup && k.Group == g.id {
				tps[TopicPartition{k.Topic, k.Partition}] = true
			}
		}
	}
	return tps
}

func sortedPartitions(set map[TopicPartition]bool) []TopicPartition {
	tps := make([]TopicPartition, 0, len(set))
	for tp := range set {
		tps = append(tps, tp)
	}
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
	return tps
}

// OffsetDelete handles an OffsetDeleteRequest (Kafka's
// OffsetMetadataManager.deleteOffsets): an Empty group's offsets go; a
// consumer group's go for topics no member subscribes to
// (GROUP_SUBSCRIBED_TO_TOPIC for the others); any other group with
// members answers NON_EMPTY_GROUP.
func (c *Coordinator) OffsetDelete(nowMs int64, req OffsetDeleteRequest) {
	resp := OffsetDeleteResponse{Ref: req.Ref}
	if req.Group == "" {
		resp.Err = wire.ErrInvalidGroupID
		c.out = append(c.out, resp)
		return
	}
	if err := c.phaseErr(); err != nil {
		resp.Err = err
		c.out = append(c.out, resp)
		return
	}
	g := c.groups[req.Group]
	if g == nil || g.state == Dead {
		resp.Err = wire.ErrGroupIDNotFound
		c.out = append(c.out, resp)
		return
	}
	var subscribed map[string]bool
	if g.state != Empty {
		var ok bool
		if subscribed, ok = g.subscribedTopics(); !ok {
			resp.Err = wire.ErrNonEmptyGroup
			c.out = append(c.out, resp)
			return
		}
	}
	var records []Record
	var idx []int
	held := c.offsetPartitions(g)
	for i, tp := range req.Partitions {
		resp.Partitions = append(resp.Partitions, PartitionResult{Topic: tp.Topic, Partition: tp.Partition})
		if subscribed[tp.Topic] {
			resp.Partitions[i].Err = wire.ErrGroupSubscribedToTopic
			continue
		}
		if held[tp] {
			records = append(records, Record{Key: OffsetKey(req.Group, tp.Topic, tp.Partition)})
			idx = append(idx, i)
		}
	}
	if len(records) == 0 {
		c.out = append(c.out, resp)
		return
	}
	c.write(records, func() { c.out = append(c.out, resp) }, func(err error) {
		for _, i := range idx {
			resp.Partitions[i].Err = storeErr(err)
		}
		c.out = append(c.out, resp)
	})
}
