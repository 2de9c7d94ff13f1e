package server_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// TestConcurrentConnectionsReadTheLogAsWritten: the broker reuses its
// fetch and produce responses from event to event, so every response
// must leave (be framed or written) before the next event of any
// connection. Many producers pipeline acks=1 and acks=all produces while
// many consumers long-poll the same partitions on their own connections;
// every consumer must read, at every offset, exactly the value some
// producer was acknowledged at that offset, with valid CRCs.
func TestConcurrentConnectionsReadTheLogAsWritten(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	c := clustertest.Start(t, clustertest.Options{Brokers: 3})
	const parts, producers, consumers, perProducer, pipeline = 2, 8, 8, 300, 8
	c.CreateTopic("iso", parts, 3, 2)
	leaders := map[int32]string{}
	for p := range int32(parts) {
		l, _ := c.Leader(replica.TopicPartition{Topic: "iso", Partition: p})
		leaders[p] = c.Broker(l).Host.Addr().String()
	}

	type key struct {
		p   int32
		off uint64
	}
	var mu sync.Mutex
	acked := map[key]string{}
	var wg sync.WaitGroup
	for g := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(g)))
			conns := map[int32]*isoConn{}
			for p, addr := range leaders {
				rc, err := dialIso(addr)
				if err != nil {
					t.Error(err)
					return
				}
				defer rc.nc.Close()
				conns[p] = rc
			}
			type sent struct {
				p     int32
				value string
			}
			for i := 0; i < perProducer; {
				var batch []sent
				for j := 0; j < pipeline && i < perProducer; j, i = j+1, i+1 {
					p := rng.Int32N(parts)
					v := fmt.Sprintf("p%d-%d-%s", g, i, string(make([]byte, rng.IntN(3000))))
					acks := int16(wire.AcksAll)
					if rng.IntN(2) == 0 {
						acks = wire.AcksLeader
					}
					req := produceRequest(t, replica.TopicPartition{Topic: "iso", Partition: p}, acks, v)
					req.CorrelationID = int32(i + 1)
					if err := conns[p].send(req); err != nil {
						t.Error(err)
						return
					}
					batch = append(batch, sent{p, v})
				}
				for _, s := range batch {
					m, err := conns[s.p].receive()
					if err != nil {
						t.Error(err)
						return
					}
					pr := m.(*wire.ProduceResponse).Partitions[0]
					if pr.ErrorCode != wire.CodeNone || !pr.HasBaseOffset {
						t.Errorf("produce: %+v", pr)
						return
					}
					mu.Lock()
					if old, ok := acked[key{s.p, pr.BaseOffset}]; ok {
						t.Errorf("partition %d offset %d acknowledged twice (%.12q and %.12q)", s.p, pr.BaseOffset, old, s.value)
					}
					acked[key{s.p, pr.BaseOffset}] = s.value
					mu.Unlock()
				}
			}
		}()
	}

	total := producers * perProducer
	seen := make([]map[key]string, consumers)
	var cwg sync.WaitGroup
	for g := range consumers {
		seen[g] = map[key]string{}
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			next := make([]uint64, parts)
			conns := map[int32]*isoConn{}
			for p, addr := range leaders {
				rc, err := dialIso(addr)
				if err != nil {
					t.Error(err)
					return
				}
				defer rc.nc.Close()
				conns[p] = rc
			}
			limit := time.Now().Add(clustertest.WaitLimit)
			for corr := int32(1); len(seen[g]) < total; corr++ {
				if time.Now().After(limit) {
					t.Errorf("consumer %d: read %d records of %d within %v", g, len(seen[g]), total, clustertest.WaitLimit)
					return
				}
				p := corr % parts
				req := &wire.FetchRequest{CorrelationID: corr, ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1, MaxWaitMs: 50, MinBytes: 1, MaxBytes: 1 << 20,
					Partitions: []wire.FetchPartition{{Topic: "iso", Partition: p, CurrentLeaderEpoch: wire.NoEpoch, FetchOffset: next[p], LastFetchedEpoch: wire.NoEpoch, MaxBytes: 1 << 20}}}
				if err := conns[p].send(req); err != nil {
					t.Error(err)
					return
				}
				m, err := conns[p].receive()
				if err != nil {
					t.Error(err)
					return
				}
				fr := m.(*wire.FetchResponse)
				if fr.CorrelationID != corr || len(fr.Partitions) != 1 || fr.Partitions[0].Partition != p {
					t.Errorf("consumer %d: fetch %d of partition %d answered by %+v", g, corr, p, fr)
					return
				}
				pr := fr.Partitions[0]
				if pr.ErrorCode != wire.CodeNone {
					t.Errorf("consumer %d: fetch: %v", g, pr.ErrorCode)
					return
				}
				bs, err := log.DecodeBatches(pr.Records)
				if err != nil {
					t.Errorf("consumer %d: partition %d at %d: %v", g, p, next[p], err)
					return
				}
				for _, b := range bs {
					if b.BaseOffset != next[p] {
						t.Errorf("consumer %d: partition %d: batch at %d, want %d", g, p, b.BaseOffset, next[p])
						return
					}
					for _, r := range b.Records {
						seen[g][key{p, b.BaseOffset + uint64(r.OffsetDelta)}] = string(r.Value)
					}
					next[p] = b.BaseOffset + uint64(len(b.Records))
				}
			}
		}()
	}
	wg.Wait()
	cwg.Wait()
	if len(acked) != total {
		t.Fatalf("%d acknowledged, want %d (seed %d)", len(acked), total, seed)
	}
	for g := range consumers {
		for k, v := range acked {
			if got, ok := seen[g][k]; !ok || got != v {
				t.Fatalf("consumer %d: partition %d offset %d: read %.12q (present %v), acknowledged %.12q (seed %d)", g, k.p, k.off, got, ok, v, seed)
			}
		}
	}
}

// isoConn is one raw connection of a test goroutine (the client helper
// fails the test from its own goroutine only).
type isoConn struct {
	nc net.Conn
	br *bufio.Reader
}

func dialIso(addr string) (*isoConn, error) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &isoConn{nc: nc, br: bufio.NewReader(nc)}, nil
}

func (rc *isoConn) send(m wire.Message) error {
	bufs, _, err := wire.AppendFrameBuffers(nil, nil, m)
	if err != nil {
		return err
	}
	_, err = bufs.WriteTo(rc.nc)
	return err
}

func (rc *isoConn) receive() (wire.Message, error) {
	rc.nc.SetReadDeadline(time.Now().Add(clustertest.WaitLimit))
	payload, err := wire.ReadFrame(rc.br, nil, 0)
	if err != nil {
		return nil, err
	}
	return wire.DecodeResponse(payload)
}
