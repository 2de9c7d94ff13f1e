package replica_test

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/epoch"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// brokers is any number of replicas of one partition, driven through the
// Replica API. Each replica owns the MemLink it fetches over while it
// follows, so a follower can be pointed at whichever replica leads; two
// followers of one leader use two links.
//
// brokers also keeps the books a Kafka replication engineer would keep:
// the high watermark each replica last showed (it must never move
// backwards), and every record that was ever below a leader's high
// watermark, by offset (it must never disappear from a later leader).
type brokers struct {
	t     *testing.T
	r     map[int32]*replica.Replica
	link  map[int32]*replica.MemLink
	corr  int32
	value int

	lastHW    map[int32]uint64
	committed map[uint64]string
}

func newBrokers(t *testing.T, ids ...int32) *brokers {
	t.Helper()
	return newBrokersWith(t, replica.Options{}, ids...)
}

func newBrokersWith(t *testing.T, opts replica.Options, ids ...int32) *brokers {
	t.Helper()
	b := &brokers{
		t: t, r: map[int32]*replica.Replica{}, link: map[int32]*replica.MemLink{},
		lastHW: map[int32]uint64{}, committed: map[uint64]string{},
	}
	root := t.TempDir()
	for _, id := range ids {
		r, err := replica.Open(id, filepath.Join(root, fmt.Sprintf("broker-%d", id), "orders-0"), opts)
		if err != nil {
			t.Fatal(err)
		}
		r.StopEagerHighWatermark()
		t.Cleanup(func() { r.Close() })
		b.r[id] = r
		b.link[id] = replica.NewMemLink()
	}
	return b
}

func (b *brokers) nextCorr() int32 {
	b.corr++
	return b.corr
}

func (b *brokers) lead(id, epoch int32, followers []int32, minISR int, nowMs int64) {
	b.t.Helper()
	if err := b.r[id].BecomeLeader(epoch, followers, minISR, nowMs); err != nil {
		b.t.Fatalf("broker %d leading epoch %d: %v", id, epoch, err)
	}
}

func (b *brokers) follow(id, leader, epoch int32) {
	b.t.Helper()
	if err := b.r[id].BecomeFollower(leader, epoch); err != nil {
		b.t.Fatalf("broker %d following %d at epoch %d: %v", id, leader, epoch, err)
	}
}

// produce writes count one-record batches to leader with acks=1 and
// returns their values, "v1", "v2", ... numbered across the whole story.
func (b *brokers) produce(leader int32, count int) []string {
	b.t.Helper()
	var out []string
	for range count {
		b.value++
		v := fmt.Sprintf("v%d", b.value)
		batch, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
			Records: []log.Record{{Value: []byte(v)}}})
		if err != nil {
			b.t.Fatal(err)
		}
		if _, code, err := b.r[leader].Produce(batch, wire.AcksLeader, now); err != nil || code != wire.CodeNone {
			b.t.Fatalf("produce %s on %d: %v %v", v, leader, code, err)
		}
		out = append(out, v)
	}
	return out
}

// produceBatch writes one batch of count records to leader with acks=1.
func (b *brokers) produceBatch(leader int32, count int) []string {
	b.t.Helper()
	var vs []string
	var recs []log.Record
	for i := range count {
		b.value++
		v := fmt.Sprintf("v%d", b.value)
		vs = append(vs, v)
		recs = append(recs, log.Record{OffsetDelta: int32(i), Value: []byte(v)})
	}
	batch, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs})
	if err != nil {
		b.t.Fatal(err)
	}
	if _, code, err := b.r[leader].Produce(batch, wire.AcksLeader, now); err != nil || code != wire.CodeNone {
		b.t.Fatalf("produce %v on %d: %v %v", vs, leader, code, err)
	}
	return vs
}

// fetch runs one fetch of follower f from leader l at nowMs, over f's link.
func (b *brokers) fetch(f, l int32, nowMs int64) (wire.FetchResponse, int, error) {
	return b.r[f].Fetch(b.link[f].FollowerEnd(), b.nextCorr(), func() error {
		return b.r[l].ServeOne(b.link[f].LeaderEnd(), nowMs)
	})
}

func (b *brokers) mustFetch(f, l int32, nowMs int64) wire.FetchResponse {
	b.t.Helper()
	resp, _, err := b.fetch(f, l, nowMs)
	if err != nil {
		b.t.Fatalf("broker %d fetching from %d: %v", f, l, err)
	}
	if toLeader, toFollower := b.link[f].Pending(); toLeader != 0 || toFollower != 0 {
		b.t.Fatalf("link of %d not drained: %d/%d bytes", f, toLeader, toFollower)
	}
	return resp
}

// truncate runs TruncateByLeaderEpoch of follower f against leader l.
func (b *brokers) truncate(f, l int32) replica.EpochAnswer {
	b.t.Helper()
	a, err := b.r[f].TruncateByLeaderEpoch(b.link[f].FollowerEnd(), b.nextCorr, func() error {
		return b.r[l].ServeOne(b.link[f].LeaderEnd(), now)
	})
	if err != nil {
		b.t.Fatalf("broker %d truncating against %d: %v", f, l, err)
	}
	return a
}

// check is the bookkeeping after every step, with leader the replica the
// controller currently considers the leader; see books.
func (b *brokers) check(leader int32) {
	b.t.Helper()
	if err := books(b.t, b.r, b.lastHW, b.committed, leader); err != nil {
		b.t.Fatal(err)
	}
}

// errCommittedLost is what books reports when a committed record is gone.
var errCommittedLost = errors.New("a committed record is lost")

// books checks the invariants a Kafka replication engineer would keep, and
// updates the ledgers: every replica's high watermark has not moved
// backwards since lastHW and is within its log; whatever is below the
// leader's high watermark is now committed, for good, at its offset; and
// the leader still holds every record ever committed. A lost record is
// reported as errCommittedLost.
func books(t *testing.T, rs map[int32]*replica.Replica, lastHW map[int32]uint64, committed map[uint64]string, leader int32) error {
	t.Helper()
	for _, id := range slices.Sorted(maps.Keys(rs)) {
		r := rs[id]
		hw := r.HighWatermark()
		if hw < lastHW[id] {
			return fmt.Errorf("broker %d: high watermark moved backwards, %d → %d", id, lastHW[id], hw)
		}
		if hw > r.LEO() {
			return fmt.Errorf("broker %d: high watermark %d above its LEO %d", id, hw, r.LEO())
		}
		lastHW[id] = hw
	}
	l := rs[leader]
	recs := records(t, l)
	byOffset := map[uint64]string{}
	for _, rec := range recs {
		byOffset[rec.offset] = rec.value
	}
	for _, off := range slices.Sorted(maps.Keys(committed)) {
		if got, ok := byOffset[off]; !ok || got != committed[off] {
			return fmt.Errorf("%w: %q at offset %d is gone from leader %d (it holds %q, %v)", errCommittedLost, committed[off], off, leader, got, ok)
		}
	}
	for _, rec := range recs {
		if rec.offset < l.HighWatermark() {
			committed[rec.offset] = rec.value
		}
	}
	return nil
}

// record is one record of a log, with the offset and epoch it carries.
type record struct {
	offset uint64
	epoch  int32
	value  string
}

// records reads a replica's whole log, to its end.
func records(t *testing.T, r *replica.Replica) []record {
	t.Helper()
	if r.LEO() == r.Log().StartOffset() {
		return nil
	}
	buf, err := r.Log().Read(nil, r.Log().StartOffset(), 1<<30, log.IsolationLogEnd)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := log.DecodeBatches(buf)
	if err != nil {
		t.Fatal(err)
	}
	var out []record
	for _, batch := range bs {
		for _, rec := range batch.Records {
			out = append(out, record{batch.BaseOffset + uint64(rec.OffsetDelta), batch.PartitionLeaderEpoch, string(rec.Value)})
		}
	}
	return out
}

// sameLog fails unless a and b hold the same records and their epoch caches
// say the same about them. A leader's entry for an epoch it has not written
// in yet starts at its LEO and describes no record; followers learn epochs
// from records, so such an entry is left out of the comparison.
func sameLog(t *testing.T, a, b *replica.Replica) {
	t.Helper()
	ra, rb := records(t, a), records(t, b)
	if !slices.Equal(ra, rb) {
		t.Fatalf("logs differ:\n broker %d %v\n broker %d %v", a.ID(), ra, b.ID(), rb)
	}
	if ea, eb := describedEpochs(a), describedEpochs(b); !slices.Equal(ea, eb) {
		t.Fatalf("epoch caches differ: broker %d %v, broker %d %v", a.ID(), a.Epochs().Entries(), b.ID(), b.Epochs().Entries())
	}
}

// describedEpochs is the epoch cache minus an entry that starts at the log
// end (the current leader's, before its first write).
func describedEpochs(r *replica.Replica) []epoch.Entry {
	return slices.DeleteFunc(r.Epochs().Entries(), func(e epoch.Entry) bool { return e.StartOffset >= r.LEO() })
}

// agreesBelowHW fails if f's high watermark covers a record that is not the
// leader's record at that offset: a follower must never claim as committed
// a record the leader does not hold.
func agreesBelowHW(t *testing.T, f, leader *replica.Replica) {
	t.Helper()
	lead := map[uint64]string{}
	for _, rec := range records(t, leader) {
		lead[rec.offset] = rec.value
	}
	for _, rec := range records(t, f) {
		if rec.offset < f.HighWatermark() && lead[rec.offset] != rec.value {
			t.Fatalf("broker %d's HW %d covers %q at offset %d, but leader %d holds %q there",
				f.ID(), f.HighWatermark(), rec.value, rec.offset, leader.ID(), lead[rec.offset])
		}
	}
}
