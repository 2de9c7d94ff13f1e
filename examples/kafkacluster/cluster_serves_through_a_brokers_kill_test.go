package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/examples/internal/cmdtest"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestTheClusterServesKafkaClientsThroughABrokersKillAndStopsCleanly
// runs the command as users do, with no flags: once it prints its one
// bootstrap line, a kgo client produces with acks=all and reads back;
// the partition's leader's process is killed with SIGKILL, and the
// cluster still takes and serves records, every acknowledged one of
// them; a SIGINT then stops every node cleanly (status 0) and removes
// the temporary directory.
func TestTheClusterServesKafkaClientsThroughABrokersKillAndStopsCleanly(t *testing.T) {
	bin := cmdtest.Build(t, "github.com/kaenlog/kaenlog/examples/kafkacluster")
	tmp := t.TempDir()
	p := cmdtest.Start(t, bin, []string{"TMPDIR=" + tmp})
	line := p.Await("bootstrap: ")
	seeds := strings.Split(strings.TrimPrefix(line, "bootstrap: "), ",")
	if len(seeds) != 3 {
		t.Fatalf("bootstrap line %q: want three brokers", line)
	}
	stderr := p.Stderr()
	pids := map[int32]int{}
	for _, m := range regexp.MustCompile(`msg="node started" node="broker (\d+)" pid=(\d+)`).FindAllStringSubmatch(stderr, -1) {
		id, _ := strconv.Atoi(m[1])
		pid, _ := strconv.Atoi(m[2])
		pids[int32(id)] = pid
	}
	if len(pids) != 3 {
		t.Fatalf("broker pids %v in the log:\n%s", pids, stderr)
	}
	const topic = "orders"

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prod, produce := newProducer(ctx, t, p, seeds, topic)
	produce(0, 20)
	consume(ctx, t, seeds, topic, 20)

	leader := leaderOf(ctx, t, prod, topic)
	if err := syscall.Kill(pids[leader], syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 broker %d (pid %d): %v", leader, pids[leader], err)
	}
	produce(20, 40)
	consume(ctx, t, seeds, topic, 40)

	if err := p.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if status := p.Wait(); status != 0 {
		t.Fatalf("exit status %d after SIGINT; stderr:\n%s", status, p.Stderr())
	}
	if !strings.Contains(p.Stderr(), "every node stopped cleanly") {
		t.Errorf("no clean stop in the log:\n%s", p.Stderr())
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
		t.Errorf("the temporary directory's parent holds %v (%v) after the exit", left, err)
	}
}

// newProducer returns an acks=all kgo client producing to topic on the
// cluster p runs (auto-creating it), and produce, which writes r<i> for
// i in [from, to) one at a time, checking each lands at offset i.
func newProducer(ctx context.Context, t *testing.T, p *cmdtest.Proc, seeds []string, topic string) (*kgo.Client, func(from, to int)) {
	t.Helper()
	prod, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic(topic),
		kgo.AllowAutoTopicCreation(), // kgo's Metadata asks for it only so
		kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(prod.Close)
	return prod, func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			r := &kgo.Record{Value: fmt.Appendf(nil, "r%d", i)}
			if err := prod.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatalf("record %d: %v\nstderr:\n%s", i, err, p.Stderr())
			}
			if r.Offset != int64(i) {
				t.Fatalf("record %d acknowledged at offset %d", i, r.Offset)
			}
		}
	}
}

// consume reads partition 0 of topic from the start with a new client
// and checks it holds r0 ... r(n-1) at offsets 0 ... n-1.
func consume(ctx context.Context, t *testing.T, seeds []string, topic string, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for read := 0; read < n; {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%d of %d records read: %v", read, n, ctx.Err())
		}
		fs.EachRecord(func(r *kgo.Record) {
			if want := fmt.Sprintf("r%d", r.Offset); string(r.Value) != want || r.Offset != int64(read) {
				t.Fatalf("read %q at offset %d, want %q at %d", r.Value, r.Offset, want, read)
			}
			read++
		})
	}
}

// leaderOf asks a broker's Metadata for partition 0's leader.
func leaderOf(ctx context.Context, t *testing.T, cl *kgo.Client, topic string) int32 {
	t.Helper()
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		t.Fatalf("metadata of %s: %+v, %v", topic, resp, err)
	}
	return resp.Topics[0].Partitions[0].Leader
}
