package kafka_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// stream is a kgo producer that keeps producing numbered records to one
// topic and remembers what each acknowledgement said.
type stream struct {
	t     *testing.T
	c     *cluster
	prod  *kgo.Client
	topic string

	mu     sync.Mutex
	sent   int
	acked  map[int64]string // offset -> value, partition 0
	values map[string]int64 // value -> offset
	failed []error
}

// ackedCount is how many records were acknowledged so far.
func (s *stream) ackedCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.acked)
}

// run produces until stop is closed; kgo's buffer (MaxBufferedRecords)
// makes Produce block, so the stream runs only as far ahead of its
// acknowledgements as that allows. No record is given a context that
// ends: every record sent must be answered.
func (s *stream) run(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		r := &kgo.Record{Topic: s.topic, Value: fmt.Appendf(nil, "record-%06d", i)}
		s.mu.Lock()
		s.sent++
		s.mu.Unlock()
		s.prod.Produce(context.Background(), r, func(r *kgo.Record, err error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			defer s.c.Events.Signal()
			if err != nil {
				s.failed = append(s.failed, fmt.Errorf("%s: %w", r.Value, err))
				return
			}
			v := string(r.Value)
			if prev, dup := s.acked[r.Offset]; dup {
				s.failed = append(s.failed, fmt.Errorf("offset %d acknowledged twice: %s and %s", r.Offset, prev, v))
			}
			if prev, dup := s.values[v]; dup {
				s.failed = append(s.failed, fmt.Errorf("%s acknowledged twice: at %d and %d", v, prev, r.Offset))
			}
			s.acked[r.Offset], s.values[v] = v, r.Offset
		})
	}
}

// TestAcknowledgedRecordsSurviveTheLeadersKillExactlyOnce: franz-go's
// idempotent acks=all producer streams through the Kafka listeners of a
// 3-broker cluster (RF 3, min ISR 2) while the partition's leader is
// killed hard — its power cut, so it loses every byte it had not fsynced
// — and then restarted. A direct (group-less) consumer then reads the
// partition up to its high watermark: every acknowledged record is there
// exactly once, at the offset its acknowledgement gave, and nothing else
// is (the producer's retries across the new leader are deduplicated, and
// every record it sent was acknowledged).
func TestAcknowledgedRecordsSurviveTheLeadersKillExactlyOnce(t *testing.T) {
	const topic, phase = "stream", 150 // acknowledgements awaited in each phase
	c := startCluster(t, 3)
	c.createTopic(topic, 1, 3, 2)
	s := &stream{t: t, c: c, topic: topic, acked: map[int64]string{}, values: map[string]int64{}}
	s.prod = kgoClient(t, c, kgo.RequiredAcks(kgo.AllISRAcks()), kgo.MaxBufferedRecords(100))
	stop, done := make(chan struct{}), make(chan struct{})
	go s.run(stop, done)
	stopped := false
	defer func() {
		if !stopped { // a failed wait: the client's Close (a cleanup) unblocks the stream
			close(stop)
		}
	}()

	awaitAcks := func(what string, n int) {
		t.Helper()
		c.await(fmt.Sprintf("%d acknowledgements %s (%d so far)", n, what, s.ackedCount()), func() bool { return s.ackedCount() >= n })
	}
	awaitAcks("before the kill", phase)
	old := c.partition(topic, 0)
	t.Logf("killing the leader, broker %d (epoch %d, ISR %v), after %d acknowledgements", old.Leader, old.LeaderEpoch, old.ISR, s.ackedCount())
	c.kill(old.Leader, vfs.LoseUnsynced)
	atKill := s.ackedCount()

	c.await(fmt.Sprintf("a leader other than broker %d", old.Leader), func() bool {
		ps := c.partition(topic, 0)
		return ps.Leader >= 0 && ps.Leader != old.Leader
	})
	now := c.partition(topic, 0)
	t.Logf("new leader broker %d (epoch %d, ISR %v)", now.Leader, now.LeaderEpoch, now.ISR)
	awaitAcks("from the new leader", atKill+phase)

	c.startBroker(old.Leader)
	c.await(fmt.Sprintf("broker %d back in the ISR", old.Leader), func() bool {
		return slices.Contains(c.partition(topic, 0).ISR, old.Leader)
	})
	t.Logf("broker %d is back in the ISR %v after %d acknowledgements", old.Leader, c.partition(topic, 0).ISR, s.ackedCount())
	awaitAcks("after the restart", s.ackedCount()+phase)

	// Stop sending, then wait for every record sent to be answered.
	close(stop)
	<-done
	stopped = true
	fctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	if err := s.prod.Flush(fctx); err != nil {
		t.Fatalf("waiting for the records in flight: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, err := range s.failed {
		t.Error(err)
	}
	if pid, _, err := s.prod.ProducerID(fctx); err != nil || pid < 0 {
		t.Fatalf("the producer is not idempotent: producer id %d, %v", pid, err)
	}
	if len(s.acked) != s.sent {
		t.Fatalf("%d records sent, %d acknowledged", s.sent, len(s.acked))
	}

	hw := highWatermark(t, s.prod, topic, 0)
	if hw != int64(len(s.acked)) {
		t.Errorf("high watermark %d after %d acknowledged records", hw, len(s.acked))
	}
	got := consumeAll(t, c, topic, 1, int(hw))
	for o := range hw {
		k := key{0, o}
		if want, ok := s.acked[o]; !ok {
			t.Errorf("at %d: %q, which no acknowledgement named", o, got[k])
		} else if len(got[k]) != 1 || got[k][0] != want {
			t.Errorf("at %d: acknowledged %q, read %q", o, want, got[k])
		}
	}
	if len(got) != int(hw) {
		t.Errorf("read %d offsets below the high watermark %d", len(got), hw)
	}
	t.Logf("%d records acknowledged and read back once each", len(s.acked))
}

// highWatermark asks the partition's leader for its latest offset (the
// high watermark) with a ListOffsets request.
func highWatermark(t *testing.T, cl *kgo.Client, topic string, partition int32) int64 {
	t.Helper()
	req := kmsg.NewPtrListOffsetsRequest()
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp = partition, -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("list offsets: %v", err)
	}
	p := resp.Topics[0].Partitions[0]
	if p.ErrorCode != 0 {
		t.Fatalf("list offsets: error code %d", p.ErrorCode)
	}
	return p.Offset
}
