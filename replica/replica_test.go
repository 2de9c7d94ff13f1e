package replica_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// pair is two replicas joined by a MemLink, driven through the Replica API
// directly, for scenarios the Cluster does not script.
type pair struct {
	t     *testing.T
	r     map[int32]*replica.Replica
	link  *replica.MemLink
	corr  int32
	value int
}

func newPair(t *testing.T) *pair {
	t.Helper()
	p := &pair{t: t, r: map[int32]*replica.Replica{}, link: replica.NewMemLink()}
	root := t.TempDir()
	for _, id := range []int32{1, 2} {
		r, err := replica.Open(id, filepath.Join(root, fmt.Sprintf("broker-%d", id), "orders-0"), replica.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r.StopEagerHighWatermark()
		t.Cleanup(func() { r.Close() })
		p.r[id] = r
	}
	return p
}

func (p *pair) produce(leader int32, n int) {
	p.t.Helper()
	for range n {
		p.value++
		b, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
			Records: []log.Record{{Value: fmt.Appendf(nil, "v%d", p.value)}}})
		if err != nil {
			p.t.Fatal(err)
		}
		if _, code, err := p.r[leader].Produce(b, wire.AcksLeader, now); err != nil || code != wire.CodeNone {
			p.t.Fatalf("produce on %d: %v %v", leader, code, err)
		}
	}
}

func (p *pair) fetch(follower, leader int32) (wire.FetchResponse, int, error) {
	p.corr++
	return p.r[follower].Fetch(p.link.FollowerEnd(), p.corr, func() error {
		return p.r[leader].ServeOne(p.link.LeaderEnd(), now)
	})
}

func values(t *testing.T, r *replica.Replica) []string {
	t.Helper()
	buf, err := r.Log().Read(nil, 0, 1<<20, log.IsolationLogEnd)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := log.DecodeBatches(buf)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range bs {
		for _, rec := range b.Records {
			out = append(out, string(rec.Value))
		}
	}
	return out
}

// KIP-101's scenario 2, driven: after a fast failover the two logs hold
// different records at the same offsets under different epochs. The old
// leader rejoins without any explicit truncation; its first fetch carries
// its last epoch, the leader answers with a diverging epoch, the follower
// truncates, and the next fetches copy the leader's records. The logs end
// identical, record for record.
func TestDivergedLogConvergesThroughFetch(t *testing.T) {
	p := newPair(t)
	r1, r2 := p.r[1], p.r[2]
	if err := r1.BecomeLeader(0, []int32{2}, 1, now); err != nil {
		t.Fatal(err)
	}
	if err := r2.BecomeFollower(1, 0); err != nil {
		t.Fatal(err)
	}
	p.produce(1, 1)
	for range 2 {
		if _, _, err := p.fetch(2, 1); err != nil {
			t.Fatal(err)
		}
	}
	p.produce(1, 2) // offsets 1, 2 at epoch 0: broker 1 only

	// Broker 1 is gone; broker 2 leads epoch 1 and writes offsets 1, 2 anew.
	if err := r2.BecomeLeader(1, []int32{1}, 1, now); err != nil {
		t.Fatal(err)
	}
	p.produce(2, 2)
	if err := r1.BecomeFollower(2, 1); err != nil {
		t.Fatal(err)
	}

	resp, shipped, err := p.fetch(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.HasDivergingEpoch || resp.DivergingEpoch != (wire.EpochEndOffset{Epoch: 0, EndOffset: 1}) || shipped != 0 {
		t.Fatalf("first fetch: diverging %v %+v shipped %d, want epoch 0 ending at 1 and nothing shipped", resp.HasDivergingEpoch, resp.DivergingEpoch, shipped)
	}
	if r1.LEO() != 1 {
		t.Fatalf("the diverged follower should have truncated to 1, LEO %d", r1.LEO())
	}
	for range 2 {
		if _, _, err := p.fetch(1, 2); err != nil {
			t.Fatal(err)
		}
	}
	got, want := values(t, r1), values(t, r2)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("logs differ after convergence: follower %q, leader %q", got, want)
	}
	if e1, e2 := r1.Epochs().Entries(), r2.Epochs().Entries(); fmt.Sprint(e1) != fmt.Sprint(e2) {
		t.Fatalf("epoch caches differ: follower %v, leader %v", e1, e2)
	}
	if r1.HighWatermark() > r1.LEO() {
		t.Fatalf("follower HW %d above its LEO %d", r1.HighWatermark(), r1.LEO())
	}
}

// A follower that claims more than the leader has is answered
// OFFSET_OUT_OF_RANGE and does not move the leader's high watermark.
func TestFetchBeyondLeaderEndDoesNotCount(t *testing.T) {
	p := newPair(t)
	r1, r2 := p.r[1], p.r[2]
	if err := r2.BecomeLeader(0, []int32{1}, 1, now); err != nil {
		t.Fatal(err)
	}
	p.produce(2, 3)
	// A confused broker 1 also leads epoch 0, with an empty log, and broker
	// 2 follows it while holding 3 records broker 1 lacks.
	if err := r1.BecomeLeader(0, []int32{2}, 1, now); err != nil {
		t.Fatal(err)
	}
	if err := r1.BecomeLeader(0, []int32{2}, 1, now); !errors.Is(err, replica.ErrStaleEpoch) {
		t.Fatalf("leading again at the same epoch: %v, want ErrStaleEpoch", err)
	}
	if err := r2.BecomeFollower(1, 0); err != nil {
		t.Fatal(err)
	}
	req := r2.FetchRequest(1)
	req.LastFetchedEpoch = -1
	resp, _, err := r1.HandleFetch(&req, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ErrorCode != wire.CodeOffsetOutOfRange || r1.HighWatermark() != 0 {
		t.Fatalf("fetch at %d from a leader with LEO %d: code %v HW %d, want OFFSET_OUT_OF_RANGE and HW 0", req.FetchOffset, r1.LEO(), resp.ErrorCode, r1.HighWatermark())
	}
}

// A fetch from an older epoch is fenced; one from a newer epoch is unknown.
func TestFetchEpochFencing(t *testing.T) {
	p := newPair(t)
	r1, r2 := p.r[1], p.r[2]
	if err := r1.BecomeLeader(3, []int32{2}, 1, now); err != nil {
		t.Fatal(err)
	}
	if err := r2.BecomeFollower(1, 3); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		epoch int32
		want  wire.ErrorCode
	}{{2, wire.CodeFencedLeaderEpoch}, {4, wire.CodeUnknownLeaderEpoch}, {3, wire.CodeNone}, {-1, wire.CodeNone}} {
		req := r2.FetchRequest(1)
		req.CurrentLeaderEpoch = tc.epoch
		resp, _, err := r1.HandleFetch(&req, nil, now)
		if err != nil || resp.ErrorCode != tc.want {
			t.Errorf("fetch at epoch %d: %v %v, want %v", tc.epoch, resp.ErrorCode, err, tc.want)
		}
	}
	// And the follower turns a refusal into an error it can match.
	resp := wire.FetchResponse{ErrorCode: wire.CodeFencedLeaderEpoch}
	if _, err := r2.ApplyFetch(&resp); !errors.Is(err, wire.ErrFencedLeaderEpoch) {
		t.Fatalf("ApplyFetch of a fenced response: %v", err)
	}
}

// A consumer (replica id -1) reads only to the high watermark; a follower to
// the log end. Same request path, different ceiling.
func TestConsumerStopsAtHighWatermark(t *testing.T) {
	c := openCluster(t, 2)
	mustProduce(t, c, 1, wire.AcksLeader)
	mustFetch(t, c, now)
	mustFetch(t, c, now)
	mustProduce(t, c, 2, wire.AcksLeader) // offset 1, not committed
	consumer := wire.FetchRequest{CorrelationID: 9, ReplicaID: wire.ConsumerReplicaID, FetchOffset: 0, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, MaxBytes: 1 << 20}
	resp, _, err := c.Leader().HandleFetch(&consumer, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	n, err := log.CountRecords(resp.Records)
	if err != nil || n != 1 {
		t.Fatalf("consumer read %d records (%v), want the 1 below HW 1", n, err)
	}
	follower := c.Follower().FetchRequest(10)
	follower.FetchOffset = 0
	follower.LastFetchedEpoch = -1
	resp, _, err = c.Leader().HandleFetch(&follower, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := log.CountRecords(resp.Records); err != nil || n != 2 {
		t.Fatalf("follower read %d records (%v), want 2", n, err)
	}
}

// Malformed bytes on the link are errors, never panics, and leave both logs
// as they were.
func TestMalformedFrameOnTheLink(t *testing.T) {
	c := openCluster(t, 2)
	mustProduce(t, c, 1, wire.AcksLeader)
	leo := c.Leader().LEO()
	for _, junk := range [][]byte{
		{0, 0, 0, 3, 0xff, 0xff, 0xff},        // a frame whose payload is not a message
		{0, 0, 0, 8, 0, 1, 0, 0, 0, 0, 0},     // a frame cut short
		{0x7f, 0xff, 0xff, 0xff, 1, 2, 3},     // a length far past the limit
		{0, 0, 0, 8, 0, 99, 0, 0, 0, 0, 0, 1}, // an unknown API key
	} {
		end := c.Link().FollowerEnd()
		if _, err := end.Write(junk); err != nil {
			t.Fatal(err)
		}
		if err := c.Leader().ServeOne(c.Link().LeaderEnd(), now); err == nil {
			t.Errorf("ServeOne accepted junk % x", junk)
		}
		// Drain whatever is left so the next case starts clean.
		for {
			toLeader, toFollower := c.Link().Pending()
			if toLeader == 0 && toFollower == 0 {
				break
			}
			c.Link().LeaderEnd().Read(make([]byte, toLeader+1))
			c.Link().FollowerEnd().Read(make([]byte, toFollower+1))
		}
	}
	if c.Leader().LEO() != leo || c.Follower().LEO() != 0 {
		t.Fatalf("junk changed a log: leader LEO %d, follower LEO %d", c.Leader().LEO(), c.Follower().LEO())
	}
	// The link still works.
	if r := mustFetch(t, c, now); r.RecordsShipped != 1 {
		t.Fatalf("after junk, a round shipped %d records", r.RecordsShipped)
	}
}

// A restart keeps the follower's log, HW and epochs: it recovers them from
// disk, and the eager-HW switch stays off.
func TestRestartRecoversFromDisk(t *testing.T) {
	c := openCluster(t, 2)
	for n := uint64(1); n <= 3; n++ {
		mustProduce(t, c, n, wire.AcksLeader)
		mustFetch(t, c, now)
	}
	f := c.Follower()
	leo, hw, entries := f.LEO(), f.HighWatermark(), f.Epochs().Entries()
	if err := f.Restart(); err != nil {
		t.Fatal(err)
	}
	if f.LEO() != leo || f.HighWatermark() != hw || fmt.Sprint(f.Epochs().Entries()) != fmt.Sprint(entries) {
		t.Fatalf("after restart: LEO %d HW %d epochs %v, want %d %d %v", f.LEO(), f.HighWatermark(), f.Epochs().Entries(), leo, hw, entries)
	}
	if f.Log().EagerHighWatermark() {
		t.Fatal("restart turned eager high-watermark mode back on")
	}
	if r := mustFetch(t, c, now); r.FollowerHW != 3 {
		t.Fatalf("after restart, a round left the follower HW at %d, want 3", r.FollowerHW)
	}
}

// Operations on the wrong role or after Close return errors, not panics.
func TestRoleAndCloseErrors(t *testing.T) {
	p := newPair(t)
	r := p.r[1]
	if _, err := r.ShrinkISR(now); !errors.Is(err, replica.ErrNotLeader) {
		t.Errorf("ShrinkISR on a follower: %v", err)
	}
	if err := r.BecomeLeader(0, []int32{2}, 1, now); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ApplyFetch(&wire.FetchResponse{}); !errors.Is(err, replica.ErrNotFollower) {
		t.Errorf("ApplyFetch on a leader: %v", err)
	}
	if _, code, err := r.Produce(nil, 7, now); !errors.Is(err, replica.ErrInvalidAcks) || code != wire.CodeInvalidRequiredAcks {
		t.Errorf("acks=7: %v %v", code, err)
	}
	if err := r.BecomeFollower(2, -1); !errors.Is(err, replica.ErrStaleEpoch) {
		t.Errorf("following at epoch -1: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); !errors.Is(err, replica.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
	if _, _, err := r.Produce(nil, wire.AcksLeader, now); !errors.Is(err, replica.ErrClosed) {
		t.Errorf("Produce after Close: %v", err)
	}
	// Getters keep answering with the last state; exchanges refuse.
	_, _, _ = r.LEO(), r.HighWatermark(), r.FetchRequest(1)
	if _, _, err := r.Fetch(p.link.FollowerEnd(), 1, func() error { return nil }); !errors.Is(err, replica.ErrClosed) {
		t.Errorf("Fetch after Close: %v", err)
	}
	if err := r.ServeOne(p.link.LeaderEnd(), now); !errors.Is(err, replica.ErrClosed) {
		t.Errorf("ServeOne after Close: %v", err)
	}
	if err := r.Restart(); !errors.Is(err, replica.ErrClosed) {
		t.Errorf("Restart after Close: %v", err)
	}
}

// Truncating a log truncates its epoch cache with it: no entry may describe
// records the log no longer holds, on disk as in memory.
func TestTruncateTakesTheEpochCacheAlong(t *testing.T) {
	p := newPair(t)
	r := p.r[1]
	for e, records := range []int{2, 1} {
		if err := r.BecomeLeader(int32(e), nil, 1, now); err != nil {
			t.Fatal(err)
		}
		p.produce(1, records)
	}
	if got := fmt.Sprint(r.Epochs().Entries()); got != "[{0 0} {1 2}]" {
		t.Fatalf("epochs before truncation %s", got)
	}
	if err := r.BecomeFollower(2, 2); err != nil {
		t.Fatal(err)
	}
	if err := r.TruncateTo(2); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(r.Epochs().Entries()); got != "[{0 0}]" || r.LEO() != 2 {
		t.Fatalf("after TruncateTo(2): LEO %d, epochs %s; want 2 and [{0 0}]", r.LEO(), got)
	}
	if err := r.Restart(); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(r.Epochs().Entries()); got != "[{0 0}]" {
		t.Fatalf("after a restart the checkpoint says %s, want [{0 0}]", got)
	}
}

// A leader does not fetch or ask for end offsets: it gets ErrNotFollower and
// nothing is written to the link.
func TestLeaderDoesNotFetch(t *testing.T) {
	p := newPair(t)
	r := p.r[1]
	if err := r.BecomeLeader(0, []int32{2}, 1, now); err != nil {
		t.Fatal(err)
	}
	serve := func() error { t.Fatal("nothing should be served"); return nil }
	if _, _, err := r.Fetch(p.link.FollowerEnd(), 1, serve); !errors.Is(err, replica.ErrNotFollower) {
		t.Errorf("a leader's Fetch: %v, want ErrNotFollower", err)
	}
	if _, _, _, err := r.AskEndOffset(p.link.FollowerEnd(), 2, 0, serve); !errors.Is(err, replica.ErrNotFollower) {
		t.Errorf("a leader's AskEndOffset: %v, want ErrNotFollower", err)
	}
	if toLeader, toFollower := p.link.Pending(); toLeader != 0 || toFollower != 0 {
		t.Errorf("the link holds %d and %d bytes", toLeader, toFollower)
	}
}
