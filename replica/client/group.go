package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/kaenlog/kaenlog/wire"
)

// Defaults of GroupConfig, Kafka's consumer's.
const (
	DefaultSessionTimeoutMs    = 45000  // session.timeout.ms
	DefaultRebalanceTimeoutMs  = 300000 // max.poll.interval.ms, which Kafka's consumer joins with
	DefaultHeartbeatIntervalMs = 3000   // heartbeat.interval.ms
)

// OffsetReset is where a group member starts a partition its group has no
// committed offset for, or whose committed offset is out of range (Kafka's
// auto.offset.reset).
type OffsetReset uint8

const (
	// ResetLatest starts at the partition's high watermark: only records
	// committed after the member took the partition. Kafka's default.
	ResetLatest OffsetReset = iota
	// ResetEarliest starts at the partition's log start offset.
	ResetEarliest
)

// GroupConfig configures a GroupConsumer. Group and Topics are required;
// zero fields take the defaults.
type GroupConfig struct {
	// Group is the group id (Kafka's group.id).
	Group string
	// Topics are the topics the member subscribes to. Their partitions
	// are assigned over the group's members by the leader, with Kafka's
	// range assignor.
	Topics []string
	// InstanceID makes the member static (Kafka's group.instance.id,
	// KIP-345): a member that rejoins under the same id within its
	// session keeps its partitions without a rebalance, and Close does
	// not leave the group (its session timeout does), as Kafka's static
	// members. "" is a dynamic member.
	InstanceID string
	// SessionTimeoutMs is how long the coordinator waits without a
	// heartbeat before it removes the member. It must lie within the
	// brokers' group.min/max.session.timeout.ms. Default
	// DefaultSessionTimeoutMs.
	SessionTimeoutMs int32
	// RebalanceTimeoutMs is how long the coordinator waits for every
	// member to join again once a rebalance starts. Default
	// DefaultRebalanceTimeoutMs.
	RebalanceTimeoutMs int32
	// HeartbeatIntervalMs is the time between heartbeats, on the client's
	// clock; a heartbeat is how a member learns of a rebalance. Keep it
	// well under SessionTimeoutMs. Default DefaultHeartbeatIntervalMs.
	HeartbeatIntervalMs int64
	// Reset is where a partition with no committed offset starts.
	// Default ResetLatest.
	Reset OffsetReset
	// Consumer configures the fetches of the assigned partitions.
	Consumer ConsumerConfig
	// OnAssigned, if set, is told each assignment once the member holds
	// it: the generation and the partitions, sorted (Kafka's
	// ConsumerRebalanceListener.onPartitionsAssigned). It runs on the
	// member's own goroutine and must not block.
	OnAssigned func(generation int32, partitions []TopicPartition)
}

// GroupConsumer is a member of a consumer group: it joins the group
// through its coordinator (the broker that leads the group's partition of
// __consumer_offsets), reads the partitions the group assigns it from
// their committed offsets, heartbeats, takes part in every rebalance, and
// commits the positions it has handed out. It is safe for concurrent use;
// one Records iteration at a time reads its records.
//
// A rebalance is eager, as Kafka's classic protocol: the member stops
// fetching every partition before it joins again, and starts from the
// committed offsets of its new assignment. Records handed out but not
// committed before a rebalance may be read again by the partition's next
// owner (at least once); a commit the coordinator acknowledged is in
// __consumer_offsets' committed log and survives the coordinator's death.
type GroupConsumer struct {
	c   *Client
	cfg GroupConfig
	co  *Consumer

	recs    chan groupRecord
	closing chan struct{} // closed by Close
	done    chan struct{} // closed when the member's goroutine ends

	mu         sync.Mutex
	memberID   string
	generation int32
	coord      *conn // the coordinator's connection, nil while unknown
	assigned   []TopicPartition
	// positions are the next offsets to commit: after the last record
	// handed out, or the committed offset the partition started from.
	positions map[TopicPartition]groupPosition
	// assignment numbers the assignments; a record fetched under an
	// older one is dropped.
	assignment uint64
	// handed counts the records Records handed out, committed those a
	// commit covered (or a rebalance made uncommittable); lost is set
	// when a rebalance took partitions with records handed out and not
	// committed, for the next Commit to say.
	handed, committedHanded uint64
	lost                    bool
	closeOnce               sync.Once
	leaveErr                error
	err                     error // why the member stopped, once done is closed
	back                    *backoff
	failures                int
}

type groupPosition struct {
	offset      uint64
	leaderEpoch int32
}

// groupRecord is a fetched record, or a partition's fetch that ended with
// err, under assignment number assignment.
type groupRecord struct {
	rec        Record
	err        error
	assignment uint64
}

// NewGroupConsumer returns a member of group cfg.Group on c and starts
// joining at once.
func (c *Client) NewGroupConsumer(cfg GroupConfig) (*GroupConsumer, error) {
	if cfg.Group == "" {
		return nil, configError("GroupConfig.Group", "empty")
	}
	if len(cfg.Topics) == 0 {
		return nil, configError("GroupConfig.Topics", "none")
	}
	for _, t := range cfg.Topics {
		if err := wire.ValidateTopic(t); err != nil {
			return nil, configError("GroupConfig.Topics", "%v", err)
		}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"SessionTimeoutMs", int64(cfg.SessionTimeoutMs)}, {"RebalanceTimeoutMs", int64(cfg.RebalanceTimeoutMs)},
		{"HeartbeatIntervalMs", cfg.HeartbeatIntervalMs},
	} {
		if f.v < 0 {
			return nil, configError("GroupConfig."+f.name, "%d is negative (0 takes the default)", f.v)
		}
	}
	if cfg.Reset > ResetEarliest {
		return nil, configError("GroupConfig.Reset", "%d is neither ResetLatest nor ResetEarliest", cfg.Reset)
	}
	cfg.SessionTimeoutMs = cmp.Or(cfg.SessionTimeoutMs, DefaultSessionTimeoutMs)
	cfg.RebalanceTimeoutMs = cmp.Or(cfg.RebalanceTimeoutMs, DefaultRebalanceTimeoutMs)
	cfg.HeartbeatIntervalMs = cmp.Or(cfg.HeartbeatIntervalMs, DefaultHeartbeatIntervalMs)
	if cfg.HeartbeatIntervalMs >= int64(cfg.SessionTimeoutMs) {
		return nil, configError("GroupConfig.HeartbeatIntervalMs", "%d is not below SessionTimeoutMs %d", cfg.HeartbeatIntervalMs, cfg.SessionTimeoutMs)
	}
	cfg.Topics = slices.Compact(slices.Sorted(slices.Values(cfg.Topics)))
	co, err := c.NewConsumer(cfg.Consumer)
	if err != nil {
		return nil, err
	}
	g := &GroupConsumer{
		c: c, cfg: cfg, co: co,
		recs: make(chan groupRecord), closing: make(chan struct{}), done: make(chan struct{}),
		generation: -1, positions: map[TopicPartition]groupPosition{}, back: c.newBackoff(),
	}
	for _, t := range cfg.Topics {
		c.meta.follow(t)
	}
	if !c.track.goroutine(g.run) {
		g.err = ErrClosed
		close(g.done)
	}
	return g, nil
}

// Records reads the records of the member's partitions as they arrive,
// each with its partition and offset, in offset order within a partition:
//
//	for rec, err := range member.Records(ctx) {
//		if err != nil {
//			return err
//		}
//		use(rec)
//		if err := member.Commit(ctx); err != nil { ... }
//	}
//
// Handing a record out moves its partition's position past it, so that
// the next Commit commits it. Across a rebalance the iteration goes on
// with the new assignment's partitions. An error ends the sequence: it is
// the last pair. It is ctx.Err() when ctx ends, ErrClosed once the member
// or the client is closed, or why the member could not stay in the group
// (a refusal no rejoin can change, such as wire.ErrFencedInstanceID) or
// read a partition.
func (g *GroupConsumer) Records(ctx context.Context) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		for {
			select {
			case r := <-g.recs:
				g.mu.Lock()
				current := r.assignment == g.assignment
				if current && r.err == nil {
					tp := TopicPartition{Topic: r.rec.Topic, Partition: r.rec.Partition}
					g.positions[tp] = groupPosition{offset: r.rec.Offset + 1, leaderEpoch: r.rec.LeaderEpoch}
					g.handed++
				}
				g.mu.Unlock()
				if !current {
					continue // fetched before a rebalance took the partition away
				}
				if r.err != nil {
					yield(Record{}, r.err)
					return
				}
				if !yield(r.rec, nil) {
					return
				}
			case <-ctx.Done():
				yield(Record{}, ctx.Err())
				return
			case <-g.done:
				yield(Record{}, g.err)
				return
			}
		}
	}
}

// Assignment returns the partitions the member holds now, sorted.
func (g *GroupConsumer) Assignment() []TopicPartition {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.assigned)
}

// Commit commits the member's position in each partition it holds (after
// the last record Records handed out, or where the partition started) and
// returns once the coordinator has answered, which it does only once the
// offsets are committed in __consumer_offsets: an acknowledged commit
// survives the coordinator's death. Kafka's commitSync. It retries a
// coordinator that moved or is loading, for up to
// ConsumerConfig.DefaultAPITimeoutMs. During a rebalance it fails with an
// error matching wire.ErrRebalanceInProgress, and after one the member
// missed with wire.ErrIllegalGeneration or wire.ErrUnknownMemberID (Kafka's
// CommitFailedException): the partitions' next owner starts from the last
// commit that succeeded. Once a rebalance took partitions whose records
// were handed out and not committed, the next Commit says so, with an
// error matching wire.ErrRebalanceInProgress, and commits nothing: those
// records will be read again. After Close it returns ErrClosed.
func (g *GroupConsumer) Commit(ctx context.Context) error {
	select {
	case <-g.done:
		return g.err // ErrClosed, or why the member stopped: it commits nothing
	default:
	}
	g.mu.Lock()
	if g.lost {
		g.lost = false
		gen := g.generation
		g.mu.Unlock()
		return fmt.Errorf("client: group %s: a rebalance (now generation %d) took partitions before their records were committed: %w",
			g.cfg.Group, gen, wire.ErrRebalanceInProgress)
	}
	handed := g.handed
	req := &wire.OffsetCommitRequest{Group: g.cfg.Group, Generation: g.generation, MemberID: g.memberID, GroupInstanceID: g.cfg.InstanceID}
	for _, tp := range g.assigned {
		if p, ok := g.positions[tp]; ok {
			req.Partitions = append(req.Partitions, wire.OffsetCommitPartition{Topic: tp.Topic, Partition: tp.Partition,
				Offset: p.offset, LeaderEpoch: p.leaderEpoch})
		}
	}
	g.mu.Unlock()
	if len(req.Partitions) == 0 {
		return nil
	}
	ctx, cancel := g.apiTimeout(ctx)
	defer cancel()
	for attempt := 0; ; attempt++ {
		payload, err := g.coordRoundTrip(ctx, req, 0)
		if err == nil {
			var resp wire.OffsetCommitResponse
			if resp, err = wire.DecodeOffsetCommitResponse(payload); err != nil {
				err = networkError("coordinator", err)
			} else {
				err = commitError(g.cfg.Group, resp)
			}
		}
		if err == nil {
			g.mu.Lock()
			g.committedHanded = max(g.committedHanded, handed)
			g.mu.Unlock()
		}
		if err == nil || !coordinatorRetriable(err) {
			return err
		}
		if errors.Is(err, wire.ErrNotCoordinator) || errors.Is(err, wire.ErrCoordinatorNotAvailable) {
			g.forgetCoordinator()
		}
		if err := g.sleep(ctx, g.c.newBackoff().delayMs(attempt)); err != nil {
			return err
		}
	}
}

// commitError is the first refusal of a commit's answer.
func commitError(groupID string, resp wire.OffsetCommitResponse) error {
	for _, p := range resp.Partitions {
		if p.ErrorCode != wire.CodeNone {
			return fmt.Errorf("client: commit of group %s: %w", groupID, refusal(TopicPartition{p.Topic, p.Partition}, "coordinator", p.ErrorCode))
		}
	}
	return nil
}

// apiTimeout bounds ctx by ConsumerConfig.DefaultAPITimeoutMs on the
// client's clock.
func (g *GroupConsumer) apiTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	ms := g.co.cfg.DefaultAPITimeoutMs
	t := g.c.clock.AfterFunc(ms, func() {
		cancel(fmt.Errorf("client: group %s: no answer within ConsumerConfig.DefaultAPITimeoutMs %d ms: %w", g.cfg.Group, ms, wire.ErrRequestTimedOut))
	})
	return ctx, func() { t.Stop(); cancel(nil) }
}

// Close stops fetching and, for a dynamic member, leaves the group so
// that it rebalances at once (a static member's partitions wait for it
// until its session times out). It returns once the member's goroutine
// has ended, with the LeaveGroup's refusal if any. Records then ends with
// ErrClosed.
func (g *GroupConsumer) Close() error {
	g.closeOnce.Do(func() { close(g.closing) })
	<-g.done
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.leaveErr
}

// errLeft stops the member's loop once Close was called.
var errLeft = errors.New("client: group member closing")

// run is the member's goroutine: join, sync, fetch and heartbeat until a
// rebalance, again, until Close, the client's close, or a refusal no
// rejoin can change.
func (g *GroupConsumer) run() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Close and the client's close end every wait of the loop.
	g.c.track.goroutine(func() {
		select {
		case <-g.closing:
		case <-g.c.track.closing():
		case <-ctx.Done():
		}
		cancel()
	})
	var err error
	for err == nil {
		err = g.member(ctx)
	}
	g.leave()
	if errors.Is(err, errLeft) || errors.Is(err, context.Canceled) || g.c.isClosed() {
		err = ErrClosed
	}
	g.mu.Lock()
	g.err = err
	g.assigned = nil
	g.assignment++
	if g.coord != nil {
		g.coord.fail(errSessionEnded)
		g.coord = nil
	}
	g.mu.Unlock()
	close(g.done)
}

// stopped returns why the loop must end now, if it must.
func (g *GroupConsumer) stopped(ctx context.Context) error {
	select {
	case <-g.closing:
		return errLeft
	default:
	}
	if g.c.isClosed() {
		return ErrClosed
	}
	return ctx.Err()
}

// member is one generation: it joins, syncs, starts the assignment's
// fetches and heartbeats until the member must join again (nil), or
// returns why it must stop.
func (g *GroupConsumer) member(ctx context.Context) error {
	if err := g.stopped(ctx); err != nil {
		return err
	}
	gen, parts, err := g.join(ctx)
	if err == nil {
		var starts map[TopicPartition]Position
		if starts, err = g.committed(ctx, parts); err == nil {
			g.failures = 0
			return g.hold(ctx, gen, parts, starts)
		}
	}
	return g.retry(ctx, err)
}

// retry decides what a failed step means: stop (returned), or join again
// after a backoff, having forgotten what the error says is stale.
func (g *GroupConsumer) retry(ctx context.Context, err error) error {
	if e := g.stopped(ctx); e != nil {
		return e
	}
	switch {
	case errors.Is(err, errRejoin):
		return nil
	case errors.Is(err, wire.ErrUnknownMemberID):
		g.setMember("", -1)
	case errors.Is(err, wire.ErrIllegalGeneration), errors.Is(err, wire.ErrRebalanceInProgress):
	case errors.Is(err, wire.ErrNotCoordinator), errors.Is(err, wire.ErrCoordinatorNotAvailable),
		errors.Is(err, wire.ErrNetworkException), errors.Is(err, wire.ErrRequestTimedOut):
		g.forgetCoordinator()
	case !wire.IsRetriable(err):
		return err
	}
	g.failures++
	return g.sleep(ctx, g.back.delayMs(g.failures-1))
}

// errRejoin asks for a join at once, without a backoff (KIP-394's second
// join).
var errRejoin = errors.New("client: join again")

func (g *GroupConsumer) setMember(id string, gen int32) {
	g.mu.Lock()
	g.memberID, g.generation = id, gen
	g.mu.Unlock()
}

// join joins the group and syncs: the generation and the partitions
// assigned.
func (g *GroupConsumer) join(ctx context.Context) (int32, []TopicPartition, error) {
	g.mu.Lock()
	memberID := g.memberID
	g.mu.Unlock()
	req := &wire.JoinGroupRequest{
		Group: g.cfg.Group, SessionTimeoutMs: g.cfg.SessionTimeoutMs, RebalanceTimeoutMs: g.cfg.RebalanceTimeoutMs,
		MemberID: memberID, GroupInstanceID: g.cfg.InstanceID, ProtocolType: consumerProtocolType,
		Protocols: []wire.GroupProtocol{{Name: rangeAssignor, Metadata: appendSubscription(nil, g.cfg.Topics)}},
		ClientID:  "kaenlog",
	}
	payload, err := g.coordRoundTrip(ctx, req, int64(g.cfg.RebalanceTimeoutMs))
	if err != nil {
		return 0, nil, err
	}
	resp, err := wire.DecodeJoinGroupResponse(payload)
	if err != nil {
		return 0, nil, networkError("coordinator", err)
	}
	switch resp.ErrorCode {
	case wire.CodeNone:
	case wire.CodeMemberIDRequired: // KIP-394: join again with this id
		g.setMember(resp.MemberID, -1)
		return 0, nil, errRejoin
	default:
		return 0, nil, groupRefusal(g.cfg.Group, "JoinGroup", resp.ErrorCode)
	}
	g.setMember(resp.MemberID, resp.Generation)
	sync := &wire.SyncGroupRequest{Group: g.cfg.Group, Generation: resp.Generation, MemberID: resp.MemberID,
		GroupInstanceID: g.cfg.InstanceID, ProtocolType: consumerProtocolType, Protocol: rangeAssignor}
	if resp.Leader == resp.MemberID && !resp.SkipAssignment {
		if sync.Assignments, err = g.assign(ctx, resp.Members); err != nil {
			return 0, nil, err
		}
	}
	if payload, err = g.coordRoundTrip(ctx, sync, int64(g.cfg.RebalanceTimeoutMs)); err != nil {
		return 0, nil, err
	}
	sresp, err := wire.DecodeSyncGroupResponse(payload)
	if err != nil {
		return 0, nil, networkError("coordinator", err)
	}
	if sresp.ErrorCode != wire.CodeNone {
		return 0, nil, groupRefusal(g.cfg.Group, "SyncGroup", sresp.ErrorCode)
	}
	parts, err := decodeAssignment(sresp.Assignment)
	if err != nil {
		return 0, nil, fmt.Errorf("client: group %s: the leader's assignment: %w", g.cfg.Group, err)
	}
	return resp.Generation, parts, nil
}

// groupRefusal is a coordinator's code for an API of group as an error.
func groupRefusal(group, api string, code wire.ErrorCode) error {
	return fmt.Errorf("client: %s of group %s: %w", api, group, code.Err())
}

// assign is the leader's work: the range assignment of every member's
// subscription over the partitions the metadata gives the topics.
func (g *GroupConsumer) assign(ctx context.Context, members []wire.GroupMember) ([]wire.GroupAssignment, error) {
	rms := make([]rangeMember, 0, len(members))
	topics := map[string]bool{}
	for _, m := range members {
		ts, err := decodeSubscription(m.Metadata)
		if err != nil {
			return nil, fmt.Errorf("client: group %s: member %s's subscription: %w", g.cfg.Group, m.MemberID, err)
		}
		for _, t := range ts {
			topics[t] = true
		}
		rms = append(rms, rangeMember{id: m.MemberID, instance: m.GroupInstanceID, topics: ts})
	}
	// Bounded by the rebalance timeout: past it the coordinator has
	// moved on without this leader's assignment.
	ctx, cancel := context.WithCancel(ctx)
	t := g.c.clock.AfterFunc(int64(g.cfg.RebalanceTimeoutMs), cancel)
	defer func() { t.Stop(); cancel() }()
	counts, err := g.partitionCounts(ctx, topics)
	if err != nil {
		return nil, err
	}
	plan := assignRange(rms, counts)
	out := make([]wire.GroupAssignment, 0, len(members))
	for _, m := range members {
		out = append(out, wire.GroupAssignment{MemberID: m.MemberID, Assignment: appendAssignment(nil, plan[m.MemberID])})
	}
	return out, nil
}

// partitionCounts returns each topic's partition count from the metadata
// the client has, waiting for an answer only while a topic was never in
// one; a topic the metadata denies gets none (Kafka's leader assigns only
// the partitions its metadata has).
func (g *GroupConsumer) partitionCounts(ctx context.Context, topics map[string]bool) (map[string]int32, error) {
	for {
		seen := g.c.meta.next()
		counts := map[string]int32{}
		var missing []string
		for t := range topics {
			n, ok, _, err := g.c.meta.partitions(t)
			switch {
			case ok:
				counts[t] = n
			case err == nil:
				missing = append(missing, t)
			}
		}
		if len(missing) == 0 {
			return counts, nil
		}
		for _, t := range missing {
			g.c.meta.follow(t)
		}
		g.c.meta.refresh(missing...)
		if err := g.c.meta.wait(ctx, seen); err != nil {
			return nil, err
		}
	}
}

// committed fetches the group's committed offsets of parts: where each
// partition starts, Reset for one with none.
func (g *GroupConsumer) committed(ctx context.Context, parts []TopicPartition) (map[TopicPartition]Position, error) {
	starts := make(map[TopicPartition]Position, len(parts))
	if len(parts) == 0 {
		return starts, nil
	}
	req := &wire.OffsetFetchRequest{Group: g.cfg.Group, Partitions: make([]wire.GroupPartition, len(parts))}
	for i, tp := range parts {
		req.Partitions[i] = wire.GroupPartition{Topic: tp.Topic, Partition: tp.Partition}
	}
	payload, err := g.coordRoundTrip(ctx, req, 0)
	if err != nil {
		return nil, err
	}
	resp, err := wire.DecodeOffsetFetchResponse(payload)
	if err != nil {
		return nil, networkError("coordinator", err)
	}
	if resp.ErrorCode != wire.CodeNone {
		return nil, groupRefusal(g.cfg.Group, "OffsetFetch", resp.ErrorCode)
	}
	reset := FromEnd()
	if g.cfg.Reset == ResetEarliest {
		reset = FromStart()
	}
	for _, tp := range parts {
		starts[tp] = reset
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.positions)
	for _, p := range resp.Partitions {
		tp := TopicPartition{Topic: p.Topic, Partition: p.Partition}
		if _, ok := starts[tp]; !ok {
			continue
		}
		if p.ErrorCode != wire.CodeNone {
			return nil, fmt.Errorf("client: OffsetFetch of group %s: %w", g.cfg.Group, refusal(tp, "coordinator", p.ErrorCode))
		}
		if p.HasOffset {
			starts[tp] = FromOffset(p.Offset)
			g.positions[tp] = groupPosition{offset: p.Offset, leaderEpoch: p.LeaderEpoch}
		}
	}
	return starts, nil
}

// hold holds an assignment: it fetches the partitions and heartbeats every
// HeartbeatIntervalMs until the coordinator says to join again (nil) or
// the member must stop. The fetches end before it returns.
func (g *GroupConsumer) hold(ctx context.Context, gen int32, parts []TopicPartition, starts map[TopicPartition]Position) error {
	fctx, stop := context.WithCancel(ctx)
	var fetchers sync.WaitGroup
	defer func() {
		stop()
		fetchers.Wait()
	}()
	g.mu.Lock()
	g.assignment++
	n := g.assignment
	g.assigned = parts
	g.mu.Unlock()
	if g.cfg.OnAssigned != nil {
		g.cfg.OnAssigned(gen, slices.Clone(parts))
	}
	for _, tp := range parts {
		fetchers.Add(1)
		go func() {
			defer fetchers.Done()
			g.fetch(fctx, n, tp, starts[tp])
		}()
	}
	for {
		if err := g.sleep(ctx, g.cfg.HeartbeatIntervalMs); err != nil {
			return err
		}
		g.mu.Lock()
		req := &wire.HeartbeatRequest{Group: g.cfg.Group, Generation: gen, MemberID: g.memberID, GroupInstanceID: g.cfg.InstanceID}
		g.mu.Unlock()
		payload, err := g.coordRoundTrip(ctx, req, 0)
		if err == nil {
			var resp wire.HeartbeatResponse
			if resp, err = wire.DecodeHeartbeatResponse(payload); err != nil {
				err = networkError("coordinator", err)
			} else if resp.ErrorCode != wire.CodeNone {
				err = groupRefusal(g.cfg.Group, "Heartbeat", resp.ErrorCode)
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, wire.ErrRebalanceInProgress), errors.Is(err, wire.ErrIllegalGeneration):
			return g.revoke(nil)
		case errors.Is(err, wire.ErrUnknownMemberID):
			g.setMember("", -1)
			return g.revoke(nil)
		case errors.Is(err, wire.ErrNotCoordinator), errors.Is(err, wire.ErrCoordinatorNotAvailable),
			errors.Is(err, wire.ErrNetworkException), errors.Is(err, wire.ErrRequestTimedOut):
			g.forgetCoordinator() // the next heartbeat finds it again; the session may outlive the move
		case wire.IsRetriable(err):
		default:
			return g.revoke(err)
		}
	}
}

// revoke drops the assignment before the member joins again (or stops),
// and returns err.
func (g *GroupConsumer) revoke(err error) error {
	g.mu.Lock()
	g.assigned = nil
	g.assignment++
	if g.handed != g.committedHanded {
		g.lost, g.committedHanded = true, g.handed
	}
	g.mu.Unlock()
	return err
}

// fetch reads tp from start for assignment n and hands the records to
// Records, until ctx ends. An offset out of range starts again at Reset,
// as Kafka's auto.offset.reset does; any other end of the partition's
// iteration is handed to Records as its error.
func (g *GroupConsumer) fetch(ctx context.Context, n uint64, tp TopicPartition, start Position) {
	for {
		var end error
		for rec, err := range g.co.Records(ctx, tp, start) {
			if err != nil {
				end = err
				break
			}
			select {
			case g.recs <- groupRecord{rec: rec, assignment: n}:
			case <-ctx.Done():
				return
			}
		}
		if ctx.Err() != nil || end == nil || errors.Is(end, ErrClosed) {
			return
		}
		var oor *OffsetOutOfRangeError
		if errors.As(end, &oor) {
			start = FromEnd()
			if g.cfg.Reset == ResetEarliest {
				start = FromStart()
			}
			continue
		}
		select {
		case g.recs <- groupRecord{err: end, assignment: n}:
		case <-ctx.Done():
		}
		return
	}
}

// leave sends a dynamic member's LeaveGroup, once its loop ends; a static
// member stays in the group until its session times out.
func (g *GroupConsumer) leave() {
	g.mu.Lock()
	id := g.memberID
	g.mu.Unlock()
	if id == "" || g.cfg.InstanceID != "" || g.c.isClosed() {
		return
	}
	// A fresh context, the loop's being done, bounded by the request
	// timeout: finding the coordinator again may wait for metadata.
	ctx, cancel := context.WithCancel(context.Background())
	t := g.c.clock.AfterFunc(g.c.cfg.RequestTimeoutMs, cancel)
	defer func() { t.Stop(); cancel() }()
	payload, err := g.coordRoundTrip(ctx, &wire.LeaveGroupRequest{Group: g.cfg.Group,
		Members: []wire.LeavingMember{{MemberID: id}}}, 0)
	if err == nil {
		var resp wire.LeaveGroupResponse
		if resp, err = wire.DecodeLeaveGroupResponse(payload); err != nil {
			err = networkError("coordinator", err)
		} else if resp.ErrorCode != wire.CodeNone {
			err = groupRefusal(g.cfg.Group, "LeaveGroup", resp.ErrorCode)
		} else {
			for _, m := range resp.Members {
				if m.ErrorCode != wire.CodeNone {
					err = groupRefusal(g.cfg.Group, "LeaveGroup", m.ErrorCode)
				}
			}
		}
	}
	g.mu.Lock()
	g.leaveErr = err
	g.mu.Unlock()
	g.setMember("", -1)
}

// sleep waits ms on the client's clock.
func (g *GroupConsumer) sleep(ctx context.Context, ms int64) error {
	ch := make(chan struct{})
	t := g.c.clock.AfterFunc(ms, func() { close(ch) })
	defer t.Stop()
	if g.c.onSleep != nil {
		g.c.onSleep(ms)
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
			return cause
		}
		return ctx.Err()
	case <-g.c.track.closing():
		return ErrClosed
	}
}

// coordinatorRetriable reports whether a commit may be sent again: the
// coordinator moved, is loading, or the connection broke.
func coordinatorRetriable(err error) bool {
	return errors.Is(err, wire.ErrNotCoordinator) || errors.Is(err, wire.ErrCoordinatorNotAvailable) ||
		errors.Is(err, wire.ErrCoordinatorLoadInProgress) || errors.Is(err, wire.ErrNetworkException)
}

// forgetCoordinator drops the coordinator's connection: the next request
// finds the coordinator again.
func (g *GroupConsumer) forgetCoordinator() {
	g.mu.Lock()
	cn := g.coord
	g.coord = nil
	g.mu.Unlock()
	if cn != nil {
		cn.fail(errSessionEnded)
	}
}

// coordRoundTrip sends m to the group's coordinator, finding it first if
// it is unknown, and returns the answer's payload.
func (g *GroupConsumer) coordRoundTrip(ctx context.Context, m wire.Message, waitMs int64) ([]byte, error) {
	cn, err := g.coordinator(ctx)
	if err != nil {
		return nil, err
	}
	payload, err := g.c.roundTrip(ctx, cn, m, waitMs)
	if err != nil {
		if errors.Is(err, wire.ErrNetworkException) || errors.Is(err, wire.ErrRequestTimedOut) {
			g.forgetCoordinator()
		}
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil && cause != ctx.Err() {
			return nil, cause
		}
		return nil, err
	}
	return payload, nil
}

// coordinator returns the connection to the group's coordinator, asking a
// broker which one it is (FindCoordinator) when it is unknown.
func (g *GroupConsumer) coordinator(ctx context.Context) (*conn, error) {
	g.mu.Lock()
	cn := g.coord
	g.mu.Unlock()
	if cn != nil && !cn.broken() {
		return cn, nil
	}
	id, addr, err := g.c.meta.anyBroker(ctx)
	if err != nil {
		return nil, err
	}
	bc, err := g.c.produceConn(id, addr)
	if err != nil {
		return nil, err
	}
	payload, err := g.c.roundTrip(ctx, bc, &wire.FindCoordinatorRequest{Group: g.cfg.Group}, 0)
	if err != nil {
		return nil, err
	}
	resp, err := wire.DecodeFindCoordinatorResponse(payload)
	if err != nil {
		return nil, networkError(bc.peer, err)
	}
	if resp.ErrorCode != wire.CodeNone {
		return nil, groupRefusal(g.cfg.Group, "FindCoordinator", resp.ErrorCode)
	}
	caddr, ok := g.c.meta.brokerAddr(resp.NodeID)
	if !ok {
		g.c.meta.refresh()
		return nil, fmt.Errorf("client: group %s: coordinator %d has no endpoint yet: %w", g.cfg.Group, resp.NodeID, wire.ErrCoordinatorNotAvailable)
	}
	// A connection of the member's own: a JoinGroup waits there for the
	// rebalance, and a broker answers a connection's requests in order.
	if cn, err = g.c.privateConn(resp.NodeID, caddr); err != nil {
		return nil, err
	}
	g.mu.Lock()
	if g.coord != nil && !g.coord.broken() {
		old := cn
		cn = g.coord
		g.mu.Unlock()
		old.fail(errSessionEnded)
		return cn, nil
	}
	g.coord = cn
	g.mu.Unlock()
	return cn, nil
}

// anyBroker returns a broker to ask FindCoordinator of: the one with the
// lowest id in the metadata, waiting for an answer that has one.
func (m *metadata) anyBroker(ctx context.Context) (int32, string, error) {
	for {
		seen := m.next()
		m.mu.Lock()
		id, addr, found := int32(0), "", false
		for b, a := range m.brokers {
			if !found || b < id {
				id, addr, found = b, a, true
			}
		}
		m.mu.Unlock()
		if found {
			return id, addr, nil
		}
		m.refresh()
		if err := m.wait(ctx, seen); err != nil {
			return 0, "", err
		}
	}
}

// brokerAddr returns broker id's address, if the metadata has it.
func (m *metadata) brokerAddr(id int32) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	addr, ok := m.brokers[id]
	return addr, ok
}
