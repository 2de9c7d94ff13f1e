package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kaenlog/kaenlog/examples/internal/nodecmd"
	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/wire"
)

// brokers is how many broker processes each side runs.
const brokers = 3

// kcluster is kaenlog's side: a controller and three brokers, each a
// process of its own, and a client in the harness.
type kcluster struct {
	dir     string
	ctl     *proc
	ctlAddr string
	brokers []*proc // brokers[i] has id i+1
	cl      *client.Client
	kafka   []string // with kafka set, the brokers' Kafka listeners
}

// startKaenlog starts the controller and the brokers on free loopback
// ports with their data under dir, and waits until every broker is
// registered and unfenced. The nodes run the code of examples/controller
// and examples/broker with their default flags, env added to their
// environment. With kafka set, the brokers are kafka-broker children
// (kafka_broker.go), each with a Kafka listener too.
func startKaenlog(self, dir string, env []string, kafka bool) (*kcluster, error) {
	k := &kcluster{dir: dir}
	var err error
	k.ctl, err = startChild(self, roleController, "controller", logPathIn(dir, "controller"), env,
		"-listen", "127.0.0.1:0", "-dir", filepath.Join(dir, "controller"))
	if err != nil {
		return nil, err
	}
	line, err := k.ctl.await("controller listening on ", startLimit)
	if err != nil {
		return nil, err
	}
	k.ctlAddr = strings.TrimSuffix(strings.Fields(line)[3], ",")
	for id := 1; id <= brokers; id++ {
		name := fmt.Sprintf("broker %d", id)
		role := roleBroker
		if kafka {
			role = roleKafkaBroker
		}
		b, err := startChild(self, role, name, logPathIn(dir, name), env,
			"-id", fmt.Sprint(id), "-listen", "127.0.0.1:0", "-controller", k.ctlAddr,
			"-dir", filepath.Join(dir, fmt.Sprintf("broker-%d", id)))
		if err != nil {
			return nil, err
		}
		k.brokers = append(k.brokers, b)
	}
	for _, b := range k.brokers {
		if !kafka {
			if _, err := b.await(b.name+" ready", startLimit); err != nil {
				return nil, err
			}
			continue
		}
		line, err := b.await(lineKafkaReady, startLimit)
		if err != nil {
			return nil, err
		}
		k.kafka = append(k.kafka, strings.TrimPrefix(line, lineKafkaReady))
	}
	k.cl, err = client.New(client.Config{Controller: k.ctlAddr, Clock: wallclock.New()})
	return k, err
}

// close closes the client and kills the nodes: their data is thrown away.
func (k *kcluster) close() {
	if k.cl != nil {
		k.cl.Close()
	}
	for _, b := range k.brokers {
		b.kill()
	}
	if k.ctl != nil {
		k.ctl.kill()
	}
}

// createTopic creates a one-partition topic of replication factor 3 and
// min ISR 2, and returns the id of its leader once it has one.
func (k *kcluster) createTopic(ctx context.Context, topic string) (int32, error) {
	if err := k.cl.CreateTopic(ctx, client.TopicConfig{Name: topic, Partitions: 1, ReplicationFactor: brokers, MinISR: 2}); err != nil {
		return 0, err
	}
	for {
		leader, isr, err := k.leader(topic)
		if err == nil && leader >= 0 && isr == brokers {
			return leader, nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("topic %s: no leader with a full ISR: %w (last: %v)", topic, ctx.Err(), err)
		case <-time.After(20 * time.Millisecond): // polling interval
		}
	}
}

// leader asks the controller for the leader and ISR size of the topic's
// partition 0.
func (k *kcluster) leader(topic string) (leader int32, isr int, err error) {
	m, err := nodecmd.Call(k.ctlAddr, &wire.MetadataRequest{CorrelationID: 1, Topics: []string{topic}}, nodecmd.CallTimeout)
	if err != nil {
		return -1, 0, err
	}
	md := m.(*wire.MetadataResponse)
	if md.ErrorCode != wire.CodeNone {
		return -1, 0, md.ErrorCode.Err()
	}
	for _, t := range md.Topics {
		for _, p := range t.Partitions {
			if t.Name == topic && p.Partition == 0 {
				return p.Leader, len(p.ISR), nil
			}
		}
	}
	return -1, 0, fmt.Errorf("topic %s: not in the metadata", topic)
}

// broker returns the broker process of id.
func (k *kcluster) broker(id int32) *proc { return k.brokers[id-1] }

// produceAsync produces up to n records of value to topic, acks=all and
// idempotent (the producer's defaults), in batches of batchBytes (0: the
// default): with ProduceManyAsync, many records a call, or with
// ProduceAsync, one a call, when many is 0. It stops handing over records
// at the deadline, flushes, and returns how many were acknowledged and
// how long it took.
func (k *kcluster) produceAsync(ctx context.Context, topic string, value []byte, n, batchBytes, many int, deadline time.Time) (int, time.Duration, error) {
	p, err := k.cl.NewProducer(client.ProducerConfig{BatchBytes: batchBytes})
	if err != nil {
		return 0, 0, err
	}
	defer p.Close()
	var acked atomic.Int64
	var failed atomic.Pointer[error]
	wake := make(chan struct{}, 1)
	outcome := func(n int, err error) {
		if err != nil {
			e := err // only a failure escapes to the heap
			failed.CompareAndSwap(nil, &e)
		}
		// Wake the loop below after every 256 outcomes, or every run.
		if c := acked.Add(int64(n)); c%256 < int64(n) {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}
	done := func(_ client.Offset, err error) { outcome(1, err) }
	runDone := func(_, n int, _ client.Offset, err error) { outcome(n, err) }
	recs := make([]client.Record, max(many, 1))
	for i := range recs {
		recs[i] = client.Record{Topic: topic, Value: value}
	}
	start := time.Now()
	sent := 0
	for check := 0; sent < n; {
		// The deadline is looked at every 1024 records or so.
		if sent >= check {
			if !time.Now().Before(deadline) {
				break
			}
			check = sent + 1024
		}
		var err error
		if many == 0 {
			if err = p.ProduceAsync(recs[0], done); err == nil {
				sent++
			}
		} else {
			var k int
			k, err = p.ProduceManyAsync(recs[:min(many, n-sent)], runDone)
			sent += k
		}
		switch {
		case err == nil:
		case errors.Is(err, client.ErrBufferFull):
			// Wait for room: the next outcomes, or a moment.
			select {
			case <-wake:
			case <-time.After(time.Millisecond):
			}
		default:
			return 0, 0, err
		}
	}
	if err := p.Flush(ctx); err != nil {
		return 0, 0, err
	}
	elapsed := time.Since(start)
	if e := failed.Load(); e != nil {
		return 0, 0, *e
	}
	return int(acked.Load()), elapsed, nil
}

// produceSync produces n records one at a time, each waiting for its
// acks=all answer, and returns each one's latency.
func (k *kcluster) produceSync(ctx context.Context, topic string, value []byte, n int, deadline time.Time) ([]time.Duration, error) {
	p, err := k.cl.NewProducer(client.ProducerConfig{})
	if err != nil {
		return nil, err
	}
	defer p.Close()
	rec := client.Record{Topic: topic, Value: value}
	lat := make([]time.Duration, 0, n)
	for i := 0; i < n && (i == 0 || time.Now().Before(deadline)); i++ {
		start := time.Now()
		if _, err := p.Produce(ctx, rec); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(start))
	}
	return lat, nil
}

// consume reads n records of topic from offset from with a consumer
// (defaults: committed records, long-polling) and returns the time it
// took and the bytes of values seen.
func (k *kcluster) consume(ctx context.Context, topic string, from uint64, n int) (time.Duration, int64, error) {
	co, err := k.cl.NewConsumer(client.ConsumerConfig{})
	if err != nil {
		return 0, 0, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	got, bytes := 0, int64(0)
	if n == 0 {
		return 0, 0, nil
	}
	for rec, err := range co.Records(ctx, client.TopicPartition{Topic: topic}, client.FromOffset(from)) {
		if err != nil {
			return 0, 0, err
		}
		if rec.Offset != from+uint64(got) {
			return 0, 0, fmt.Errorf("consume %s: record %d from %d at offset %d", topic, got, from, rec.Offset)
		}
		bytes += int64(len(rec.Value))
		if got++; got == n {
			break
		}
	}
	return time.Since(start), bytes, nil
}

// ioCounts are a process's read and write system calls so far.
type ioCounts struct{ reads, writes int64 }

// syscalls returns each broker's ioCounts by id, from /proc (zero where
// there is no /proc).
func (k *kcluster) syscalls() (map[int32]ioCounts, error) {
	m := map[int32]ioCounts{}
	for id := int32(1); id <= brokers; id++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", k.broker(id).cmd.Process.Pid))
		if err != nil {
			continue
		}
		var c ioCounts
		for _, line := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(line, ": ")
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			switch k {
			case "syscr":
				c.reads = n
			case "syscw":
				c.writes = n
			}
		}
		m[id] = c
	}
	return m, nil
}
