package replica_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A broker's leader sends a follower the bytes a parked acks=all produce
// brought (stamped by the append) instead of reading them back from the
// file, as Kafka serves a follower near the log end from the page cache —
// but only when a read would return exactly those bytes, only to
// followers, and only while the produce is parked (its request is the
// broker's until answered).

// batchOf encodes values as one producer batch; pid >= 0 makes it an
// idempotent producer's, with sequence seq.
func batchOf(t *testing.T, pid int64, seq int32, values ...string) []byte {
	t.Helper()
	recs := make([]log.Record, len(values))
	for i, v := range values {
		recs[i] = log.Record{OffsetDelta: int32(i), Value: []byte(v)}
	}
	b := log.Batch{BaseTimestamp: t0, MaxTimestamp: t0, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs}
	if pid >= 0 {
		b.ProducerID, b.ProducerEpoch, b.BaseSequence = pid, 0, seq
	}
	out, err := log.AppendBatch(nil, &b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// aliases reports whether a and b share their first byte.
func aliases(a, b []byte) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

// fetchAt is a follower's (or with id -1 a consumer's) fetch from offset.
func fetchAt(offset uint64) *wire.FetchPartition {
	return &wire.FetchPartition{Topic: "t", CurrentLeaderEpoch: -1, FetchOffset: offset, LastFetchedEpoch: -1, MaxBytes: 1 << 20}
}

func TestFollowerIsSentTheParkedProducesBytes(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2, 3)
	g.st.MinISR = 2
	g.elect(1, 1, 2, 3)
	l := g.r[1]
	first := batchOf(t, -1, 0, "a", "b")
	res1, parked, err := l.ProduceKeeping(1, first, wire.AcksAll, 30_000, g.now)
	if err != nil || !parked {
		t.Fatalf("produce: parked %v, %v", parked, err)
	}
	second := batchOf(t, -1, 0, "c", "d", "e")
	res2, _, err := l.ProduceKeeping(2, second, wire.AcksAll, 30_000, g.now)
	if err != nil {
		t.Fatal(err)
	}
	follower := replica.FetchFrom{ReplicaID: 2, ReplicaEpoch: -1}
	read := func(off uint64, maxBytes int) []byte {
		out, err := l.Log().Read(nil, off, maxBytes, log.IsolationLogEnd)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	// From the newest append, at the log end: its bytes, as the log holds them.
	resp, dst, err := replica.HandleFetchAppended(l, follower, fetchAt(res2.BaseOffset), 1<<20, nil, g.now)
	if err != nil || !aliases(resp.Records, second) || len(dst) != 0 || !bytes.Equal(resp.Records, read(res2.BaseOffset, 1<<20)) {
		t.Fatalf("fetch at the last append: aliases %v, %d bytes in dst, %v", aliases(resp.Records, second), len(dst), err)
	}
	// From the older one, with room for the next batch: a read (both batches).
	resp, _, err = replica.HandleFetchAppended(l, follower, fetchAt(res1.BaseOffset), 1<<20, nil, g.now)
	if err != nil || aliases(resp.Records, first) || !bytes.Equal(resp.Records, slices.Concat(first, second)) {
		t.Fatalf("fetch with room for two appends: aliases %v, %d bytes, %v", aliases(resp.Records, first), len(resp.Records), err)
	}
	// Without room for the next batch: the older one's bytes.
	resp, _, err = replica.HandleFetchAppended(l, follower, fetchAt(res1.BaseOffset), len(first)+1, nil, g.now)
	if err != nil || !aliases(resp.Records, first) || !bytes.Equal(resp.Records, read(res1.BaseOffset, len(first)+1)) {
		t.Fatalf("fetch with room for one append: aliases %v, %v", aliases(resp.Records, first), err)
	}
	// The public HandleFetch always copies into dst, and a consumer gets
	// nothing above the high watermark.
	resp, _, _ = l.HandleFetch(follower, fetchAt(res2.BaseOffset), 1<<20, nil, g.now)
	if aliases(resp.Records, second) || !bytes.Equal(resp.Records, second) {
		t.Fatal("HandleFetch sent the produce's bytes instead of a copy")
	}
	resp, _, _ = replica.HandleFetchAppended(l, replica.FetchFrom{ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1}, fetchAt(0), 1<<20, nil, g.now)
	if len(resp.Records) != 0 {
		t.Fatalf("a consumer got %d uncommitted bytes", len(resp.Records))
	}

	// Once both followers hold everything, the produces are answered: their
	// requests are no longer the broker's, so nothing aliases them.
	g.fetch(2)
	g.fetch(3)
	g.fetch(2)
	g.fetch(3)
	if n := l.Parked(); n != 0 {
		t.Fatalf("%d produces still parked", n)
	}
	resp, _, err = replica.HandleFetchAppended(l, follower, fetchAt(res2.BaseOffset), 1<<20, nil, g.now)
	if err != nil || aliases(resp.Records, second) || !bytes.Equal(resp.Records, second) {
		t.Fatalf("fetch after the produce was answered: aliases %v, %v", aliases(resp.Records, second), err)
	}
}

// A retry the log recognised as a duplicate wrote nothing: it parks on
// the original's offsets, but its bytes (as the producer sent them, not
// stamped) are never sent.
func TestADuplicatesBytesAreNeverSent(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1, 2)
	l := g.r[1]
	follower := replica.FetchFrom{ReplicaID: 2, ReplicaEpoch: -1}
	orig := batchOf(t, 9, 0, "x", "y")
	retry := slices.Clone(orig)
	res, parked, err := l.ProduceKeeping(1, orig, wire.AcksAll, 30_000, g.now)
	if err != nil || !parked || res.BaseOffset != 0 {
		t.Fatalf("idempotent produce: %+v parked %v, %v", res, parked, err)
	}
	dup, parked, err := l.ProduceKeeping(2, retry, wire.AcksAll, 30_000, g.now)
	if err != nil || !parked || !dup.Duplicate {
		t.Fatalf("retry: %+v parked %v, %v", dup, parked, err)
	}
	resp, _, _ := replica.HandleFetchAppended(l, follower, fetchAt(0), 1<<20, nil, g.now)
	if aliases(resp.Records, retry) || !aliases(resp.Records, orig) || !bytes.Equal(resp.Records, orig) {
		t.Fatalf("fetch of a batch whose retry is parked: aliases the retry %v, the original %v", aliases(resp.Records, retry), aliases(resp.Records, orig))
	}
}

// A produce that is not parked (acks=1) keeps nothing, nor does a leader
// that stepped down (its parked produces failed).
func TestOnlyAParkedAppendIsSentAsIs(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1, 2)
	l := g.r[1]
	follower := replica.FetchFrom{ReplicaID: 2, ReplicaEpoch: -1}

	b := batchOf(t, -1, 0, "one")
	res, parked, err := l.ProduceKeeping(1, b, wire.AcksLeader, 30_000, g.now)
	if err != nil || parked {
		t.Fatalf("acks=1 produce: parked %v, %v", parked, err)
	}
	if resp, _, _ := replica.HandleFetchAppended(l, follower, fetchAt(res.BaseOffset), 1<<20, nil, g.now); aliases(resp.Records, b) || !bytes.Equal(resp.Records, b) {
		t.Fatal("an answered acks=1 produce's bytes were sent")
	}

	b = batchOf(t, -1, 0, "two")
	res, parked, err = l.ProduceKeeping(2, b, wire.AcksAll, 30_000, g.now)
	if err != nil || !parked {
		t.Fatalf("acks=all produce: parked %v, %v", parked, err)
	}
	g.elect(2, 2)
	if l.Parked() != 0 {
		t.Fatal("a leader that stepped down kept its parked produces")
	}
	if resp, _, _ := replica.HandleFetchAppended(l, follower, fetchAt(res.BaseOffset), 1<<20, nil, g.now); aliases(resp.Records, b) || resp.ErrorCode == wire.CodeNone {
		t.Fatalf("a follower answered a fetch: code %d", resp.ErrorCode)
	}
}
