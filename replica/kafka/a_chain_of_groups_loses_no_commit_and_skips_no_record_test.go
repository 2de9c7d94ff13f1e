package kafka_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/kafka/kafkatest"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// chainWait bounds each wait of the chain test; a wait that runs out says
// what it waited for.
const chainWait = 60 * time.Second

// chainStage is one group of a chain: its members consume from, write each
// record's value to to (acks=all, idempotent), and only then commit what
// they read. It records what the rules below need.
type chainStage struct {
	group, from, to string

	mu sync.Mutex
	// acked is, by partition of from, the highest commit kgo saw
	// acknowledged: the coordinator's word that it is durable.
	acked                                         map[int32]int64
	seen                                          map[int32]map[int64]bool // every offset read, by partition
	reads, rereads, commits, failedCommits, lives int
	broken                                        []string // the rules broken, in order
}

func newChainStage(groupID, from, to string) *chainStage {
	return &chainStage{group: groupID, from: from, to: to, acked: map[int32]int64{}, seen: map[int32]map[int64]bool{}}
}

// committed is how many records of from the stage's acknowledged commits
// cover (from's offsets start at 0 and have no gaps).
func (s *chainStage) committed() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, o := range s.acked {
		n += o
	}
	return n
}

// read checks records just polled: none may lie below an acknowledged
// commit of its partition (it would be read twice after its offset was
// committed). Records at or past it may be read again: they followed the
// last acknowledged commit when a member stopped.
func (s *chainStage) read(recs []*kgo.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range recs {
		if c, ok := s.acked[r.Partition]; ok && r.Offset < c {
			s.broken = append(s.broken, fmt.Sprintf("%s read %s-%d at offset %d after its commit of %d was acknowledged", s.group, r.Topic, r.Partition, r.Offset, c))
		}
		m := s.seen[r.Partition]
		if m == nil {
			m = map[int64]bool{}
			s.seen[r.Partition] = m
		}
		if m[r.Offset] {
			s.rereads++
		}
		m[r.Offset] = true
		s.reads++
	}
}

func (s *chainStage) ack(recs []*kgo.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range recs {
		s.acked[r.Partition] = max(s.acked[r.Partition], r.Offset+1)
	}
	s.commits++
}

func (s *chainStage) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%s (%s->%s): %d members, %d reads (%d again), %d commits acknowledged (%d failed), acknowledged %v",
		s.group, s.from, s.to, s.lives, s.reads, s.rereads, s.commits, s.failedCommits, s.acked)
}

// run runs members one after another until ctx ends: member i stops
// after quotas[i] records, closing without committing its last batch
// (which the next member reads again); the last runs until ctx ends.
func (s *chainStage) run(ctx context.Context, t *testing.T, seeds []string, quotas []int, progress func()) {
	for i := 0; ctx.Err() == nil; i++ {
		quota := -1
		if i < len(quotas) {
			quota = quotas[i]
		}
		s.member(ctx, t, seeds, quota, progress)
	}
}

// member is one member's life: poll, forward, commit, until it read quota
// records (-1: until ctx ends) or a forward failed.
func (s *chainStage) member(ctx context.Context, t *testing.T, seeds []string, quota int, progress func()) {
	s.mu.Lock()
	s.lives++
	s.mu.Unlock()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...),
		kgo.ConsumerGroup(s.group), kgo.ConsumeTopics(s.from), kgo.DisableAutoCommit(), kgo.BlockRebalanceOnPoll(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DefaultProduceTopic(s.to), kgo.RequiredAcks(kgo.AllISRAcks()), // idempotent: kgo's default
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()),
		kgo.RetryTimeout(30*time.Second),
		kgo.WithLogger(kgo.BasicLogger(testWriter{t}, kgo.LogLevelWarn, nil)))
	if err != nil {
		s.mu.Lock()
		s.broken = append(s.broken, fmt.Sprintf("%s: new client: %v", s.group, err))
		s.mu.Unlock()
		return
	}
	defer cl.Close() // leaves the group; commits nothing
	read := 0
	for ctx.Err() == nil {
		stop := s.step(ctx, t, cl, &read, quota, progress)
		// The group may move on (revoke, rejoin, fetch the committed
		// offsets) only once the batch is forwarded and its commit
		// answered: kgo's BlockRebalanceOnPoll. Without it, a member
		// whose session ended while its commit was in flight fetched its
		// offsets before that commit was answered, and read the batch
		// again after kgo reported the commit acknowledged.
		cl.AllowRebalance()
		if stop {
			return
		}
	}
}

// step polls one batch, forwards it and commits it; it reports whether
// the member stops (its quota read, or a forward failed).
func (s *chainStage) step(ctx context.Context, t *testing.T, cl *kgo.Client, read *int, quota int, progress func()) (stop bool) {
	fs := cl.PollRecords(ctx, 20)
	var recs []*kgo.Record
	fs.EachRecord(func(r *kgo.Record) { recs = append(recs, r) })
	fs.EachError(func(topic string, p int32, err error) {
		if ctx.Err() == nil {
			t.Logf("%s: fetch %s-%d: %v", s.group, topic, p, err)
		}
	})
	if len(recs) == 0 {
		return false
	}
	s.read(recs)
	out := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		out[i] = &kgo.Record{Value: slices.Clone(r.Value)}
	}
	if err := cl.ProduceSync(ctx, out...).FirstErr(); err != nil {
		// Not forwarded: this member must not read past them, so it
		// stops and the next one reads them again from the commit.
		if ctx.Err() == nil {
			t.Logf("%s: forwarding to %s failed, the member stops: %v", s.group, s.to, err)
		}
		return true
	}
	*read += len(recs)
	if quota >= 0 && *read >= quota {
		return true // forwarded but not committed: read again by the next member
	}
	if err := cl.CommitRecords(ctx, recs...); err != nil {
		if ctx.Err() == nil {
			s.mu.Lock()
			s.failedCommits++
			s.mu.Unlock()
			t.Logf("%s: commit failed (the next one covers these records): %v", s.group, err)
		}
		return false
	}
	s.ack(recs)
	progress()
	return false
}

// TestAChainOfGroupsLosesNoCommitAndSkipsNoRecordThroughCrashes: three kgo
// groups in a chain (A reads t0 and writes t1, B t1 to t2, C t2 to t3,
// each forwarding with acks=all and idempotence before it commits) run
// while the source is written in chunks. Between chunks, the leader of
// the __consumer_offsets partition holding group A's coordinator loses its
// power and comes back, then the leader of a data partition does; and
// each group's member is replaced a few times without committing its last
// batch. Then:
//   - no record is skipped: every source record reaches t3;
//   - no member reads a record below an acknowledged commit of its
//     partition (records after the last commit are read again, never
//     those before it);
//   - no committed offset is lost: OffsetFetch answers, for each group and
//     partition, at least the highest commit kgo saw acknowledged.
func TestAChainOfGroupsLosesNoCommitAndSkipsNoRecordThroughCrashes(t *testing.T) {
	rng := newRand(t)
	const chunks, perChunk, partitions = 5, 120, 3
	const total = chunks * perChunk
	c, err := kafkatest.NewCluster(kafkatest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	topics := []string{"t0", "t1", "t2", "t3"}
	for _, tp := range topics {
		if err := c.CreateTopic(tp, partitions); err != nil {
			t.Fatal(err)
		}
	}
	seeds := c.ListenAddrs()
	stages := []*chainStage{newChainStage("chain-A", "t0", "t1"), newChainStage("chain-B", "t1", "t2"), newChainStage("chain-C", "t2", "t3")}

	progressed := make(chan struct{}, 1)
	progress := func() {
		select {
		case progressed <- struct{}{}:
		default:
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, s := range stages {
		quotas := []int{perChunk/2 + rng.IntN(perChunk), perChunk + rng.IntN(2*perChunk)}
		t.Logf("%s: members stop after %v records", s.group, quotas)
		wg.Go(func() { s.run(ctx, t, seeds, quotas, progress) })
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			wg.Wait()
		}
	}
	defer stop()
	state := func() string {
		var out []string
		for _, s := range stages {
			out = append(out, s.String())
		}
		return strings.Join(out, "; ")
	}
	// awaitStage waits, looking again after each acknowledged commit of
	// any stage, until s's commits cover n records.
	awaitStage := func(s *chainStage, n int64) {
		t.Helper()
		limit := time.NewTimer(chainWait)
		defer limit.Stop()
		for s.committed() < n {
			select {
			case <-progressed:
			case <-limit.C:
				t.Fatalf("still waiting, after %v, for %s's commits to cover %d records: %s", chainWait, s.group, n, state())
			}
		}
	}
	awaitAllInSync := func() {
		t.Helper()
		for _, tp := range topics {
			for p := range int32(partitions) {
				awaitInSync(t, c, tp, p)
			}
		}
		awaitInSync(t, c, replica.OffsetsTopic, group.PartitionFor(stages[0].group, replica.DefaultOffsetsTopicPartitions))
	}

	prod, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic("t0"),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()), kgo.RetryTimeout(30*time.Second),
		kgo.WithLogger(kgo.BasicLogger(testWriter{t}, kgo.LogLevelWarn, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	source := map[string]bool{}
	produceChunk := func(k int) {
		t.Helper()
		pctx, pcancel := context.WithTimeout(context.Background(), chainWait)
		defer pcancel()
		var recs []*kgo.Record
		for i := range perChunk {
			v := fmt.Sprintf("src-%d-%d", k, i)
			source[v] = true
			recs = append(recs, &kgo.Record{Value: []byte(v)})
		}
		if err := prod.ProduceSync(pctx, recs...).FirstErr(); err != nil {
			t.Fatalf("still waiting, after %v, for chunk %d of the source to be acknowledged: %v", chainWait, k, err)
		}
	}

	produceChunk(0)
	awaitStage(stages[0], perChunk/2)
	coordPart := group.PartitionFor(stages[0].group, replica.DefaultOffsetsTopicPartitions)
	coord := c.Leader(replica.OffsetsTopic, coordPart)
	t.Logf("crashing broker %d, leader of %s-%d (group %s's coordinator): %s", coord, replica.OffsetsTopic, coordPart, stages[0].group, state())
	if err := c.Crash(coord); err != nil {
		t.Fatal(err)
	}
	produceChunk(1)
	if _, err := c.AwaitLeader(replica.OffsetsTopic, coordPart, coord); err != nil {
		t.Fatal(err)
	}
	awaitStage(stages[0], perChunk+perChunk/2) // commits acknowledged by the new coordinator
	if err := c.Restart(coord); err != nil {
		t.Fatal(err)
	}
	awaitAllInSync()
	produceChunk(2)

	dataTopic, dataPart := topics[rng.IntN(len(topics))], int32(rng.IntN(partitions))
	awaitStage(stages[2], perChunk)
	leader := c.Leader(dataTopic, dataPart)
	t.Logf("crashing broker %d, leader of %s-%d: %s", leader, dataTopic, dataPart, state())
	if err := c.Crash(leader); err != nil {
		t.Fatal(err)
	}
	produceChunk(3)
	if _, err := c.AwaitLeader(dataTopic, dataPart, leader); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(leader); err != nil {
		t.Fatal(err)
	}
	produceChunk(4)

	// The end of the chain: every source record reaches t3 (some more
	// than once: those read again after a member stopped).
	end, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics("t3"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.WithLogger(kgo.BasicLogger(testWriter{t}, kgo.LogLevelWarn, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer end.Close()
	ectx, ecancel := context.WithTimeout(context.Background(), chainWait)
	defer ecancel()
	arrived, copies := map[string]bool{}, 0
	for len(arrived) < total {
		fs := end.PollFetches(ectx)
		if ectx.Err() != nil {
			var missing []string
			for v := range source {
				if !arrived[v] {
					missing = append(missing, v)
				}
			}
			slices.Sort(missing)
			t.Fatalf("still waiting, after %v, for every source record at the end of the chain: %d of %d arrived; missing %v; %s",
				chainWait, len(arrived), total, missing[:min(len(missing), 10)], state())
		}
		fs.EachRecord(func(r *kgo.Record) {
			v := string(r.Value)
			if !source[v] {
				t.Errorf("t3-%d at %d holds %q, never written to the source", r.Partition, r.Offset, v)
			}
			arrived[v] = true
			copies++
		})
	}
	stop()

	actx, acancel := context.WithTimeout(context.Background(), chainWait)
	defer acancel()
	adm := kadm.NewClient(end)
	for _, s := range stages {
		s.mu.Lock()
		broken := slices.Clone(s.broken)
		s.mu.Unlock()
		for _, b := range broken[:min(len(broken), 10)] {
			t.Error(b)
		}
		if len(broken) > 10 {
			t.Errorf("%s: and %d more", s.group, len(broken)-10)
		}
		fetched, err := adm.FetchOffsets(actx, s.group)
		if err == nil {
			err = fetched.Error()
		}
		if err != nil {
			t.Fatalf("OffsetFetch of %s: %v", s.group, err)
		}
		s.mu.Lock()
		for p, acked := range s.acked {
			o, ok := fetched.Lookup(s.from, p)
			if !ok || o.At < acked {
				t.Errorf("%s: OffsetFetch answers %s-%d at %d (found %t), below its acknowledged commit %d", s.group, s.from, p, o.At, ok, acked)
			}
		}
		s.mu.Unlock()
	}
	t.Logf("%d source records, %d records at the end of the chain: %s", total, copies, state())
}

// awaitInSync waits until every replica of a partition is in its ISR.
func awaitInSync(t *testing.T, c *kafkatest.Cluster, topic string, p int32) {
	t.Helper()
	if _, err := c.AwaitPartition(topic, p, "every replica back in the ISR", func(ps controller.PartitionState) bool {
		return len(ps.ISR) == len(ps.Replicas)
	}); err != nil {
		t.Fatal(err)
	}
}
