package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// peer is the other side: franz-go's kfake, three fake brokers in the
// harness's process or (-peer-process) in one child process (it
// replicates nothing), driven by kgo with its
// defaults: acks=all, idempotent, linger 10 ms (ProduceSync does not
// linger), 16 KiB batches.
type peer struct {
	c     *kfake.Cluster // in this process
	child *proc          // or in a child process
	addrs []string
	opts  []kgo.Opt // every client's options besides the seeds
	// values, if set, are the produce's values in turn, in place of
	// the one value given (the -kgo mode's -kgo-values random).
	values [][]byte
}

// valueAt is the value of the i-th record: values[i%len] if set, else v.
func (p *peer) valueAt(i int, v []byte) []byte {
	if len(p.values) == 0 {
		return v
	}
	return p.values[i%len(p.values)]
}

// startPeer starts kfake's brokers in this process, or, with self set,
// in a child process of their own (-peer-process), which then plays the
// kfake role.
func startPeer(self, dir string, topics ...string) (*peer, error) {
	if self != "" {
		ch, err := startChild(self, roleKfake, "kfake", logPathIn(dir, "kfake"), nil, topics...)
		if err != nil {
			return nil, err
		}
		line, err := ch.await(lineKfake, startLimit)
		if err != nil {
			ch.kill()
			return nil, err
		}
		return &peer{child: ch, addrs: strings.Fields(strings.TrimPrefix(line, lineKfake))}, nil
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(brokers), kfake.SeedTopics(1, topics...))
	if err != nil {
		return nil, err
	}
	return &peer{c: c, addrs: c.ListenAddrs()}, nil
}

func (p *peer) close() {
	if p.c != nil {
		p.c.Close()
	}
	if p.child != nil {
		p.child.kill()
	}
}

// runKfake is the kfake role: kfake's brokers with the topics in args,
// until the harness kills it.
func runKfake(topics []string) int {
	c, err := kfake.NewCluster(kfake.NumBrokers(brokers), kfake.SeedTopics(1, topics...))
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfakebench kfake: %v\n", err)
		return 1
	}
	defer c.Close()
	// Steered as the nodes are (stats, profile), so that the -kgo mode
	// measures its CPU as it measures kaenlog's brokers'.
	go steer(os.Stdin, os.Stdout)
	fmt.Printf("%s%s\n", lineKfake, strings.Join(c.ListenAddrs(), " "))
	select {}
}

func (p *peer) client(opts ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append(append([]kgo.Opt{kgo.SeedBrokers(p.addrs...)}, p.opts...), opts...)...)
}

// produceAsync is kcluster.produceAsync with kgo: Produce (which blocks
// while kgo buffers its maximum) then Flush.
func (p *peer) produceAsync(ctx context.Context, topic string, value []byte, n, batchBytes int, deadline time.Time) (int, time.Duration, error) {
	opts := []kgo.Opt{kgo.DefaultProduceTopic(topic)}
	if batchBytes > 0 {
		opts = append(opts, kgo.ProducerBatchMaxBytes(int32(batchBytes)))
	}
	cl, err := p.client(opts...)
	if err != nil {
		return 0, 0, err
	}
	defer cl.Close()
	var acked atomic.Int64
	var failed atomic.Pointer[error]
	done := func(_ *kgo.Record, err error) {
		if err != nil {
			e := err // only a failure escapes to the heap
			failed.CompareAndSwap(nil, &e)
		}
		acked.Add(1)
	}
	start := time.Now()
	for sent := 0; sent < n && (sent%1024 != 0 || time.Now().Before(deadline)); sent++ {
		cl.Produce(ctx, &kgo.Record{Topic: topic, Value: p.valueAt(sent, value)}, done)
	}
	if err := cl.Flush(ctx); err != nil {
		return 0, 0, err
	}
	elapsed := time.Since(start)
	if e := failed.Load(); e != nil {
		return 0, 0, *e
	}
	return int(acked.Load()), elapsed, nil
}

// produceSync is kcluster.produceSync with kgo's ProduceSync.
func (p *peer) produceSync(ctx context.Context, topic string, value []byte, n int, deadline time.Time) ([]time.Duration, error) {
	cl, err := p.client(kgo.DefaultProduceTopic(topic))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	lat := make([]time.Duration, 0, n)
	for i := 0; i < n && (i == 0 || time.Now().Before(deadline)); i++ {
		start := time.Now()
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: p.valueAt(i, value)}).FirstErr(); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(start))
	}
	return lat, nil
}

// consume reads n records of topic's partition 0 from offset from with a
// kgo direct consumer (no group) and returns the time it took.
func (p *peer) consume(ctx context.Context, topic string, from uint64, n int) (time.Duration, int64, error) {
	if n == 0 {
		return 0, 0, nil
	}
	cl, err := p.client(kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(int64(from))}}))
	if err != nil {
		return 0, 0, err
	}
	defer cl.Close()
	start := time.Now()
	got, bytes := 0, int64(0)
	for got < n {
		fs := cl.PollFetches(ctx)
		if errs := fs.Errors(); len(errs) > 0 {
			return 0, 0, fmt.Errorf("kgo fetch: %v", errs[0].Err)
		}
		var bad error
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset != int64(from)+int64(got) && bad == nil {
				bad = fmt.Errorf("kgo consume %s: record %d from %d at offset %d", topic, got, from, r.Offset)
			}
			bytes += int64(len(r.Value))
			got++
		})
		if bad != nil {
			return 0, 0, bad
		}
	}
	return time.Since(start), bytes, nil
}

// childCPUNanos is the CPU time kfake's child process has used, from
// /proc (in clock ticks of 10 ms); 0 when kfake runs in the harness or
// there is no /proc.
func (p *peer) childCPUNanos() int64 {
	if p.child == nil {
		return 0
	}
	return procTicks(p.child.cmd.Process.Pid) * 1e7 // USER_HZ is 100 on Linux
}
