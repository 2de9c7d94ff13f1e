package kafka_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kcat runs Debian's kcat (librdkafka inside) against the cluster's Kafka
// listeners. The tests skip where kcat is not on PATH; .ci/run installs
// it.

// needKcat skips the test without kcat and logs the librdkafka version it
// bundles (Debian bookworm: kcat 1.7.1, librdkafka 2.0.2).
func needKcat(t *testing.T) {
	t.Helper()
	path, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not on PATH (apt-get install kcat; .ci/run installs it): the kcat tests did not run")
	}
	out, err := exec.Command(path, "-V").CombinedOutput()
	if err != nil {
		t.Fatalf("kcat -V: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Version") {
			t.Logf("kcat: %s", line)
		}
	}
}

// kcat runs kcat with args against the cluster's bootstrap listeners,
// stdin as its input, and returns its standard output; a failure or a
// wait past clusterWait fails the test with kcat's standard error.
func kcat(t *testing.T, c *cluster, stdin string, args ...string) string {
	t.Helper()
	out, stderr := runKcat(t, c, stdin, args...)
	if stderr != "" {
		t.Logf("kcat %s: stderr:\n%s", strings.Join(args, " "), stderr)
	}
	return out
}

// kcatErr is kcat that returns kcat's standard error.
func kcatErr(t *testing.T, c *cluster, stdin string, args ...string) string {
	t.Helper()
	_, stderr := runKcat(t, c, stdin, args...)
	return stderr
}

func runKcat(t *testing.T, c *cluster, stdin string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	args = append([]string{"-b", strings.Join(c.seeds(), ",")}, args...)
	cmd := exec.CommandContext(ctx, "kcat", args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("kcat %s: %v (context: %v)\nstderr:\n%s", strings.Join(args, " "), err, ctx.Err(), errOut.String())
	}
	return out.String(), errOut.String()
}

// kcatMetadata is what kcat -L -J prints.
type kcatMetadata struct {
	Brokers []struct {
		ID   int32  `json:"id"`
		Name string `json:"name"`
	} `json:"brokers"`
	Topics []struct {
		Topic      string `json:"topic"`
		Partitions []struct {
			Partition int32 `json:"partition"`
			Leader    int32 `json:"leader"`
			Replicas  []struct {
				ID int32 `json:"id"`
			} `json:"replicas"`
			ISRs []struct {
				ID int32 `json:"id"`
			} `json:"isrs"`
		} `json:"partitions"`
	} `json:"topics"`
}

// kcatPartition lists a partition as kcat -L -J saw it: leader, replicas
// and ISR, sorted.
func kcatPartition(t *testing.T, c *cluster, topic string, p int32) (leader int32, replicas, isr []int32) {
	t.Helper()
	out := kcat(t, c, "", "-L", "-J", "-t", topic)
	var md kcatMetadata
	if err := json.Unmarshal([]byte(out), &md); err != nil {
		t.Fatalf("kcat -L -J: %v\n%s", err, out)
	}
	for _, tp := range md.Topics {
		for _, pp := range tp.Partitions {
			if tp.Topic != topic || pp.Partition != p {
				continue
			}
			for _, r := range pp.Replicas {
				replicas = append(replicas, r.ID)
			}
			for _, r := range pp.ISRs {
				isr = append(isr, r.ID)
			}
			slices.Sort(replicas)
			slices.Sort(isr)
			return pp.Leader, replicas, isr
		}
	}
	t.Fatalf("kcat -L -J lists no %s-%d:\n%s", topic, p, out)
	return 0, nil, nil
}

// sorted returns a sorted copy of ids.
func sorted(ids []int32) []int32 {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	return ids
}

// TestKcatListsBrokersAndTheRealISR: kcat -L names every broker at its
// Kafka listener, and each partition's leader, replicas and ISR as the
// controller has them: once a follower is killed and its session
// expires, the ISR kcat lists has shrunk while the replicas have not
// (kfake lists ISR = replicas).
func TestKcatListsBrokersAndTheRealISR(t *testing.T) {
	needKcat(t)
	const topic = "listed"
	c := startCluster(t, 3)
	c.createTopic(topic, 2, 3, 2)

	out := kcat(t, c, "", "-L", "-J")
	var md kcatMetadata
	if err := json.Unmarshal([]byte(out), &md); err != nil {
		t.Fatalf("kcat -L -J: %v\n%s", err, out)
	}
	brokers := map[int32]string{}
	for _, b := range md.Brokers {
		brokers[b.ID] = b.Name
	}
	for id := int32(1); id <= 3; id++ {
		want := c.kafkaAddr(id)
		if brokers[id] != want {
			t.Errorf("kcat -L lists broker %d at %q, its Kafka listener is %s", id, brokers[id], want)
		}
	}
	for p := range int32(2) {
		ps := c.partition(topic, p)
		leader, replicas, isr := kcatPartition(t, c, topic, p)
		if leader != ps.Leader || !slices.Equal(replicas, sorted(ps.Replicas)) || !slices.Equal(isr, sorted(ps.ISR)) {
			t.Errorf("%s-%d: kcat lists leader %d, replicas %v, ISR %v; the controller has %d, %v, %v",
				topic, p, leader, replicas, isr, ps.Leader, ps.Replicas, ps.ISR)
		}
	}

	// A follower of partition 0 dies; once its session expires the
	// controller takes it out of the ISR, and kcat lists that ISR.
	ps := c.partition(topic, 0)
	follower := ps.Replicas[0]
	if follower == ps.Leader {
		follower = ps.Replicas[1]
	}
	c.kill(follower, vfs.KeepUnsynced)
	c.await(fmt.Sprintf("broker %d out of the ISR of %s-0", follower, topic), func() bool {
		return !slices.Contains(c.partition(topic, 0).ISR, follower)
	})
	want := c.partition(topic, 0)
	c.await(fmt.Sprintf("kcat -L to list %s-0's ISR %v", topic, want.ISR), func() bool {
		_, _, isr := kcatPartition(t, c, topic, 0)
		return slices.Equal(isr, sorted(want.ISR))
	})
	leader, replicas, isr := kcatPartition(t, c, topic, 0)
	if leader != want.Leader || len(replicas) != 3 || len(isr) != 2 || slices.Contains(isr, follower) {
		t.Errorf("after broker %d died: kcat lists leader %d, replicas %v, ISR %v; the controller has %d, %v, %v",
			follower, leader, replicas, isr, want.Leader, want.Replicas, want.ISR)
	}
	t.Logf("after broker %d died: leader %d, replicas %v, ISR %v", follower, leader, replicas, isr)
}

// TestKcatRoundTripsRecordsHeadersAndTombstones: kcat's idempotent
// acks=all producer (librdkafka's) writes lines, a record with headers
// and a tombstone (a key and a null value) to a 3-broker cluster (RF 3,
// min ISR 2); kcat's consumer reads every one back byte for byte at
// offsets 0, 1, 2, ...; and kcat -Q finds offsets by time.
func TestKcatRoundTripsRecordsHeadersAndTombstones(t *testing.T) {
	needKcat(t)
	const topic = "kcat"
	c := startCluster(t, 3)
	c.createTopic(topic, 1, 3, 2)
	produce := func(stdin string, args ...string) {
		t.Helper()
		args = append([]string{"-P", "-t", topic, "-p", "0", "-z", "none", "-X", "enable.idempotence=true", "-X", "acks=all", "-K:"}, args...)
		kcat(t, c, stdin, args...)
	}
	produce("k0:plain value\nk1:spaces  and\ttabs\nk2:ünïcødé ✓\n")
	produce("hk:with headers\n", "-H", "h1=v1", "-H", "h2=v=2")
	produce("gone:\n", "-Z")

	out := kcat(t, c, "", "-C", "-t", topic, "-o", "beginning", "-e", "-Z", "-f", "%k|%s|%S|%h|%o\n")
	var want string
	for i, v := range []string{"plain value", "spaces  and\ttabs", "ünïcødé ✓"} {
		want += fmt.Sprintf("k%d|%s|%d||%d\n", i, v, len(v), i)
	}
	want += "hk|with headers|12|h1=v1,h2=v=2|3\n" + // %S: the value's length in bytes
		"gone|NULL|-1||4\n" // -1: a null value, not an empty one
	if out != want {
		t.Fatalf("kcat -C read\n%q\nwant\n%q", out, want)
	}

	// Offsets by time: each record's timestamp (kcat's %T) finds the first
	// offset whose timestamp is at or after it.
	out = kcat(t, c, "", "-C", "-t", topic, "-o", "beginning", "-e", "-f", "%o %T\n")
	var ts []int64
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var o, at int64
		if _, err := fmt.Sscanf(line, "%d %d", &o, &at); err != nil || o != int64(len(ts)) {
			t.Fatalf("kcat -C %%o %%T: line %q (%v)", line, err)
		}
		ts = append(ts, at)
	}
	t.Logf("the records' timestamps: %v", ts)
	for i, at := range ts {
		wantOffset := slices.IndexFunc(ts, func(x int64) bool { return x >= at })
		got := kcat(t, c, "", "-Q", "-t", fmt.Sprintf("%s:0:%d", topic, at))
		if w := fmt.Sprintf("%s [0] offset %d\n", topic, wantOffset); got != w {
			t.Errorf("kcat -Q at record %d's timestamp %d: %q, want %q", i, at, got, w)
		}
	}
	last := ts[len(ts)-1]
	if got, w := kcat(t, c, "", "-Q", "-t", fmt.Sprintf("%s:0:%d", topic, last+1)), fmt.Sprintf("%s [0] offset -1\n", topic); got != w {
		t.Errorf("kcat -Q past the last timestamp: %q, want %q", got, w)
	}
}

// TestKcatProducesBatchesInEveryCodec: kcat's idempotent acks=all
// producer with -z none, gzip, snappy, lz4 and zstd (librdkafka
// compresses each batch) writes to the cluster; the leader validates each
// batch by decompressing it (gzip is built into the log, the others
// registered by replica/compression) and stores it as sent, and kcat's
// consumer reads every record back, byte for byte, at its offset; kgo's
// consumer sees the codec in every record's batch attributes. librdkafka
// 2.0.2 compresses only because Produce is advertised from v0
// (KAFKA-18659): it would say "Broker does not support compression type
// gzip: not compressing batch" otherwise, so the test fails on that line
// too. librdkafka 2.0.2 compresses with lz4 only for a broker that
// advertises FindCoordinator v0 (rdkafka_feature.c, the LZ4 feature's
// dependency), which the listener does since it serves groups.
func TestKcatProducesBatchesInEveryCodec(t *testing.T) {
	needKcat(t)
	const n = 200
	c := startCluster(t, 3)
	if !advertisesV0(t, c, 10) {
		t.Fatal("FindCoordinator v0 is not advertised: librdkafka 2.0.2 would send lz4 batches uncompressed")
	}
	for codec, name := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		topic := "codec-" + name
		c.createTopic(topic, 1, 3, 2)
		var in, want strings.Builder
		for i := range n {
			v := fmt.Sprintf("a %s record, number %d, %s", name, i, strings.Repeat("x", i%50))
			fmt.Fprintf(&in, "k%d:%s\n", i, v)
			fmt.Fprintf(&want, "k%d|%s|%d\n", i, v, i)
		}
		stderr := kcatErr(t, c, in.String(), "-P", "-t", topic, "-p", "0", "-z", name, "-X", "enable.idempotence=true", "-X", "acks=all", "-K:", "-X", "debug=msg")
		if strings.Contains(stderr, "not compressing") {
			t.Fatalf("%s: librdkafka did not compress:\n%s", name, stderr)
		}
		if strings.Contains(stderr, "Delivery failed") {
			t.Fatalf("%s: a delivery failed:\n%s", name, stderr)
		}
		got := kcat(t, c, "", "-C", "-t", topic, "-o", "beginning", "-e", "-f", "%k|%s|%o\n")
		if got != want.String() {
			t.Fatalf("%s: kcat -C read\n%s\nwant\n%s", name, got, want.String())
		}
		// The batches are stored as sent: kgo's consumer sees each
		// record's batch attributes, the codec for every one.
		checkCodecs(t, c, topic, n, int8(codec))
	}
}

// TestKgoProducesWithItsDefaultSnappy: kgo's producer, with its default
// compression (snappy, raw blocks), writes through the listener; kcat's
// consumer (librdkafka's snappy reader) reads every record back at its
// offset, and every batch is stored snappy-compressed, as sent.
func TestKgoProducesWithItsDefaultSnappy(t *testing.T) {
	needKcat(t)
	const topic, n = "kgo-default", 300
	c := startCluster(t, 3)
	c.createTopic(topic, 1, 3, 2)
	cl := kgoClient(t, c, kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()))
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	var want strings.Builder
	rs := make([]*kgo.Record, n)
	for i := range rs {
		v := fmt.Sprintf("kgo's default codec, record %d, %s", i, strings.Repeat("y", i%40))
		rs[i] = &kgo.Record{Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(v)}
		fmt.Fprintf(&want, "k%d|%s|%d\n", i, v, i)
	}
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatalf("kgo ProduceSync with its default compression: %v", err)
	}
	got := kcat(t, c, "", "-C", "-t", topic, "-o", "beginning", "-e", "-f", "%k|%s|%o\n")
	if got != want.String() {
		t.Fatalf("kcat -C read\n%s\nwant\n%s", got, want.String())
	}
	checkCodecs(t, c, topic, n, 2)
}

// advertisesV0 reports whether the listener's ApiVersions answer has the
// API key from version 0.
func advertisesV0(t *testing.T, c *cluster, key int16) bool {
	t.Helper()
	cl := kgoClient(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("ApiVersions: %v", err)
	}
	for _, k := range resp.ApiKeys {
		if k.ApiKey == key {
			return k.MinVersion == 0
		}
	}
	return false
}

// checkCodecs reads the n records of partition 0 of topic with kgo and
// checks that each one's batch has compression type codec.
func checkCodecs(t *testing.T, c *cluster, topic string, n int, codec int8) {
	t.Helper()
	cl := kgoClient(t, c, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	for read := 0; read < n; {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: kgo read %d of %d records before the wait ended", topic, read, n)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if ct := r.Attrs.CompressionType(); ct != uint8(codec) {
				t.Errorf("%s offset %d: compression type %d, want %d", topic, r.Offset, ct, codec)
			}
			read++
		})
	}
}
