package replica_test

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// Brokers apply each topic's retention and cleanup configs on their
// clock, on the leader and the followers alike (broker_retention.go): the
// disk stays bounded under a steady produce with time retention and with
// size retention, a compacted topic keeps the last value of every key, a
// config changed at run time applies at the next check with no restart,
// and every replica's log start moves, a consumer below it getting
// OFFSET_OUT_OF_RANGE.

const (
	cleanSegmentBytes = 2048
	cleanCheckMs      = 1000
)

// openCleaningCluster opens three in-memory brokers with small segments
// and a retention check every second, and creates topic (RF 3, one
// partition) with configs.
func openCleaningCluster(t *testing.T, configs ...wire.TopicConfig) *replica.Cluster {
	t.Helper()
	cfg := replica.ClusterConfig{Brokers: []int32{1, 2, 3}, Dir: "/cluster", InMemory: true, StartMs: t0}
	cfg.Broker.Replica.Log.SegmentBytes = cleanSegmentBytes
	cfg.Broker.LogRetentionCheckIntervalMs = cleanCheckMs
	c, err := replica.OpenCluster(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	resp, err := c.Call(replica.ControllerAt(), &wire.CreateTopicsRequest{CorrelationID: c.NextCorrelation(), Topics: []wire.CreatableTopic{
		{Name: topic.Topic, Assignment: [][]int32{{1, 2, 3}}, Configs: configs}}}, 10_000)
	if err == nil {
		err = resp.(*wire.CreateTopicsResponse).Err()
	}
	if err == nil {
		err = c.AwaitBrokers(10_000)
	}
	if err != nil {
		t.Fatalf("create %s with %v: %v", topic.Topic, configs, err)
	}
	return c
}

// segmentBytes is the size of broker id's segment files of topic, and
// how many there are.
func segmentBytes(t *testing.T, c *replica.Cluster, id int32) (total int64, segments int) {
	t.Helper()
	fsys := c.DiskFaults(id)
	dir := path.Join("/cluster", fmt.Sprintf("broker-%d", id), topic.String())
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Regular || !strings.HasSuffix(e.Name, ".log") {
			continue
		}
		f, err := fsys.OpenFile(path.Join(dir, e.Name), os.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		n, err := f.Size()
		_ = f.Close()
		if err != nil {
			t.Fatal(err)
		}
		total += n
		segments++
	}
	return total, segments
}

// keyed produces one batch of records with keys to the leader, acks=1
// (the caller runs the fetch rounds that replicate it),
// and waits for its answer.
func keyed(t *testing.T, c *replica.Cluster, kv ...string) error {
	t.Helper()
	var recs []log.Record
	for i := 0; i < len(kv); i += 2 {
		recs = append(recs, log.Record{OffsetDelta: int32(i / 2), Key: []byte(kv[i]), Value: []byte(kv[i+1])})
	}
	now := c.NowMs()
	batch, err := log.AppendBatch(nil, &log.Batch{BaseTimestamp: now, MaxTimestamp: now, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Call(replica.BrokerAt(c.LeaderOf(topic)), &wire.ProduceRequest{CorrelationID: c.NextCorrelation(), Acks: wire.AcksLeader, TimeoutMs: 10_000,
		Partitions: []wire.ProducePartition{{Topic: topic.Topic, Partition: topic.Partition, Records: batch}}}, 30_000)
	if err != nil {
		t.Fatal(err)
	}
	return resp.(*wire.ProduceResponse).Partitions[0].ErrorCode.Err()
}

// steady produces n batches of 200 bytes of value, one every 100 ms of
// the clock, replicating each, and reports the largest disk use any
// replica had after the first warm batches.
func steady(t *testing.T, c *replica.Cluster, n, warm int) (maxBytes int64) {
	t.Helper()
	value := strings.Repeat("v", 200)
	for i := range n {
		if err := keyed(t, c, fmt.Sprintf("k%d", i), value); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
		rounds(c, 2)
		c.Advance(100)
		if i < warm {
			continue
		}
		for _, id := range c.BrokerIDs() {
			size, _ := segmentBytes(t, c, id)
			maxBytes = max(maxBytes, size)
		}
	}
	return maxBytes
}

// everyLogStartMoved checks every replica's log start moved past 0 and
// that a consumer asking from 0 is told OFFSET_OUT_OF_RANGE.
func everyLogStartMoved(t *testing.T, c *replica.Cluster) {
	t.Helper()
	for _, id := range c.BrokerIDs() {
		r, _ := c.Replica(id, topic)
		if start := r.Log().StartOffset(); start == 0 {
			t.Errorf("broker %d's log start is still 0 (leader %d)", id, c.LeaderOf(topic))
		}
	}
	if _, err := c.Consume(topic, 0, 1<<20); !errors.Is(err, wire.ErrOffsetOutOfRange) {
		t.Errorf("a consumer from offset 0: %v, want OFFSET_OUT_OF_RANGE", err)
	}
}

func TestTimeRetentionKeepsEveryReplicasDiskBoundedUnderASteadyProduce(t *testing.T) {
	// 10 s of retention at 10 batches a second of ~280 bytes: ~28 KB, at
	// most one more segment per check interval and the active one.
	c := openCleaningCluster(t, wire.TopicConfig{Name: "retention.ms", Value: "10000"})
	got := steady(t, c, 600, 200)
	if limit := int64(28_000 + 4*cleanSegmentBytes); got > limit {
		t.Fatalf("a replica held %d bytes of segments, want at most %d with retention.ms 10000", got, limit)
	}
	everyLogStartMoved(t, c)
}

func TestSizeRetentionKeepsEveryReplicasDiskBoundedUnderASteadyProduce(t *testing.T) {
	c := openCleaningCluster(t, wire.TopicConfig{Name: "retention.bytes", Value: "8192"}, wire.TopicConfig{Name: "retention.ms", Value: "-1"})
	got := steady(t, c, 400, 100)
	// retention.bytes is a floor: the log exceeds it by less than one
	// segment, plus what one check interval adds.
	if limit := int64(8192 + 3*cleanSegmentBytes); got > limit {
		t.Fatalf("a replica held %d bytes of segments, want at most %d with retention.bytes 8192", got, limit)
	}
	everyLogStartMoved(t, c)
}

func TestACompactedTopicKeepsTheLastValueOfEveryKeyOnEveryReplica(t *testing.T) {
	c := openCleaningCluster(t, wire.TopicConfig{Name: "cleanup.policy", Value: "compact"})
	value := strings.Repeat("x", 100)
	const keys, rounds_ = 5, 60
	for i := range rounds_ {
		kv := make([]string, 0, 2*keys)
		for k := range keys {
			kv = append(kv, fmt.Sprintf("key-%d", k), fmt.Sprintf("%d-%s", i, value))
		}
		if err := keyed(t, c, kv...); err != nil {
			t.Fatalf("produce round %d: %v", i, err)
		}
		rounds(c, 2)
	}
	// The cleaner compacts one partition per check: give each broker a few.
	for range 5 {
		c.Advance(cleanCheckMs)
		rounds(c, 2)
	}
	for _, id := range c.BrokerIDs() {
		r, _ := c.Replica(id, topic)
		l := r.Log()
		if l.StartOffset() != 0 {
			t.Errorf("broker %d: log start %d: compaction never moves it", id, l.StartOffset())
		}
		_, segs := segmentBytes(t, c, id)
		latest, records := map[string]string{}, 0
		buf, err := l.Read(nil, 0, 1<<24, log.IsolationLogEnd)
		if err != nil {
			t.Fatal(err)
		}
		batches, err := log.DecodeBatches(buf)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range batches {
			for _, rec := range b.Records {
				latest[string(rec.Key)] = string(rec.Value)
				records++
			}
		}
		for k := range keys {
			if want := fmt.Sprintf("%d-%s", rounds_-1, value); latest[fmt.Sprintf("key-%d", k)] != want {
				t.Errorf("broker %d: key-%d's last value is %.10q, want %.10q", id, k, latest[fmt.Sprintf("key-%d", k)], want)
			}
		}
		if records >= keys*rounds_/2 {
			t.Errorf("broker %d holds %d of the %d records in %d segments: not compacted", id, records, keys*rounds_, segs)
		}
	}
}

func TestAConfigChangeAppliesWithoutARestart(t *testing.T) {
	c := openCleaningCluster(t) // Kafka's defaults: 7 days, nothing goes
	steady(t, c, 100, 100)
	for _, id := range c.BrokerIDs() {
		if r, _ := c.Replica(id, topic); r.Log().StartOffset() != 0 {
			t.Fatalf("broker %d deleted segments under the 7-day default", id)
		}
	}
	// Through a broker, as a Kafka client sends it: forwarded to the
	// controller, learned by every broker from the metadata log.
	resp, err := c.Call(replica.BrokerAt(2), &wire.IncrementalAlterConfigsRequest{CorrelationID: c.NextCorrelation(), Resources: []wire.AlterConfigsResource{
		{ResourceType: wire.ResourceTopic, ResourceName: topic.Topic, Configs: []wire.AlterableConfig{
			{Name: "retention.bytes", Op: wire.ConfigSet, Value: "4096"},
			{Name: "max.message.bytes", Op: wire.ConfigSet, Value: "256"},
		}}}}, 10_000)
	if err == nil {
		err = resp.(*wire.IncrementalAlterConfigsResponse).Err()
	}
	if err == nil {
		err = c.AwaitBrokers(10_000)
	}
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(cleanCheckMs)
	rounds(c, 2)
	for _, id := range c.BrokerIDs() {
		if size, _ := segmentBytes(t, c, id); size > 4096+2*cleanSegmentBytes {
			t.Errorf("broker %d holds %d bytes after retention.bytes became 4096", id, size)
		}
	}
	everyLogStartMoved(t, c)
	if err := keyed(t, c, "k", strings.Repeat("v", 300)); !errors.Is(err, wire.ErrMessageTooLarge) {
		t.Fatalf("a 300-byte batch with max.message.bytes 256: %v, want MESSAGE_TOO_LARGE", err)
	}
	if err := keyed(t, c, "k", "small"); err != nil {
		t.Fatalf("a small batch: %v", err)
	}
}

// min.insync.replicas changed at run time reaches the running leader,
// though no partition epoch moves: an acks=all produce that the ISR of 2
// satisfied is refused NOT_ENOUGH_REPLICAS once the topic asks for 3.
func TestAMinISRChangeReachesTheRunningLeader(t *testing.T) {
	c := openCleaningCluster(t)
	if err := c.StopBroker(3); err != nil {
		t.Fatal(err)
	}
	if err := c.Await(func() bool {
		p, _ := c.Controller().Image().Partition(topic.Topic, topic.Partition)
		return len(p.ISR) == 2
	}, 120_000); err != nil {
		t.Fatalf("waiting for the ISR to shrink to 2 without broker 3: %v", err)
	}
	if _, err := c.Produce(topic, wire.AcksAll, 30_000, []byte("two")); err != nil {
		t.Fatalf("acks=all with ISR 2 and min ISR 1: %v", err)
	}
	resp, err := c.Call(replica.ControllerAt(), &wire.IncrementalAlterConfigsRequest{CorrelationID: c.NextCorrelation(), Resources: []wire.AlterConfigsResource{
		{ResourceType: wire.ResourceTopic, ResourceName: topic.Topic, Configs: []wire.AlterableConfig{{Name: "min.insync.replicas", Op: wire.ConfigSet, Value: "3"}}}}}, 10_000)
	if err == nil {
		err = resp.(*wire.IncrementalAlterConfigsResponse).Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Await(func() bool {
		_, err := c.Produce(topic, wire.AcksAll, 1_000, []byte("three"))
		return errors.Is(err, wire.ErrNotEnoughReplicas)
	}, 10_000); err != nil {
		t.Fatalf("waiting for acks=all to be refused NOT_ENOUGH_REPLICAS under min ISR 3: %v", err)
	}
}

// segment.bytes changed at run time: every replica's next segments roll
// at the new size.
func TestASegmentBytesChangeRollsEveryReplicaAtTheNewSize(t *testing.T) {
	c := openCleaningCluster(t)
	resp, err := c.Call(replica.ControllerAt(), &wire.IncrementalAlterConfigsRequest{CorrelationID: c.NextCorrelation(), Resources: []wire.AlterConfigsResource{
		{ResourceType: wire.ResourceTopic, ResourceName: topic.Topic, Configs: []wire.AlterableConfig{{Name: "segment.bytes", Op: wire.ConfigSet, Value: "600"}}}}}, 10_000)
	if err == nil {
		err = resp.(*wire.IncrementalAlterConfigsResponse).Err()
	}
	if err == nil {
		err = c.AwaitBrokers(10_000)
	}
	if err != nil {
		t.Fatal(err)
	}
	steady(t, c, 20, 20)
	for _, id := range c.BrokerIDs() {
		size, segs := segmentBytes(t, c, id)
		// ~280-byte batches, two to a 600-byte segment: 10 segments,
		// where the broker's 2048 would make 3.
		if segs < 9 || size/int64(segs) > 600 {
			t.Errorf("broker %d: %d bytes in %d segments, want segments of at most 600 bytes", id, size, segs)
		}
	}
}
