package replica

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/topicconfig"
	"github.com/kaenlog/kaenlog/wire"
)

// This file hosts the group coordinators (replica/group) on a broker: one
// group.Coordinator per partition of __consumer_offsets the broker leads.
// A coordinator is a pure state machine; the broker feeds it the clients'
// requests, appends its writes to its partition as the leader with
// acks=all, tells it the partition's high watermark, routes its answers to
// the connections that asked and ticks it on the broker's clock.
//
// Becoming the leader of a partition (in a new leader epoch) starts a
// load: group.Coordinator.BeginLoad, the partition read from its log start
// to its log end in reads of at most groupLoadReadBytes, at most
// groupLoadReadsPerEvent per event (the broker asks for a tick at once
// while a load runs), group.Coordinator.Load of every record and, once
// the partition's high watermark has reached what was read,
// group.Coordinator.Loaded; meanwhile its groups are answered
// COORDINATOR_LOAD_IN_PROGRESS. (Kafka's coordinator runtime replays to
// the log end too, but serves the state as of the high watermark while
// the rest commits; kaenlog waits instead, so a partition under
// min.insync.replicas, whose high watermark cannot move, answers
// LOAD_IN_PROGRESS until its ISR is back.) Losing the leadership unloads it
// (NOT_COORDINATOR from then on, and for its writes not yet committed). A
// group whose partition this broker does not lead is answered
// NOT_COORDINATOR, as Kafka's brokers answer it. A topic the metadata
// drops, or creates again, has its offsets tombstoned by every loaded
// coordinator here (Kafka's onPartitionsDeleted); one loading then keeps
// them, as Kafka's does.
//
// __consumer_offsets is created through the controller on the first
// FindCoordinator that finds it missing (or a Metadata request that
// auto-creates it), as Kafka creates it: OffsetsTopic
// with BrokerConfig.OffsetsTopicPartitions partitions (Kafka's
// offsets.topic.num.partitions, 50), replication factor min(3, registered
// brokers) (offsets.topic.replication.factor 3; Kafka refuses to create it
// with fewer brokers, kaenlog creates it smaller so that one broker can
// serve groups), min.insync.replicas min(2, replication factor) and
// cleanup.policy=compact, as Kafka's: the broker's cleaner
// (broker_retention.go) keeps the last commit of each group and
// partition, so a load replays what compaction left (and a tombstone, an
// OffsetDelete's, stays: kaenlog's cleaner keeps tombstones). Retention
// by time does not apply to a compacted topic, so a group's offsets stay
// until deleted, where Kafka's offsets.retention.minutes expires those of
// an empty group.

// OffsetsTopic is the internal topic of the group coordinators: committed
// offsets and group metadata, as Kafka's records (replica/group).
const OffsetsTopic = "__consumer_offsets"

// DefaultOffsetsTopicPartitions is Kafka's offsets.topic.num.partitions.
const DefaultOffsetsTopicPartitions = 50

// offsetsCommitTimeoutMs is how long a coordinator's acks=all write waits
// for the ISR (Kafka's offsets.commit.timeout.ms).
const offsetsCommitTimeoutMs = 5000

// groupLoadReadBytes bounds one read of a load, groupLoadReadsPerEvent
// the reads of one event.
const (
	groupLoadReadBytes     = 1 << 20
	groupLoadReadsPerEvent = 4
)

// The Kafka API keys of the group requests a broker serves ([GroupRequest]).
const (
	APIOffsetCommit    wire.APIKey = 8
	APIOffsetFetch     wire.APIKey = 9
	APIFindCoordinator wire.APIKey = 10
	APIJoinGroup       wire.APIKey = 11
	APIHeartbeat       wire.APIKey = 12
	APILeaveGroup      wire.APIKey = 13
	APISyncGroup       wire.APIKey = 14
	APIDescribeGroups  wire.APIKey = 15
	APIListGroups      wire.APIKey = 16
	APIDeleteGroups    wire.APIKey = 42
	APIOffsetDelete    wire.APIKey = 47
)

// IsGroupAPI reports whether k is one of the group APIs a broker serves
// through [GroupRequest].
func IsGroupAPI(k wire.APIKey) bool {
	switch k {
	case APIOffsetCommit, APIOffsetFetch, APIFindCoordinator, APIJoinGroup, APIHeartbeat, APILeaveGroup,
		APISyncGroup, APIDescribeGroups, APIListGroups, APIDeleteGroups, APIOffsetDelete:
		return true
	}
	return false
}

// GroupRequest is a client's request to a broker's group coordinators. It
// is never encoded (AppendTo refuses): each listener decodes its
// protocol's group requests into one and hands it to the broker through
// its host (replica/server's from wire's group messages, replica/kafka's
// from Kafka's), and frames the answer in its own protocol. Body is one of
// [FindCoordinatorRequest], group.JoinGroupRequest,
// group.SyncGroupRequest, group.HeartbeatRequest, group.LeaveGroupRequest,
// group.OffsetCommitRequest, [OffsetFetchRequest],
// [DescribeGroupsRequest], group.ListGroupsRequest,
// group.DeleteGroupsRequest or group.OffsetDeleteRequest; a request's
// Ref is the broker's to set. The answer is a [GroupResponse].
type GroupRequest struct {
	// CorrelationID is the request's id on its connection.
	CorrelationID int32
	// Body is the request.
	Body any
}

// APIKey returns the Kafka key of the request's Body, or -1 for a body of
// no group API.
func (m *GroupRequest) APIKey() wire.APIKey {
	switch m.Body.(type) {
	case group.OffsetCommitRequest:
		return APIOffsetCommit
	case OffsetFetchRequest:
		return APIOffsetFetch
	case FindCoordinatorRequest:
		return APIFindCoordinator
	case group.JoinGroupRequest:
		return APIJoinGroup
	case group.HeartbeatRequest:
		return APIHeartbeat
	case group.LeaveGroupRequest:
		return APILeaveGroup
	case group.SyncGroupRequest:
		return APISyncGroup
	case DescribeGroupsRequest:
		return APIDescribeGroups
	case group.ListGroupsRequest:
		return APIListGroups
	case group.DeleteGroupsRequest:
		return APIDeleteGroups
	case group.OffsetDeleteRequest:
		return APIOffsetDelete
	}
	return -1
}

// Correlation returns m.CorrelationID.
func (m *GroupRequest) Correlation() int32 { return m.CorrelationID }

// errGroupEncoded is AppendTo's refusal: group requests and answers are
// translated by their listener, never encoded as they are.
var errGroupEncoded = fmt.Errorf("replica: group requests are translated by their listener, not encoded: %w", wire.ErrUnsupportedVersion)

// AppendTo refuses: a GroupRequest is a listener's, never encoded.
func (m *GroupRequest) AppendTo(dst []byte) ([]byte, error) { return dst, errGroupEncoded }

// GroupResponse is a broker's answer to a [GroupRequest]. Body is the
// answer to the request's: a [FindCoordinatorResponse],
// group.JoinGroupResponse, group.SyncGroupResponse, [HeartbeatResponse],
// group.LeaveGroupResponse, group.OffsetCommitResponse,
// [OffsetFetchResponse], [DescribeGroupsResponse],
// group.ListGroupsResponse, group.DeleteGroupsResponse or
// group.OffsetDeleteResponse.
type GroupResponse struct {
	// Key is the request's API key.
	Key wire.APIKey
	// CorrelationID is the request's.
	CorrelationID int32
	// Body is the answer.
	Body any
}

// APIKey returns m.Key.
func (m *GroupResponse) APIKey() wire.APIKey { return m.Key }

// Correlation returns m.CorrelationID.
func (m *GroupResponse) Correlation() int32 { return m.CorrelationID }

// AppendTo refuses: a GroupResponse is framed by the listener that asked.
func (m *GroupResponse) AppendTo(dst []byte) ([]byte, error) { return dst, errGroupEncoded }

// FindCoordinatorRequest asks which broker coordinates each group (Kafka's
// FindCoordinator with key type 0).
type FindCoordinatorRequest struct {
	// Groups are the group ids.
	Groups []string
}

// FoundCoordinator is one group's coordinator.
type FoundCoordinator struct {
	// Group is the group id.
	Group string
	// NodeID is the coordinator's broker id, -1 on an error.
	NodeID int32
	// Err is nil, or COORDINATOR_NOT_AVAILABLE while __consumer_offsets
	// is being created or the group's partition has no leader.
	Err error
}

// FindCoordinatorResponse answers a FindCoordinatorRequest, group by group
// in request order.
type FindCoordinatorResponse struct {
	// Coordinators are the groups' coordinators.
	Coordinators []FoundCoordinator
}

// HeartbeatResponse answers a group.HeartbeatRequest.
type HeartbeatResponse struct {
	// Err is nil, or why the heartbeat was refused.
	Err error
}

// OffsetFetchRequest reads the committed offsets of one group or more
// (OffsetFetch v8+ batches groups).
type OffsetFetchRequest struct {
	// Groups are the groups' requests.
	Groups []group.OffsetFetchRequest
}

// OffsetFetchResponse answers an OffsetFetchRequest, group by group.
type OffsetFetchResponse struct {
	// Groups are the groups' answers, in request order.
	Groups []group.OffsetFetchResponse
}

// DescribeGroupsRequest describes groups.
type DescribeGroupsRequest struct {
	// Groups are the group ids.
	Groups []string
}

// DescribeGroupsResponse answers a DescribeGroupsRequest.
type DescribeGroupsResponse struct {
	// Groups are the groups, in request order.
	Groups []group.DescribedGroup
}

// groupHost is a broker's group coordinators and what they wait on.
type groupHost struct {
	// coords are the coordinators of the __consumer_offsets partitions
	// this broker leads, by partition.
	coords map[int32]*hostedCoordinator
	// none answers NOT_COORDINATOR for the groups of no coordinator here:
	// it is never loaded.
	none *group.Coordinator
	// askers are who sent each request a coordinator answers through
	// Ready, by the Ref the broker gave it.
	askers  map[uint64]groupAsker
	nextRef uint64
	// writes are the coordinators' appends waiting for their outcome, by
	// the produce sequence number they were made with.
	writes map[uint64]groupWrite
	// createCorr is the correlation id of the CreateTopics of
	// __consumer_offsets in flight, 0 for none.
	createCorr int32
	// topics are the image's topics (their CreatedOffset) as of its
	// offset imageEnd, to tell the coordinators which were deleted.
	topics   map[string]uint64
	imageEnd uint64
}

type hostedCoordinator struct {
	c           *group.Coordinator
	r           *Replica
	p           int32 // its partition
	leaderEpoch int32
	// loading is set from BeginLoad to Loaded; next is the offset the
	// load reads next. failed is a load that met a record it cannot
	// read: the partition is not served (load in progress) until the
	// next leadership.
	loading, failed bool
	next            uint64
	// awaitingHW is a load that has read the partition to its end and
	// waits for the high watermark to reach it.
	awaitingHW bool
}

// groupAsker is who a request came from; fan is set for a DeleteGroups
// split over coordinators.
type groupAsker struct {
	from Addr
	corr int32
	key  wire.APIKey
	fan  *deleteFanout
	// idx are the positions of the fanned-out request's groups in the
	// whole request.
	idx []int
}

type groupWrite struct {
	hc  *hostedCoordinator
	seq uint64
}

// deleteFanout is a DeleteGroups whose groups have several coordinators:
// answered once every part is.
type deleteFanout struct {
	results []group.GroupResult
	left    int
}

func (b *Broker) groupState() *groupHost {
	if b.groups == nil {
		b.groups = &groupHost{
			coords: map[int32]*hostedCoordinator{}, none: group.New(group.DefaultConfig()),
			askers: map[uint64]groupAsker{}, writes: map[uint64]groupWrite{},
		}
	}
	return b.groups
}

func (b *Broker) offsetsTopicPartitions() int32 {
	if b.cfg.OffsetsTopicPartitions > 0 {
		return b.cfg.OffsetsTopicPartitions
	}
	return DefaultOffsetsTopicPartitions
}

// coordinatorOf returns the coordinator of groupID: this broker's for its
// partition, or the one that answers NOT_COORDINATOR.
func (b *Broker) coordinatorOf(groupID string) (*group.Coordinator, *hostedCoordinator) {
	gh := b.groupState()
	t, ok := b.image.Topic(OffsetsTopic)
	if !ok || t.Partitions <= 0 {
		return gh.none, nil
	}
	if hc, ok := gh.coords[group.PartitionFor(groupID, t.Partitions)]; ok {
		return hc.c, hc
	}
	return gh.none, nil
}

// handleGroupRequest serves a client's group request.
func (b *Broker) handleGroupRequest(from Addr, m *GroupRequest, nowMs int64) {
	gh := b.groupState()
	key := m.APIKey()
	reply := func(body any) {
		b.reply(from, &GroupResponse{Key: key, CorrelationID: m.CorrelationID, Body: body})
	}
	ref := func() uint64 {
		gh.nextRef++
		gh.askers[gh.nextRef] = groupAsker{from: from, corr: m.CorrelationID, key: key}
		return gh.nextRef
	}
	switch req := m.Body.(type) {
	case FindCoordinatorRequest:
		reply(b.findCoordinator(req, nowMs))
	case group.JoinGroupRequest:
		c, _ := b.coordinatorOf(req.Group)
		req.Ref = ref()
		c.JoinGroup(nowMs, req)
	case group.SyncGroupRequest:
		c, _ := b.coordinatorOf(req.Group)
		req.Ref = ref()
		c.SyncGroup(nowMs, req)
	case group.OffsetCommitRequest:
		c, _ := b.coordinatorOf(req.Group)
		req.Ref = ref()
		c.OffsetCommit(nowMs, req)
	case group.OffsetDeleteRequest:
		c, _ := b.coordinatorOf(req.Group)
		req.Ref = ref()
		c.OffsetDelete(nowMs, req)
	case group.HeartbeatRequest:
		c, _ := b.coordinatorOf(req.Group)
		reply(HeartbeatResponse{Err: c.Heartbeat(nowMs, req)})
	case group.LeaveGroupRequest:
		c, _ := b.coordinatorOf(req.Group)
		reply(c.LeaveGroup(nowMs, req))
	case OffsetFetchRequest:
		resp := OffsetFetchResponse{Groups: make([]group.OffsetFetchResponse, len(req.Groups))}
		for i, g := range req.Groups {
			c, _ := b.coordinatorOf(g.Group)
			resp.Groups[i] = c.OffsetFetch(g)
		}
		reply(resp)
	case DescribeGroupsRequest:
		resp := DescribeGroupsResponse{Groups: make([]group.DescribedGroup, len(req.Groups))}
		for i, g := range req.Groups {
			c, _ := b.coordinatorOf(g)
			resp.Groups[i] = c.DescribeGroups([]string{g})[0]
		}
		reply(resp)
	case group.ListGroupsRequest:
		reply(b.listGroups(req))
	case group.DeleteGroupsRequest:
		b.deleteGroups(from, m.CorrelationID, req, nowMs)
	}
	b.pumpGroups(nowMs)
}

// findCoordinator answers each group with the leader of its partition of
// __consumer_offsets, creating the topic through the controller when the
// image lacks it.
func (b *Broker) findCoordinator(req FindCoordinatorRequest, nowMs int64) FindCoordinatorResponse {
	resp := FindCoordinatorResponse{Coordinators: make([]FoundCoordinator, len(req.Groups))}
	t, ok := b.image.Topic(OffsetsTopic)
	if !ok || t.Partitions <= 0 {
		b.createOffsetsTopic(nowMs)
	}
	for i, g := range req.Groups {
		fc := FoundCoordinator{Group: g, NodeID: wire.NoLeader}
		if !ok || t.Partitions <= 0 {
			fc.Err = fmt.Errorf("replica: %s is being created: %w", OffsetsTopic, wire.ErrCoordinatorNotAvailable)
		} else if p, found := b.image.Partition(OffsetsTopic, group.PartitionFor(g, t.Partitions)); !found || p.Leader == wire.NoLeader {
			fc.Err = fmt.Errorf("replica: the partition of group %q has no leader: %w", g, wire.ErrCoordinatorNotAvailable)
		} else {
			fc.NodeID = p.Leader
		}
		resp.Coordinators[i] = fc
	}
	return resp
}

// createOffsetsTopic asks the controller to create __consumer_offsets,
// unless it is asking already.
func (b *Broker) createOffsetsTopic(nowMs int64) {
	gh := b.groupState()
	if _, inFlight := b.pending[gh.createCorr]; gh.createCorr != 0 && inFlight {
		return
	}
	if b.epoch < 0 {
		return
	}
	brokers := 0
	for _, r := range b.image.Brokers() {
		if !r.Fenced {
			brokers++
		}
	}
	rf := int16(min(3, max(brokers, 1)))
	m := &wire.CreateTopicsRequest{CorrelationID: b.nextCorrelation(), Topics: []wire.CreatableTopic{{Name: OffsetsTopic, Partitions: b.offsetsTopicPartitions(), ReplicationFactor: rf, Configs: append(wire.MinInsyncReplicas(int32(min(2, rf))), wire.TopicConfig{Name: topicconfig.CleanupPolicy, Value: topicconfig.PolicyCompact})}}}
	gh.createCorr = m.CorrelationID
	b.send(ControllerAt(), m, nowMs)
}

// listGroups lists the groups of every coordinator this broker hosts;
// while one is loading, the answer is COORDINATOR_LOAD_IN_PROGRESS, as
// Kafka's.
func (b *Broker) listGroups(req group.ListGroupsRequest) group.ListGroupsResponse {
	var resp group.ListGroupsResponse
	for _, hc := range b.groupState().coords {
		r := hc.c.ListGroups(req)
		if r.Err != nil {
			return group.ListGroupsResponse{Err: r.Err}
		}
		resp.Groups = append(resp.Groups, r.Groups...)
	}
	slices.SortFunc(resp.Groups, func(x, y group.ListedGroup) int {
		switch {
		case x.Group < y.Group:
			return -1
		case x.Group > y.Group:
			return 1
		}
		return 0
	})
	return resp
}

// deleteGroups splits a DeleteGroups by coordinator and answers once
// every part is answered.
func (b *Broker) deleteGroups(from Addr, corr int32, req group.DeleteGroupsRequest, nowMs int64) {
	gh := b.groupState()
	fan := &deleteFanout{results: make([]group.GroupResult, len(req.Groups))}
	parts := map[*group.Coordinator][]int{}
	var order []*group.Coordinator
	for i, g := range req.Groups {
		c, _ := b.coordinatorOf(g)
		if _, ok := parts[c]; !ok {
			order = append(order, c)
		}
		parts[c] = append(parts[c], i)
	}
	if len(order) == 0 {
		b.reply(from, &GroupResponse{Key: APIDeleteGroups, CorrelationID: corr, Body: group.DeleteGroupsResponse{}})
		return
	}
	fan.left = len(order)
	for _, c := range order {
		idx := parts[c]
		sub := group.DeleteGroupsRequest{Groups: make([]string, len(idx))}
		for j, i := range idx {
			sub.Groups[j] = req.Groups[i]
		}
		gh.nextRef++
		gh.askers[gh.nextRef] = groupAsker{from: from, corr: corr, key: APIDeleteGroups, fan: fan, idx: idx}
		sub.Ref = gh.nextRef
		c.DeleteGroups(nowMs, sub)
	}
}

// syncCoordinators brings the coordinators in line with the partitions of
// __consumer_offsets this broker leads: a new leadership (or a new leader
// epoch) starts a load, a lost one unloads.
func (b *Broker) syncCoordinators() {
	gh := b.groupState()
	for p, hc := range gh.coords {
		r, ok := b.parts[TopicPartition{OffsetsTopic, p}]
		if ok && r == hc.r && r.Role() == RoleLeader && r.LeaderEpoch() == hc.leaderEpoch {
			continue
		}
		hc.c.Unload()
		b.routeGroupAnswers(hc.c.Ready().Responses)
		delete(gh.coords, p)
	}
	for _, h := range b.hosted {
		if h.tp.Topic != OffsetsTopic || h.r.Role() != RoleLeader {
			continue
		}
		if _, ok := gh.coords[h.tp.Partition]; ok {
			continue
		}
		cfg := b.cfg.Groups
		if cfg.MaxSessionTimeoutMs == 0 {
			cfg = group.DefaultConfig()
		}
		// Member ids unique to this load: the broker, the partition, the
		// leader epoch.
		cfg.MemberIDSeed = uint64(uint32(b.cfg.ID))<<40 ^ uint64(uint32(h.tp.Partition))<<32 ^ uint64(uint32(h.r.LeaderEpoch()))
		hc := &hostedCoordinator{c: group.New(cfg), r: h.r, p: h.tp.Partition, leaderEpoch: h.r.LeaderEpoch(), loading: true, next: h.r.Log().StartOffset()}
		hc.c.BeginLoad()
		gh.coords[h.tp.Partition] = hc
	}
}

// pumpGroups does the coordinators' work after an event: role changes,
// load reads, due ticks, the high watermark, their writes and answers.
func (b *Broker) pumpGroups(nowMs int64) {
	if b.groups == nil && !b.hostsOffsetsTopic() {
		return
	}
	gh := b.groupState()
	b.syncCoordinators()
	b.forgetDeletedTopics()
	b.routeGroupAnswers(gh.none.Ready().Responses)
	for _, hc := range gh.coords {
		if hc.loading {
			b.loadStep(hc, nowMs)
			continue
		}
		if d, ok := hc.c.NextDeadlineMs(); ok && d <= nowMs {
			hc.c.Tick(nowMs)
		}
		b.pumpCoordinator(hc, nowMs)
	}
}

// forgetDeletedTopics tells the loaded coordinators the topics the image
// no longer has, or has under a new creation, since it last looked: their
// offsets are tombstoned (group.Coordinator.TopicsDeleted, Kafka's
// onPartitionsDeleted), as offsets are keyed by topic name.
func (b *Broker) forgetDeletedTopics() {
	gh := b.groupState()
	if b.image.EndOffset() == gh.imageEnd {
		return
	}
	gh.imageEnd = b.image.EndOffset()
	names := b.image.TopicNames()
	now := make(map[string]uint64, len(names))
	for _, name := range names {
		t, _ := b.image.Topic(name)
		now[name] = t.CreatedOffset
	}
	var gone []string
	for name, created := range gh.topics {
		if c, ok := now[name]; !ok || c != created {
			gone = append(gone, name)
		}
	}
	gh.topics = now
	if len(gone) == 0 {
		return
	}
	slices.Sort(gone)
	for _, p := range slices.Sorted(maps.Keys(gh.coords)) {
		gh.coords[p].c.TopicsDeleted(gone)
	}
}

func (b *Broker) hostsOffsetsTopic() bool {
	for _, h := range b.hosted {
		if h.tp.Topic == OffsetsTopic {
			return true
		}
	}
	return false
}

// loadStep reads the next part of a loading coordinator's partition.
func (b *Broker) loadStep(hc *hostedCoordinator, nowMs int64) {
	if hc.failed {
		return
	}
	l := hc.r.Log()
	for range groupLoadReadsPerEvent {
		if hc.next >= l.EndOffset() {
			// What was read must be committed before it is served:
			// OffsetFetch sees committed offsets only, and a tail the
			// last leader wrote but never committed is so far this
			// leader's alone. The high watermark moves on the
			// followers' fetches, which are events of their own.
			if hc.awaitingHW = hc.r.HighWatermark() < hc.next && !b.cfg.mutations.LoadBeforeHighWatermark; hc.awaitingHW {
				return
			}
			hc.c.Loaded(nowMs)
			hc.loading = false
			b.pumpCoordinator(hc, nowMs)
			return
		}
		// A fresh buffer per read: the coordinator may keep slices of
		// the records it loads.
		if start := l.StartOffset(); hc.next < start {
			hc.next = start // retention removed the head meanwhile
		}
		buf, err := l.Read(nil, hc.next, groupLoadReadBytes, log.IsolationLogEnd)
		if err != nil || len(buf) == 0 {
			return // a failed log halts the broker (checkLogs); nothing yet: try again
		}
		for len(buf) > 0 {
			h, err := log.ReadBatchHeader(buf)
			if err != nil || h.Size() > len(buf) {
				hc.failed = true
				return
			}
			if h.RecordCount > 0 && h.Attributes&log.AttrControl == 0 {
				batch, _, err := log.DecodeBatch(buf[:h.Size()])
				if err != nil {
					hc.failed = true
					return
				}
				for _, rec := range batch.Records {
					if rec.Key == nil {
						continue
					}
					if err := hc.c.Load(group.Record{Key: rec.Key, Value: rec.Value}); err != nil {
						hc.failed = true
						return
					}
				}
			}
			hc.next = h.NextOffset()
			buf = buf[h.Size():]
		}
	}
}

// pumpCoordinator appends a coordinator's writes as the leader with
// acks=all, reports the high watermark and routes its answers, until it
// has nothing more.
func (b *Broker) pumpCoordinator(hc *hostedCoordinator, nowMs int64) {
	gh := b.groupState()
	for {
		hc.c.Committed(hc.r.HighWatermark())
		rd := hc.c.Ready()
		if len(rd.Writes) == 0 && len(rd.Responses) == 0 {
			return
		}
		for _, w := range rd.Writes {
			batch := log.Batch{BaseTimestamp: nowMs, MaxTimestamp: nowMs, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
				Records: make([]log.Record, len(w.Records))}
			for i, rec := range w.Records {
				batch.Records[i] = log.Record{Key: rec.Key, Value: rec.Value}
			}
			batch.SetSequentialOffsetDeltas()
			enc, err := log.AppendBatch(nil, &batch)
			if err != nil {
				hc.c.AppendFailed(w.Seq, err)
				continue
			}
			b.produceSeq++
			ref := b.produceSeq << 16
			res, parked, err := hc.r.Produce(ref, enc, wire.AcksAll, offsetsCommitTimeoutMs, nowMs)
			if err != nil {
				hc.c.AppendFailed(w.Seq, err)
				continue
			}
			hc.c.Appended(w.Seq, res.NextOffset-1)
			if b.cfg.mutations.CommitBeforeReplicated && offsetCommitsOnly(w) {
				hc.c.Committed(res.NextOffset)
			}
			if parked {
				gh.writes[b.produceSeq] = groupWrite{hc: hc, seq: w.Seq}
			}
		}
		b.routeGroupAnswers(rd.Responses)
	}
}

// groupWriteDone takes the outcome of a coordinator's parked write, if o
// is one.
func (b *Broker) groupWriteDone(o ProduceOutcome) bool {
	if b.groups == nil {
		return false
	}
	w, ok := b.groups.writes[o.Ref>>16]
	if !ok {
		return false
	}
	delete(b.groups.writes, o.Ref>>16)
	if o.Err != nil && b.groups.coords[w.hc.p] == w.hc {
		w.hc.c.AppendFailed(w.seq, o.Err)
	}
	return true
}

// routeGroupAnswers sends each coordinator answer to whoever asked.
func (b *Broker) routeGroupAnswers(rs []group.Response) {
	gh := b.groupState()
	for _, r := range rs {
		a, ok := gh.askers[r.RequestRef()]
		if !ok {
			continue
		}
		delete(gh.askers, r.RequestRef())
		if a.fan == nil {
			b.reply(a.from, &GroupResponse{Key: a.key, CorrelationID: a.corr, Body: r})
			continue
		}
		if d, ok := r.(group.DeleteGroupsResponse); ok {
			for j, res := range d.Results {
				if j < len(a.idx) {
					a.fan.results[a.idx[j]] = res
				}
			}
		}
		if a.fan.left--; a.fan.left == 0 {
			b.reply(a.from, &GroupResponse{Key: a.key, CorrelationID: a.corr, Body: group.DeleteGroupsResponse{Results: a.fan.results}})
		}
	}
}

// groupsNextTickMs is when the coordinators next have work: now while one
// loads, else their earliest deadline.
func (b *Broker) groupsNextTickMs(next int64) int64 {
	if b.groups == nil {
		return next
	}
	for _, hc := range b.groups.coords {
		if hc.loading && !hc.failed && !hc.awaitingHW {
			return 0
		}
		if d, ok := hc.c.NextDeadlineMs(); ok {
			next = min(next, d)
		}
	}
	return next
}
