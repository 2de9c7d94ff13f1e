package group_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

// harness drives a Coordinator as a host would: it appends every write to
// an in-memory partition log and, unless holdCommits, reports the high
// watermark past it at once. Answers are collected by Ref.
type harness struct {
	t           *testing.T
	c           *group.Coordinator
	now         int64
	log         []group.Record
	holdCommits bool
	hw          uint64 // the high watermark last reported
	failWrites  error
	answers     map[uint64]group.Response
	nextRef     uint64
}

func newHarness(t *testing.T, cfg group.Config) *harness {
	t.Helper()
	h := &harness{t: t, c: group.New(cfg), answers: map[uint64]group.Response{}, now: 1_000_000}
	h.c.BeginLoad()
	h.c.Loaded(h.now)
	return h
}

// quickConfig is Kafka's defaults; settle waits out its initial delay.
func quickConfig() group.Config { return group.DefaultConfig() }

// settle lets rebalances in progress complete: time moves to each next
// deadline while a group is PreparingRebalance (the initial delay waits
// again each time a member arrived during it).
func (h *harness) settle() {
	for i := 0; i < 20; i++ {
		preparing := h.c.ListGroups(group.ListGroupsRequest{States: []group.State{group.PreparingRebalance}}).Groups
		d, ok := h.c.NextDeadlineMs()
		if len(preparing) == 0 || !ok {
			return
		}
		h.advance(max(d-h.now, 0))
	}
	h.t.Fatal("rebalance did not complete in 20 deadlines")
}

// pump moves the coordinator's writes into the log and its answers into
// h.answers.
func (h *harness) pump() {
	for {
		r := h.c.Ready()
		if len(r.Writes) == 0 && len(r.Responses) == 0 {
			return
		}
		for _, w := range r.Writes {
			if h.failWrites != nil {
				h.c.AppendFailed(w.Seq, h.failWrites)
				continue
			}
			h.log = append(h.log, w.Records...)
			h.c.Appended(w.Seq, uint64(len(h.log)-1))
		}
		if !h.holdCommits {
			h.hw = uint64(len(h.log))
			h.c.Committed(h.hw)
		}
		for _, a := range r.Responses {
			if _, dup := h.answers[a.RequestRef()]; dup {
				h.t.Fatalf("request %d answered twice", a.RequestRef())
			}
			h.answers[a.RequestRef()] = a
		}
	}
}

func (h *harness) ref() uint64 { h.nextRef++; return h.nextRef }

// advance moves the clock and runs the timeouts due.
func (h *harness) advance(ms int64) {
	h.now += ms
	h.c.Tick(h.now)
	h.pump()
}

// join sends a JoinGroup and returns its Ref; the answer may wait.
func (h *harness) join(req group.JoinGroupRequest) uint64 {
	req.Ref = h.ref()
	if req.SessionTimeoutMs == 0 {
		req.SessionTimeoutMs = 10_000
	}
	if req.RebalanceTimeoutMs == 0 {
		req.RebalanceTimeoutMs = 30_000
	}
	if req.ProtocolType == "" {
		req.ProtocolType = "consumer"
	}
	if req.Protocols == nil {
		req.Protocols = []group.Protocol{{Name: "range", Metadata: subscription("orders")}}
	}
	if req.ClientID == "" {
		req.ClientID = "client"
	}
	h.c.JoinGroup(h.now, req)
	h.pump()
	return req.Ref
}

func (h *harness) sync(req group.SyncGroupRequest) uint64 {
	req.Ref = h.ref()
	h.c.SyncGroup(h.now, req)
	h.pump()
	return req.Ref
}

func (h *harness) commit(req group.OffsetCommitRequest) uint64 {
	req.Ref = h.ref()
	h.c.OffsetCommit(h.now, req)
	h.pump()
	return req.Ref
}

// answerTo returns the answer to ref, failing if there is none yet.
func answerTo[T group.Response](h *harness, ref uint64) T {
	h.t.Helper()
	a, ok := h.answers[ref].(T)
	if !ok {
		var zero T
		h.t.Fatalf("request %d has no %T answer", ref, zero)
	}
	return a
}

func (h *harness) joinAnswer(ref uint64) group.JoinGroupResponse {
	h.t.Helper()
	return answerTo[group.JoinGroupResponse](h, ref)
}

func (h *harness) syncAnswer(ref uint64) group.SyncGroupResponse {
	h.t.Helper()
	return answerTo[group.SyncGroupResponse](h, ref)
}

func (h *harness) answered(ref uint64) bool {
	_, ok := h.answers[ref]
	return ok
}

// joinNew joins a dynamic member through MEMBER_ID_REQUIRED and returns
// its id and the Ref of its second, real join.
func (h *harness) joinNew(g string, req group.JoinGroupRequest) (memberID string, ref uint64) {
	h.t.Helper()
	req.Group, req.RequireKnownMemberID = g, true
	first := h.joinAnswer(h.join(req))
	if !errors.Is(first.Err, wire.ErrMemberIDRequired) {
		h.t.Fatalf("first join: %v, want MEMBER_ID_REQUIRED", first.Err)
	}
	req.MemberID = first.MemberID
	return first.MemberID, h.join(req)
}

// stableGroup forms a group of n dynamic members with the leader's
// assignment "a-<id>" for each and returns the ids (leader first) and the
// generation.
func (h *harness) stableGroup(g string, n int) ([]string, int32) {
	h.t.Helper()
	var ids []string
	var refs []uint64
	for i := 0; i < n; i++ {
		id, ref := h.joinNew(g, group.JoinGroupRequest{})
		ids, refs = append(ids, id), append(refs, ref)
	}
	h.settle()
	lead := h.joinAnswer(refs[0])
	if lead.Err != nil || lead.Leader != ids[0] {
		h.t.Fatalf("leader's join: %+v", lead)
	}
	var assign []group.Assignment
	for _, id := range ids {
		assign = append(assign, group.Assignment{MemberID: id, Assignment: []byte("a-" + id)})
	}
	var syncs []uint64
	for i, id := range ids {
		req := group.SyncGroupRequest{Group: g, Generation: lead.Generation, MemberID: id}
		if i == 0 {
			req.Assignments = assign
		}
		syncs = append(syncs, h.sync(req))
	}
	for i, s := range syncs {
		if a := h.syncAnswer(s); a.Err != nil || string(a.Assignment) != "a-"+ids[i] {
			h.t.Fatalf("member %s's sync: %+v", ids[i], a)
		}
	}
	return ids, lead.Generation
}

func (h *harness) describe(g string) group.DescribedGroup {
	return h.c.DescribeGroups([]string{g})[0]
}

// subscription encodes a ConsumerProtocolSubscription v0 for topics.
func subscription(topics ...string) []byte {
	b := binary.BigEndian.AppendUint16(nil, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(len(topics)))
	for _, t := range topics {
		b = binary.BigEndian.AppendUint16(b, uint16(len(t)))
		b = append(b, t...)
	}
	return binary.BigEndian.AppendUint32(b, 0xFFFFFFFF) // null user data
}
