package replica_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/wire"
)

// Every size that comes from the network is bounded before it allocates.

// A consumer's fetch asking for 2 GiB gets at most the broker's ceiling
// plus one batch, never the whole log (a 36-byte request once made a leader
// allocate 299 MiB).
func TestAFetchIsBoundedByTheCeiling(t *testing.T) {
	const ceiling = 64 << 10
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1}, Broker: replica.BrokerConfig{
		MaxFetchResponseBytes: ceiling, Replica: replica.Options{Log: log.Options{MaxBatchBytes: 10_000}},
	}}, 1, 1)
	value := bytes.Repeat([]byte("v"), 1000)
	for range 200 { // about 200 KB, over three times the ceiling
		if _, err := c.Produce(topic, wire.AcksAll, 10_000, value); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.Consume(topic, 0, 1<<31-1)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got) * len(value); n > ceiling+len(value)+100 || len(got) == 0 {
		t.Fatalf("a fetch asking for 2 GiB returned %d records (%d value bytes), ceiling %d", len(got), n, ceiling)
	}
}

// A batch over MaxBatchBytes is refused with MESSAGE_TOO_LARGE (Kafka's
// message.max.bytes), so that every accepted batch fits a fetch response.
func TestABatchOverMaxBatchBytesIsRefused(t *testing.T) {
	cfg := replica.ClusterConfig{Brokers: []int32{1}, Broker: replica.BrokerConfig{Replica: replica.Options{Log: log.Options{MaxBatchBytes: 10_000}}}}
	c := openTestCluster(t, cfg, 1, 1)
	_, err := c.Produce(topic, wire.AcksLeader, 10_000, bytes.Repeat([]byte("v"), 20_000))
	if !errors.Is(err, wire.ErrMessageTooLarge) {
		t.Fatalf("a 20 KB batch with MaxBatchBytes 10 KB: %v, want MESSAGE_TOO_LARGE", err)
	}
}

// A broker refuses a configuration where an accepted batch would not fit a
// fetch response: replication would stall on it for good.
func TestSizesThatWouldStallAreRefused(t *testing.T) {
	cfg := replica.BrokerConfig{ID: 1, Dir: t.TempDir(), IncarnationID: [16]byte{1}, MaxFetchResponseBytes: 1 << 20,
		Replica: replica.Options{Log: log.Options{MaxBatchBytes: 2 << 20}}}
	if _, err := replica.OpenBroker(cfg, t0); !errors.Is(err, replica.ErrInvalidConfig) {
		t.Fatalf("a batch larger than a fetch response: %v", err)
	}
}

// The zero IncarnationID is refused where it is configured: the controller
// would refuse every registration of that broker.
func TestTheZeroIncarnationIDIsRefused(t *testing.T) {
	cfg := replica.BrokerConfig{ID: 1, Dir: t.TempDir()}
	if _, err := replica.OpenBroker(cfg, t0); !errors.Is(err, replica.ErrInvalidConfig) {
		t.Fatalf("OpenBroker with the zero IncarnationID: %v, want ErrInvalidConfig", err)
	}
}

// A follower whose fetch offset is below the leader's log start cannot
// catch up by fetching: it truncates fully and starts at the leader's log
// start (Kafka's truncateFullyAndStartAt), then copies from there.
func TestAFollowerBehindTheLogStartResets(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1)
	for i := range 10 {
		g.produce(wire.AcksLeader, string(rune('a'+i)))
	}
	if err := g.r[1].Log().IncrementStartOffset(6); err != nil { // retention on the leader
		t.Fatal(err)
	}
	resp := g.fetch(2)
	if !errors.Is(resp.ErrorCode.Err(), wire.ErrOffsetOutOfRange) || resp.LogStartOffset != 6 {
		t.Fatalf("first fetch: %v, log start %d", resp.ErrorCode, resp.LogStartOffset)
	}
	if f := g.r[2]; f.Log().StartOffset() != 6 || f.LEO() != 6 {
		t.Fatalf("the follower did not reset to the leader's start: start %d LEO %d", f.Log().StartOffset(), f.LEO())
	}
	g.fetch(2)
	if got := values(t, g.r[2]); len(got) != 4 || got[0] != "g" {
		t.Fatalf("after the reset the follower holds %q, want g..j", got)
	}
}

// A follower's log start follows the leader's, up to its own high
// watermark: records the leader no longer serves, it need not keep.
func TestAFollowersLogStartFollowsTheLeaders(t *testing.T) {
	g := newGroup(t, replica.Options{Log: log.Options{SegmentBytes: 200}}, 1, 2)
	g.elect(1, 1, 2)
	for i := range 10 {
		g.produce(wire.AcksLeader, string(rune('a'+i)))
		g.fetch(2)
	}
	g.fetch(2)
	if err := g.r[1].Log().IncrementStartOffset(4); err != nil {
		t.Fatal(err)
	}
	g.fetch(2)
	if s := g.r[2].Log().StartOffset(); s != 4 {
		t.Fatalf("follower log start %d, want the leader's 4", s)
	}
}

// A fetch of the controller's metadata log is bounded by the request's
// MaxBytes for the whole response, as a broker's fetch is (KIP-74: the
// first batch whole, then nothing past the budget). One request naming the
// metadata partition a thousand times must not make the controller read
// and send its whole log a thousand times.
func TestAMetadataFetchIsBoundedByItsMaxBytes(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1, 2, 3}}, 1, 1, 2, 3)
	const budget = 1000
	req := &wire.FetchRequest{CorrelationID: c.NextCorrelation(), ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1, MaxBytes: budget}
	for range 1000 {
		req.Partitions = append(req.Partitions, wire.FetchPartition{
			Topic: controller.MetadataTopic, CurrentLeaderEpoch: wire.NoEpoch, LastFetchedEpoch: wire.NoEpoch, MaxBytes: 1 << 30,
		})
	}
	resp, err := c.Call(replica.ControllerAt(), req, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	total, largest := 0, 0
	for _, p := range resp.(*wire.FetchResponse).Partitions {
		total += len(p.Records)
		for rest := p.Records; len(rest) > 0; {
			h, err := log.VerifyBatch(rest)
			if err != nil {
				t.Fatal(err)
			}
			largest = max(largest, h.Size())
			rest = rest[h.Size():]
		}
	}
	if total > budget+largest {
		t.Fatalf("a metadata fetch with MaxBytes %d was answered with %d bytes of records (largest batch %d)", budget, total, largest)
	}
}
