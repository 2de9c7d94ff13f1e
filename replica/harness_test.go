package replica_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The replica-level harness: replicas of one partition wired by hand, the
// test playing controller and network. Messages are passed as Go values;
// the cluster tests send them as bytes.

const t0 = int64(1_700_000_000_000) // the chapter's --now-ms

// group is a few replicas of one partition and the controller's state for
// it, as the test decides it.
type group struct {
	t    *testing.T
	dir  string
	opts replica.Options
	r    map[int32]*replica.Replica
	st   replica.PartitionState
	now  int64
}

func newGroup(t *testing.T, opts replica.Options, ids ...int32) *group {
	t.Helper()
	g := &group{t: t, dir: t.TempDir(), opts: opts, r: map[int32]*replica.Replica{}, now: t0}
	for _, id := range ids {
		g.open(id)
	}
	t.Cleanup(func() {
		for _, r := range g.r {
			r.Close()
		}
	})
	return g
}

func (g *group) open(id int32) *replica.Replica {
	g.t.Helper()
	r, err := replica.Open(id, filepath.Join(g.dir, fmt.Sprint(id)), g.opts)
	if err != nil {
		g.t.Fatal(err)
	}
	g.r[id] = r
	return r
}

// restart closes replica id cleanly and opens it again from its files.
func (g *group) restart(id int32) *replica.Replica {
	g.t.Helper()
	if err := g.r[id].Close(); err != nil {
		g.t.Fatal(err)
	}
	return g.open(id)
}

// elect publishes a partition state (leader, ISR) at the next leader
// epoch to every replica, as the controller's metadata would.
func (g *group) elect(leader int32, isr ...int32) {
	g.t.Helper()
	g.st = replica.PartitionState{
		Leader: leader, LeaderEpoch: g.st.LeaderEpoch + 1, PartitionEpoch: g.st.PartitionEpoch + 1,
		Replicas: g.ids(), ISR: isr, MinISR: g.st.MinISR,
	}
	if g.st.MinISR == 0 {
		g.st.MinISR = 1
	}
	g.publish()
}

// publish sends the current state to every replica.
func (g *group) publish() {
	g.t.Helper()
	for _, id := range g.ids() {
		var err error
		if id == g.st.Leader {
			err = g.r[id].BecomeLeader(g.st, g.now)
		} else {
			err = g.r[id].BecomeFollower(g.st, g.now)
		}
		if err != nil {
			g.t.Fatalf("broker %d: %v", id, err)
		}
	}
}

func (g *group) ids() []int32 {
	var ids []int32
	for id := range g.r {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// produce writes values as one batch to the leader.
func (g *group) produce(acks int16, values ...string) (replica.ProduceResult, bool, error) {
	g.t.Helper()
	recs := make([]log.Record, len(values))
	for i, v := range values {
		recs[i] = log.Record{OffsetDelta: int32(i), Value: []byte(v)}
	}
	batch, err := log.AppendBatch(nil, &log.Batch{
		BaseTimestamp: g.now, MaxTimestamp: g.now, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs,
	})
	if err != nil {
		g.t.Fatal(err)
	}
	return g.r[g.st.Leader].Produce(uint64(len(values)), batch, acks, 30_000, g.now)
}

// fetch runs one fetch from follower f to the leader (after the epoch
// questions its rule asks first, if any) and returns the response it
// applied.
func (g *group) fetch(f int32) wire.FetchPartitionResponse {
	g.t.Helper()
	fr, l := g.r[f], g.r[g.st.Leader]
	for range 10 {
		q, ok := fr.NextEpochQuery(g.now)
		if !ok {
			break
		}
		resp, _ := l.HandleOffsetsForLeaderEpoch(&q)
		if err := fr.ApplyEpochAnswer(&q, &resp, g.now); err != nil {
			g.t.Fatal(err)
		}
	}
	p, ok := fr.NextFetch(g.now)
	if !ok && fr.NextTickMs() > g.now {
		g.now = fr.NextTickMs() // backing off after a refusal: wait it out
		p, ok = fr.NextFetch(g.now)
	}
	if !ok {
		g.t.Fatalf("broker %d has no fetch to send", f)
	}
	resp, _, _ := l.HandleFetch(replica.FetchFrom{ReplicaID: f, ReplicaEpoch: -1}, &p, 1<<20, nil, g.now)
	if _, err := fr.ApplyFetch(&p, &resp, g.now); err != nil {
		g.t.Logf("broker %d: %v", f, err)
	}
	return resp
}

// alter delivers the leader's ISR proposal, if any, to a controller that
// commits it, and returns the ISR committed.
func (g *group) alter() ([]int32, bool) {
	g.t.Helper()
	l := g.r[g.st.Leader]
	req, ok := l.AlterPartition(g.now)
	if !ok {
		return nil, false
	}
	var isr []int32
	for _, m := range req.NewISR {
		isr = append(isr, m.BrokerID)
	}
	g.st.ISR = isr
	g.st.PartitionEpoch++
	resp := wire.AlterPartitionResponse{Leader: g.st.Leader, LeaderEpoch: g.st.LeaderEpoch, ISR: isr, PartitionEpoch: g.st.PartitionEpoch}
	if err := l.ApplyAlterPartition(&req, &resp, g.now); err != nil {
		g.t.Fatal(err)
	}
	return isr, true
}

// values reads every record value of a replica's log.
func values(t *testing.T, r *replica.Replica) []string {
	t.Helper()
	l := r.Log()
	buf, err := l.Read(nil, l.StartOffset(), 1<<30, log.IsolationLogEnd)
	if err != nil {
		t.Fatal(err)
	}
	batches, err := log.DecodeBatches(buf)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range batches {
		for _, rec := range b.Records {
			out = append(out, string(rec.Value))
		}
	}
	return out
}
