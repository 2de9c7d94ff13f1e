package replica_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The controller moves leadership from broker 1 to broker 2 at epoch 1;
// broker 3 follows the new leader; broker 1 has not heard yet and still
// believes it leads epoch 0. Epochs fence every cross-talk: the new-epoch
// follower's fetch and offsets question are refused by the stale leader
// (and do not count for its ISR), a stale-epoch fetch is refused by the new
// leader, and the stale leader cannot commit anything with
// min.insync.replicas 2. Once told, it rejoins and its uncommitted writes
// are the only thing that goes.
func TestReviewStaleLeaderIsFenced(t *testing.T) {
	b := newBrokers(t, 1, 2, 3)
	b.lead(1, 0, []int32{2, 3}, 2, now)
	b.follow(2, 1, 0)
	b.follow(3, 1, 0)
	b.produce(1, 2)
	for range 2 {
		b.mustFetch(2, 1, now)
		b.mustFetch(3, 1, now)
	}
	b.check(1)

	// Epoch 1: broker 2 leads, broker 3 follows it. Broker 1 is not told.
	b.lead(2, 1, []int32{3, 1}, 2, now)
	b.follow(3, 2, 1)
	b.produce(2, 1) // v3 at offset 2, epoch 1

	// Broker 3, at epoch 1, fetches from the stale broker 1 at epoch 0.
	zombieHW := b.r[1].HighWatermark()
	b.produce(1, 1) // v4 at offset 2, epoch 0, on the zombie only
	if _, _, err := b.fetch(3, 1, now); !errors.Is(err, wire.ErrUnknownLeaderEpoch) {
		t.Fatalf("epoch-1 follower fetching from the epoch-0 leader: %v, want UNKNOWN_LEADER_EPOCH", err)
	}
	if _, err := b.r[3].TruncateByLeaderEpoch(b.link[3].FollowerEnd(), b.nextCorr, func() error {
		return b.r[1].ServeOne(b.link[3].LeaderEnd(), now)
	}); !errors.Is(err, wire.ErrUnknownLeaderEpoch) {
		t.Fatalf("epoch-1 follower asking the epoch-0 leader: %v, want UNKNOWN_LEADER_EPOCH", err)
	}
	if lo, ok := b.r[1].ISR().FollowerLEO(3); !ok || lo != 2 || b.r[1].HighWatermark() != zombieHW {
		t.Fatalf("a fenced fetch counted on the zombie: broker 3 at %d (%v), HW %d", lo, ok, b.r[1].HighWatermark())
	}

	// The zombie's time rule removes both followers (they no longer fetch
	// from it): under min.insync.replicas it refuses acks=all and commits
	// nothing, so nothing it writes now can be acknowledged as committed.
	later := now + isr.DefaultLagMaxMs + 1
	if _, err := b.r[1].ShrinkISR(later); err != nil {
		t.Fatal(err)
	}
	if _, code, err := produceOne(b.r[1], "v-zombie", wire.AcksAll); err != nil || code != wire.CodeNotEnoughReplicas {
		t.Fatalf("acks=all on the zombie: %v %v, want NOT_ENOUGH_REPLICAS", code, err)
	}
	if hw := b.r[1].HighWatermark(); hw != zombieHW {
		t.Fatalf("the zombie's HW moved to %d", hw)
	}

	// A follower still at epoch 0 is fenced by the new leader.
	req := b.r[1].FetchRequest(99)
	req.ReplicaID = 3
	req.CurrentLeaderEpoch = 0
	if resp, _, err := b.r[2].HandleFetch(&req, nil, now); err != nil || resp.ErrorCode != wire.CodeFencedLeaderEpoch {
		t.Fatalf("epoch-0 fetch at the epoch-1 leader: %v %v, want FENCED_LEADER_EPOCH", resp.ErrorCode, err)
	}
	// Leadership never goes back in time.
	if err := b.r[2].BecomeLeader(0, []int32{1, 3}, 2, now); !errors.Is(err, replica.ErrStaleEpoch) {
		t.Fatalf("leading an older epoch: %v", err)
	}
	if err := b.r[3].BecomeFollower(1, 0); !errors.Is(err, replica.ErrStaleEpoch) {
		t.Fatalf("following an older epoch: %v", err)
	}

	// The zombie is told, rejoins by fetching, and converges: its v4 was
	// never committed and is the only record that goes.
	b.follow(1, 2, 1)
	for range 3 {
		b.mustFetch(3, 2, later)
		b.mustFetch(1, 2, later)
		b.check(2)
	}
	sameLog(t, b.r[1], b.r[2])
	sameLog(t, b.r[3], b.r[2])
	got := recordValues(records(t, b.r[2]))
	if want := []string{"v1", "v2", "v3"}; !slices.Equal(got, want) {
		t.Fatalf("converged log %v, want %v", got, want)
	}
}

// A broker that no longer leads answers a fetch, an offsets question and a
// produce with NOT_LEADER_OR_FOLLOWER, over the wire as in memory, and
// none of them changes any log.
func TestReviewRequestsToAFollower(t *testing.T) {
	b := newBrokers(t, 1, 2, 3)
	b.lead(1, 0, []int32{2, 3}, 1, now)
	b.follow(2, 1, 0)
	b.follow(3, 1, 0)
	b.produce(1, 2)
	for range 2 {
		b.mustFetch(2, 1, now)
		b.mustFetch(3, 1, now)
	}
	// Leadership moves to broker 2 at epoch 1; brokers 1 and 3 follow it.
	b.lead(2, 1, []int32{1, 3}, 1, now)
	b.follow(1, 2, 1)
	b.follow(3, 2, 1)
	b.produce(2, 1)
	leo := map[int32]uint64{1: b.r[1].LEO(), 2: b.r[2].LEO(), 3: b.r[3].LEO()}
	hw := map[int32]uint64{1: b.r[1].HighWatermark(), 2: b.r[2].HighWatermark(), 3: b.r[3].HighWatermark()}

	// Broker 3 still fetches from broker 1, at the right epoch: refused,
	// and the answer is an error it can match, not records.
	if _, shipped, err := b.fetch(3, 1, now); !errors.Is(err, wire.ErrNotLeaderOrFollower) || shipped != 0 {
		t.Fatalf("fetch from a follower: shipped %d, %v; want NOT_LEADER_OR_FOLLOWER", shipped, err)
	}
	if _, err := b.r[3].TruncateByLeaderEpoch(b.link[3].FollowerEnd(), b.nextCorr, func() error {
		return b.r[1].ServeOne(b.link[3].LeaderEnd(), now)
	}); !errors.Is(err, wire.ErrNotLeaderOrFollower) {
		t.Fatalf("offsets question to a follower: %v, want NOT_LEADER_OR_FOLLOWER", err)
	}
	// A consumer is refused the same way.
	creq := wire.FetchRequest{CorrelationID: 5, ReplicaID: wire.ConsumerReplicaID, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, MaxBytes: 1 << 20}
	if resp, _, err := b.r[1].HandleFetch(&creq, nil, now); err != nil || resp.ErrorCode != wire.CodeNotLeaderOrFollower || len(resp.Records) != 0 {
		t.Fatalf("consumer fetch from a follower: %v %v %d bytes", resp.ErrorCode, err, len(resp.Records))
	}

	// A producer that still thinks broker 1 leads: in memory...
	if _, code, err := produceOne(b.r[1], "lost", wire.AcksAll); err != nil || code != wire.CodeNotLeaderOrFollower {
		t.Fatalf("produce to a follower: %v %v", code, err)
	}
	// ...and over the wire, where the refusal is a response, not a broken
	// connection.
	batch, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: []log.Record{{Value: []byte("lost")}}})
	if err != nil {
		t.Fatal(err)
	}
	preq := wire.ProduceRequest{CorrelationID: 11, Acks: wire.AcksAll, TimeoutMs: 1000, Records: batch}
	msg, err := preq.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	link := replica.NewMemLink()
	if err := wire.WriteFrame(link.FollowerEnd(), msg); err != nil {
		t.Fatal(err)
	}
	if err := b.r[1].ServeOne(link.LeaderEnd(), now); err != nil {
		t.Fatalf("ServeOne of a produce on a follower: %v", err)
	}
	payload, err := wire.ReadFrame(link.FollowerEnd(), nil, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	presp, err := wire.DecodeProduceResponse(payload)
	if err != nil || presp.ErrorCode != wire.CodeNotLeaderOrFollower || presp.HasBaseOffset || presp.CorrelationID != 11 {
		t.Fatalf("produce response from a follower: %+v %v", presp, err)
	}

	for id := int32(1); id <= 3; id++ {
		if b.r[id].LEO() != leo[id] || b.r[id].HighWatermark() != hw[id] {
			t.Fatalf("refused requests changed broker %d: LEO %d→%d HW %d→%d", id, leo[id], b.r[id].LEO(), hw[id], b.r[id].HighWatermark())
		}
	}
	// The real leader still serves both followers.
	for range 2 {
		b.mustFetch(1, 2, now)
		b.mustFetch(3, 2, now)
		b.check(2)
	}
	sameLog(t, b.r[1], b.r[2])
	sameLog(t, b.r[3], b.r[2])
}

// The leader itself restarts. It comes back a follower with no ISR state,
// refuses every leader-only request, and its followers' fetches are refused
// rather than served from stale state; once the controller makes it leader
// again (same epoch: nobody else was elected) its HW has not moved
// backwards, its epoch cache still says where its epoch began, and
// replication resumes.
func TestReviewLeaderRestartMustBeMadeLeaderAgain(t *testing.T) {
	b := newBrokers(t, 1, 2)
	b.lead(1, 4, []int32{2}, 2, now)
	b.follow(2, 1, 4)
	b.produce(1, 3)
	b.mustFetch(2, 1, now)
	b.mustFetch(2, 1, now)
	b.produce(1, 1) // uncommitted
	b.check(1)
	l := b.r[1]
	hw, leo, entries := l.HighWatermark(), l.LEO(), l.Epochs().Entries()

	if err := l.Restart(); err != nil {
		t.Fatal(err)
	}
	if l.Role() != replica.RoleFollower || l.ISR() != nil || l.LeaderEpoch() != 4 {
		t.Fatalf("after restart: role %v ISR %v epoch %d", l.Role(), l.ISR(), l.LeaderEpoch())
	}
	if l.HighWatermark() != hw || l.LEO() != leo || !slices.Equal(l.Epochs().Entries(), entries) {
		t.Fatalf("restart lost state: HW %d→%d LEO %d→%d epochs %v→%v", hw, l.HighWatermark(), leo, l.LEO(), entries, l.Epochs().Entries())
	}
	if _, code, err := produceOne(l, "x", wire.AcksLeader); err != nil || code != wire.CodeNotLeaderOrFollower {
		t.Fatalf("produce to a restarted leader: %v %v", code, err)
	}
	if _, err := l.AckVerdict(1); !errors.Is(err, replica.ErrNotLeader) {
		t.Fatalf("AckVerdict: %v", err)
	}
	if _, err := l.ShrinkISR(now); !errors.Is(err, replica.ErrNotLeader) {
		t.Fatalf("ShrinkISR: %v", err)
	}
	if err := l.Readmit(2); !errors.Is(err, replica.ErrNotLeader) {
		t.Fatalf("Readmit: %v", err)
	}
	if _, _, err := b.fetch(2, 1, now); !errors.Is(err, wire.ErrNotLeaderOrFollower) {
		t.Fatalf("a follower fetching from the restarted leader: %v, want NOT_LEADER_OR_FOLLOWER", err)
	}
	b.check(1)

	b.lead(1, 4, []int32{2}, 2, now)
	if err := l.BecomeLeader(4, []int32{2}, 2, now); !errors.Is(err, replica.ErrStaleEpoch) {
		t.Fatalf("leading the same epoch twice: %v", err)
	}
	if l.HighWatermark() != hw || !slices.Equal(l.Epochs().Entries(), entries) {
		t.Fatalf("leading again: HW %d (was %d) epochs %v (were %v)", l.HighWatermark(), hw, l.Epochs().Entries(), entries)
	}
	b.mustFetch(2, 1, now)
	b.mustFetch(2, 1, now)
	if l.HighWatermark() != leo {
		t.Fatalf("replication resumed but HW is %d, want %d", l.HighWatermark(), leo)
	}
	b.check(1)
	sameLog(t, b.r[2], l)
}

// Close and Restart in every role: a never-assigned replica, a follower, a
// leader, a restarted leader. Restart keeps the log, HW and epochs and
// leaves a leader a follower; Close makes every operation ErrClosed, and a
// closed replica cannot be restarted.
func TestReviewCloseAndRestartInEveryRole(t *testing.T) {
	setups := []struct {
		name  string
		setup func(b *brokers) *replica.Replica
		role  replica.Role // after Restart
	}{
		{"fresh", func(b *brokers) *replica.Replica { return b.r[3] }, replica.RoleFollower},
		{"follower", func(b *brokers) *replica.Replica { return b.r[2] }, replica.RoleFollower},
		{"leader", func(b *brokers) *replica.Replica { return b.r[1] }, replica.RoleFollower},
		{"restarted-leader", func(b *brokers) *replica.Replica {
			if err := b.r[1].Restart(); err != nil {
				b.t.Fatal(err)
			}
			return b.r[1]
		}, replica.RoleFollower},
	}
	for _, tc := range setups {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrokers(t, 1, 2, 3)
			b.lead(1, 2, []int32{2}, 1, now)
			b.follow(2, 1, 2)
			b.produce(1, 2)
			b.mustFetch(2, 1, now)
			b.mustFetch(2, 1, now)
			r := tc.setup(b)

			hw, leo, entries, epochBefore := r.HighWatermark(), r.LEO(), r.Epochs().Entries(), r.LeaderEpoch()
			if err := r.Restart(); err != nil {
				t.Fatal(err)
			}
			if r.Role() != tc.role || r.HighWatermark() != hw || r.LEO() != leo || r.LeaderEpoch() != epochBefore ||
				!slices.Equal(r.Epochs().Entries(), entries) || r.Log().EagerHighWatermark() {
				t.Fatalf("restart: role %v HW %d→%d LEO %d→%d epoch %d→%d entries %v→%v eager %v",
					r.Role(), hw, r.HighWatermark(), leo, r.LEO(), epochBefore, r.LeaderEpoch(), entries, r.Epochs().Entries(), r.Log().EagerHighWatermark())
			}

			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			closedOps := map[string]error{}
			closedOps["Restart"] = r.Restart()
			closedOps["Close"] = r.Close()
			closedOps["BecomeLeader"] = r.BecomeLeader(epochBefore+1, nil, 1, now)
			closedOps["BecomeFollower"] = r.BecomeFollower(1, epochBefore+1)
			closedOps["TruncateTo"] = r.TruncateTo(0)
			_, _, closedOps["Produce"] = produceOne(r, "x", wire.AcksLeader)
			_, closedOps["ApplyFetch"] = r.ApplyFetch(&wire.FetchResponse{})
			req := wire.FetchRequest{ReplicaID: 2, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, MaxBytes: 1 << 10}
			_, _, closedOps["HandleFetch"] = r.HandleFetch(&req, nil, now)
			_, closedOps["HandleOffsetsForLeaderEpoch"] = r.HandleOffsetsForLeaderEpoch(&wire.OffsetsForLeaderEpochRequest{})
			_, _, closedOps["Fetch"] = r.Fetch(b.link[r.ID()].FollowerEnd(), 1, func() error { return nil })
			_, _, _, closedOps["AskEndOffset"] = r.AskEndOffset(b.link[r.ID()].FollowerEnd(), 1, 0, func() error { return nil })
			closedOps["ServeOne"] = r.ServeOne(b.link[r.ID()].LeaderEnd(), now)
			_, closedOps["ShrinkISR"] = r.ShrinkISR(now)
			_, closedOps["AckVerdict"] = r.AckVerdict(1)
			closedOps["Readmit"] = r.Readmit(2)
			closedOps["TruncateToHighWatermark"] = r.TruncateToHighWatermark()
			_, closedOps["TruncateByLeaderEpoch"] = r.TruncateByLeaderEpoch(b.link[r.ID()].FollowerEnd(), b.nextCorr, func() error { return nil })
			for op, err := range closedOps {
				if !errors.Is(err, replica.ErrClosed) {
					t.Errorf("%s after Close: %v, want ErrClosed", op, err)
				}
			}
			if r.LEO() != leo || r.HighWatermark() != hw {
				t.Fatalf("getters after Close: LEO %d HW %d, want %d %d", r.LEO(), r.HighWatermark(), leo, hw)
			}
		})
	}
}

// TruncateTo is a follower's operation. On a leader it would shorten the
// log that defines what is committed and pull the leader's high watermark
// backwards; Kafka truncates only follower logs (its fetcher thread does).
func TestReviewLeaderRefusesTruncation(t *testing.T) {
	b := newBrokers(t, 1, 2)
	b.lead(1, 0, []int32{2}, 1, now)
	b.follow(2, 1, 0)
	b.produce(1, 3)
	b.mustFetch(2, 1, now)
	b.mustFetch(2, 1, now)
	b.check(1)
	if err := b.r[1].TruncateTo(1); !errors.Is(err, replica.ErrNotFollower) {
		t.Fatalf("TruncateTo on a leader: %v, want ErrNotFollower", err)
	}
	if b.r[1].LEO() != 3 || b.r[1].HighWatermark() != 3 {
		t.Fatalf("the leader's log changed: LEO %d HW %d", b.r[1].LEO(), b.r[1].HighWatermark())
	}
	b.check(1)
	// A follower may truncate (its HW comes down with its log only above
	// what the leader committed; here the story cuts an uncommitted tail).
	b.produce(1, 1)
	b.mustFetch(2, 1, now)
	if err := b.r[2].TruncateTo(3); err != nil || b.r[2].LEO() != 3 {
		t.Fatalf("follower TruncateTo: %v LEO %d", err, b.r[2].LEO())
	}
	b.check(1)
}

func produceOne(r *replica.Replica, v string, acks int16) (uint64, wire.ErrorCode, error) {
	batch, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: []log.Record{{Value: []byte(v)}}})
	if err != nil {
		return 0, wire.CodeUnknownServerError, err
	}
	return r.Produce(batch, acks, now)
}

func recordValues(rs []record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.value
	}
	return out
}
