package controller

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/wire"
)

// logStory runs a short scenario on a controller over store and returns its
// image.
func logStory(t *testing.T, store Store) *Image {
	t.Helper()
	now := int64(1_000_000)
	c, err := Open(store, Config{SessionTimeoutMs: 1000}, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int32{1, 2, 3} {
		r := c.RegisterBroker(wire.BrokerRegistrationRequest{BrokerID: id, IncarnationID: incarnation(id, 1)}, now)
		if r.ErrorCode != wire.CodeNone {
			t.Fatal(r.ErrorCode)
		}
		c.Heartbeat(wire.BrokerHeartbeatRequest{BrokerID: id, BrokerEpoch: r.BrokerEpoch, MetadataOffset: c.MetadataEndOffset()}, now)
	}
	if r := c.CreateTopics(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 3, ReplicationFactor: 3, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "2"}}}}}, now); r.Err() != nil {
		t.Fatal(r.ErrorCode, r.ErrorMessage)
	}
	c.Tick(now + 1001) // every session expires
	if c.Failed() != nil {
		t.Fatal(c.Failed())
	}
	img := c.Image()
	if p, _ := img.Partition("orders", 0); p.Leader != NoLeader || len(p.ELR) != 2 {
		t.Fatalf("the story went elsewhere: %s", p)
	}
	return img
}

// The metadata log in a log.Log survives a clean close and a crash: Open
// replays it to the same image.
func TestALogStoreReplaysToTheSameImage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "__cluster_metadata-0")
	store, err := OpenLogStore(dir, log.Options{SegmentBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	want := logStory(t, store)

	// A crash: the files as they are, no Close, no high-watermark
	// checkpoint. Every append was fsynced, so every record comes back.
	crashed := filepath.Join(t.TempDir(), "crashed")
	copyDir(t, dir, crashed)
	for name, d := range map[string]string{"crash": crashed, "clean close": dir} {
		if name == "clean close" {
			if err := store.Close(); err != nil {
				t.Fatal(err)
			}
		}
		s, err := OpenLogStore(d, log.Options{SegmentBytes: 4096})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c, err := Open(s, Config{SessionTimeoutMs: 1000}, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !c.Image().Equal(want) {
			t.Fatalf("%s: replayed\n%swant\n%s", name, c.Image(), want)
		}
		// It carries on writing where it stopped.
		if r := c.CreateTopics(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "later", Assignment: [][]int32{{1}}}}}, 0); wire.CodeOf(r.Err()) != wire.CodeInvalidReplicationFactor {
			t.Fatalf("%s: %v %s, want INVALID_REPLICATION_FACTOR (every broker is fenced)", name, r.ErrorCode, r.ErrorMessage)
		}
		if r := c.RegisterBroker(wire.BrokerRegistrationRequest{BrokerID: 4, IncarnationID: incarnation(4, 1)}, 0); r.ErrorCode != wire.CodeNone || r.BrokerEpoch != int64(want.EndOffset()) {
			t.Fatalf("%s: %+v, want epoch %d", name, r, want.EndOffset())
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
