package group_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

// KIP-394, Kafka's GroupMetadataManager.classicGroupJoinNewDynamicMember:
// a JoinGroup v4+ without a member id is refused MEMBER_ID_REQUIRED with
// the id to use, remembered as pending; joining with it is a join.
func TestAJoinWithoutMemberIDIsAnsweredMemberIDRequiredAndTheIDIsRemembered(t *testing.T) {
	h := newHarness(t, quickConfig())
	first := h.joinAnswer(h.join(group.JoinGroupRequest{Group: "g", ClientID: "orders-app", RequireKnownMemberID: true}))
	if !errors.Is(first.Err, wire.ErrMemberIDRequired) || !strings.HasPrefix(first.MemberID, "orders-app-") {
		t.Fatalf("first join answered %+v, want MEMBER_ID_REQUIRED with an id starting with the client id", first)
	}
	if wire.CodeOf(first.Err) != wire.CodeMemberIDRequired {
		t.Fatalf("code %v", wire.CodeOf(first.Err))
	}
	ref := h.join(group.JoinGroupRequest{Group: "g", MemberID: first.MemberID, RequireKnownMemberID: true})
	h.settle()
	second := h.joinAnswer(ref)
	if second.Err != nil || second.MemberID != first.MemberID || second.Generation != 1 || second.Leader != first.MemberID {
		t.Fatalf("second join answered %+v, want generation 1 led by the remembered id", second)
	}
}

// Kafka's pending members expire after the session timeout: an id given
// with MEMBER_ID_REQUIRED and never used is forgotten.
func TestAPendingMemberIDIsForgottenAfterTheSessionTimeout(t *testing.T) {
	h := newHarness(t, quickConfig())
	first := h.joinAnswer(h.join(group.JoinGroupRequest{Group: "g", SessionTimeoutMs: 10_000, RequireKnownMemberID: true}))
	h.advance(10_000)
	if got := h.c.ListGroups(group.ListGroupsRequest{}).Groups; len(got) != 0 {
		t.Fatalf("the group only the pending member made is still listed: %+v", got)
	}
	late := h.joinAnswer(h.join(group.JoinGroupRequest{Group: "g", MemberID: first.MemberID, RequireKnownMemberID: true}))
	if !errors.Is(late.Err, wire.ErrUnknownMemberID) {
		t.Fatalf("join with an expired pending id: %v, want UNKNOWN_MEMBER_ID", late.Err)
	}
}

// Kafka answers a join whose session timeout is outside
// group.min/max.session.timeout.ms INVALID_SESSION_TIMEOUT, and an unknown
// member id for a group it does not have UNKNOWN_MEMBER_ID.
func TestAJoinIsRefusedForABadSessionTimeoutAnUnknownMemberOrAnEmptyGroupID(t *testing.T) {
	h := newHarness(t, quickConfig())
	for _, tc := range []struct {
		req  group.JoinGroupRequest
		want error
	}{
		{group.JoinGroupRequest{Group: "g", SessionTimeoutMs: 5999}, wire.ErrInvalidSessionTimeout},
		{group.JoinGroupRequest{Group: "g", SessionTimeoutMs: 1800001}, wire.ErrInvalidSessionTimeout},
		{group.JoinGroupRequest{Group: "g", MemberID: "ghost"}, wire.ErrUnknownMemberID},
		{group.JoinGroupRequest{Group: ""}, wire.ErrInvalidGroupID},
	} {
		if a := h.joinAnswer(h.join(tc.req)); !errors.Is(a.Err, tc.want) || a.Generation != -1 {
			t.Errorf("%+v answered %v (generation %d), want %v", tc.req, a.Err, a.Generation, tc.want)
		}
	}
	if got := h.c.ListGroups(group.ListGroupsRequest{}).Groups; len(got) != 0 {
		t.Errorf("refused joins left groups behind: %+v", got)
	}
}

// Kafka's ClassicGroup.add and onCompleteJoin: the first member to join
// leads; only the leader's answer lists the members, each with its
// metadata for the selected protocol.
func TestTheFirstMemberLeadsAndOnlyTheLeaderIsToldTheMembers(t *testing.T) {
	h := newHarness(t, quickConfig())
	a, ra := h.joinNew("g", group.JoinGroupRequest{Protocols: []group.Protocol{{Name: "range", Metadata: []byte("ma")}}})
	b, rb := h.joinNew("g", group.JoinGroupRequest{Protocols: []group.Protocol{{Name: "range", Metadata: []byte("mb")}}})
	h.settle()
	la, lb := h.joinAnswer(ra), h.joinAnswer(rb)
	if la.Leader != a || lb.Leader != a || la.Generation != lb.Generation {
		t.Fatalf("answers %+v / %+v, want both led by %s in one generation", la, lb, a)
	}
	if len(la.Members) != 2 || la.Members[0].MemberID != a || string(la.Members[1].Metadata) != "mb" || la.Members[1].MemberID != b {
		t.Fatalf("leader's members %+v", la.Members)
	}
	if len(lb.Members) != 0 {
		t.Fatalf("a follower was told the members: %+v", lb.Members)
	}
	if d := h.describe("g"); d.State != group.CompletingRebalance {
		t.Fatalf("state %v, want CompletingRebalance", d.State)
	}
}

// Kafka's ClassicGroup.selectProtocol: among the protocols every member
// supports, each member votes for its most preferred, and the most voted
// wins, even over the leader's preference.
func TestTheCommonProtocolMostMembersPreferIsSelected(t *testing.T) {
	h := newHarness(t, quickConfig())
	p := func(names ...string) []group.Protocol {
		var ps []group.Protocol
		for _, n := range names {
			ps = append(ps, group.Protocol{Name: n, Metadata: subscription("orders")})
		}
		return ps
	}
	_, r1 := h.joinNew("g", group.JoinGroupRequest{Protocols: p("range", "sticky", "roundrobin")})
	_, r2 := h.joinNew("g", group.JoinGroupRequest{Protocols: p("sticky", "range")})
	_, r3 := h.joinNew("g", group.JoinGroupRequest{Protocols: p("roundrobin", "sticky", "range")})
	_, r4 := h.joinNew("g", group.JoinGroupRequest{Protocols: p("sticky", "range")})
	h.settle()
	for _, r := range []uint64{r1, r2, r3, r4} {
		if a := h.joinAnswer(r); a.Protocol != "sticky" {
			t.Fatalf("selected %q, want sticky (2 votes against range's 1; roundrobin is not common)", a.Protocol)
		}
	}
}

// Kafka's ClassicGroup.supportsProtocols: a member sharing no protocol, or
// another protocol type, with the group is refused
// INCONSISTENT_GROUP_PROTOCOL; so is a first member with none.
func TestAJoinWithNoProtocolInCommonIsRefusedInconsistentGroupProtocol(t *testing.T) {
	h := newHarness(t, quickConfig())
	if a := h.joinAnswer(h.join(group.JoinGroupRequest{Group: "g", Protocols: []group.Protocol{}})); !errors.Is(a.Err, wire.ErrInconsistentGroupProtocol) {
		t.Fatalf("first join without protocols: %v", a.Err)
	}
	h.stableGroup("g", 1)
	other := h.joinAnswer(h.join(group.JoinGroupRequest{Group: "g", Protocols: []group.Protocol{{Name: "sticky"}}}))
	connect := h.joinAnswer(h.join(group.JoinGroupRequest{Group: "g", ProtocolType: "connect"}))
	if !errors.Is(other.Err, wire.ErrInconsistentGroupProtocol) || !errors.Is(connect.Err, wire.ErrInconsistentGroupProtocol) {
		t.Fatalf("answers %v / %v, want INCONSISTENT_GROUP_PROTOCOL", other.Err, connect.Err)
	}
}

// group.initial.rebalance.delay.ms (Kafka's InitialDelayedJoin): an Empty
// group's first rebalance waits the delay, again while members keep
// arriving, so they land in one generation.
func TestTheFirstRebalanceWaitsTheInitialDelayForMoreMembers(t *testing.T) {
	h := newHarness(t, group.DefaultConfig())
	_, r1 := h.joinNew("g", group.JoinGroupRequest{})
	h.advance(2000)
	_, r2 := h.joinNew("g", group.JoinGroupRequest{})
	h.advance(1000) // the first delay ends with a new member: wait again
	if h.answered(r1) || h.answered(r2) {
		t.Fatal("the rebalance completed while members were still arriving")
	}
	h.advance(3000)
	if a, b := h.joinAnswer(r1), h.joinAnswer(r2); a.Generation != 1 || b.Generation != 1 {
		t.Fatalf("generations %d and %d, want both 1", a.Generation, b.Generation)
	}
}

// Kafka's acceptJoiningMember: group.max.size bounds the members.
func TestAJoinPastTheGroupMaxSizeIsRefused(t *testing.T) {
	cfg := quickConfig()
	cfg.MaxGroupSize = 2
	h := newHarness(t, cfg)
	h.stableGroup("g", 2)
	if a := h.joinAnswer(h.join(group.JoinGroupRequest{Group: "g"})); !errors.Is(a.Err, wire.ErrGroupMaxSizeReached) {
		t.Fatalf("third member: %v, want GROUP_MAX_SIZE_REACHED", a.Err)
	}
}

// Before KIP-394 (JoinGroup v0-3) a dynamic member without an id joins at
// once: the coordinator gives it an id in the JoinGroup answer.
func TestAnOldClientsJoinWithoutMemberIDJoinsAtOnce(t *testing.T) {
	h := newHarness(t, quickConfig())
	ref := h.join(group.JoinGroupRequest{Group: "g", ClientID: "old", RequireKnownMemberID: false})
	h.settle()
	if a := h.joinAnswer(ref); a.Err != nil || !strings.HasPrefix(a.MemberID, "old-") || a.Generation != 1 {
		t.Fatalf("answered %+v, want generation 1 with a new id", a)
	}
}

// Every request gets one answer: a member's second JoinGroup while its
// first still waits releases the first with REBALANCE_IN_PROGRESS (Kafka
// drops it unanswered) and takes its place in the rebalance.
func TestAJoinThatReplacesAWaitingOneReleasesItWithRebalanceInProgress(t *testing.T) {
	h := newHarness(t, quickConfig())
	ids, _ := h.stableGroup("g", 2)
	first := h.join(group.JoinGroupRequest{Group: "g", MemberID: ids[0]})
	second := h.join(group.JoinGroupRequest{Group: "g", MemberID: ids[0]})
	if a := h.joinAnswer(first); !errors.Is(a.Err, wire.ErrRebalanceInProgress) {
		t.Fatalf("the replaced join answered %v", a.Err)
	}
	if h.answered(second) {
		t.Fatal("the second join was answered before the rebalance completed")
	}
	h.join(group.JoinGroupRequest{Group: "g", MemberID: ids[1]})
	if a := h.joinAnswer(second); a.Err != nil || a.Leader != ids[0] {
		t.Fatalf("the second join answered %+v", a)
	}
}
