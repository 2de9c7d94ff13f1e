package faulttest

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/wire"
)

var (
	powerRounds       = flag.Int("powerloss.rounds", 1, "power-loss rounds per durability mode: independent cuts, then an all-broker cut and an ISR-pair cut")
	powerSegmentBytes = flag.Int64("powerloss.segment-bytes", 0, "the brokers' -segment-bytes in the power-loss test (0: the broker's default); small segments make the logs roll, close and reopen files")
	powerCuts         = flag.Int("powerloss.cuts", 6, "independent power cuts (one broker at a time) per power-loss round")
)

// leaderlessWait is how long the power-loss test watches a cluster whose
// brokers all lost power for a partition to get a leader by itself before
// it acts as the operator (an unclean ElectLeaders).
const leaderlessWait = 5 * time.Second

// durabilityMode is one way of running the brokers.
type durabilityMode struct {
	name string
	args []string // broker flags besides -simulate-power-loss
	// correlatedLossAllowed: acknowledged records may be lost when every
	// replica loses power at once. Independent cuts never may.
	correlatedLossAllowed bool
}

var durabilityModes = []durabilityMode{
	{name: "default", correlatedLossAllowed: true},
	{name: "sync-every-append", args: []string{"-sync-every-append"}},
}

// TestPowerLoss runs the brokers with -simulate-power-loss, so every
// SIGKILL of a broker is a power cut of its machine (it loses what it did
// not fsync), in both durability modes. Each round cuts one broker at a
// time (-powerloss.cuts, each healed to a full ISR before the next), then
// all three at once, then the two of every partition's ISR while the
// third is paused out of it; after each correlated cut it acts as the
// operator (an unclean ElectLeaders for every partition left leaderless)
// and counts what was lost. The package documentation and the README's
// "Durability" section tell what it asserts and what it showed.
func TestPowerLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("the process power-loss test runs without -short")
	}
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("nemesis seed %d (replay its choices with -fault.seed %d)", seed, seed)
	for _, m := range durabilityModes {
		t.Run(m.name, func(t *testing.T) { powerLoss(t, m, seed) })
	}
}

// powerLoss is one mode's run.
func powerLoss(t *testing.T, mode durabilityMode, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	args := append([]string{"-simulate-power-loss"}, mode.args...)
	if *powerSegmentBytes > 0 {
		args = append(args, "-segment-bytes", fmt.Sprint(*powerSegmentBytes))
	}
	c := startCluster(t, args...)
	cl, err := client.New(client.Config{Controller: c.ctl.addr, Clock: wallclock.New(), RequestTimeoutMs: 3000,
		RetryBackoffMs: 50, RetryBackoffMaxMs: 500})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err = cl.CreateTopic(ctx, client.TopicConfig{Name: topic, Partitions: partitions, ReplicationFactor: 3, MinISR: 2})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, startLimit, "every partition led with a full ISR", func() bool { return isrFull(c) })
	prod, err := cl.NewProducer(client.ProducerConfig{Acks: client.AcksAll, AckTimeoutMs: 2000, DeliveryTimeoutMs: 15000, LingerMs: 2})
	if err != nil {
		t.Fatal(err)
	}
	co, err := cl.NewConsumer(client.ConsumerConfig{MaxWaitMs: 300})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	prodCtx, stopProducing := context.WithCancel(context.Background())
	consCtx, stopConsuming := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var handed atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		produce(prodCtx, prod, rec, &handed)
	}()
	for p := range int32(partitions) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			consume(consCtx, co, p, rec)
		}()
	}
	defer func() { // a failed run stops its goroutines too
		stopProducing()
		stopConsuming()
		wg.Wait()
	}()

	start := time.Now()
	var cutsLeader, cutsFollower, allCuts, pairCuts, leaderless, uncleanElections int
	var lostIndependent, lostAll, lostPair int
	// lostSoFar reads every partition from its leader and returns how
	// many records acknowledged so far are not where they were
	// acknowledged. A record once lost stays lost, so the growth between
	// two calls is what the faults in between lost.
	lostSoFar := func() int {
		rec.mu.Lock()
		acked := slices.Clone(rec.acked)
		rec.mu.Unlock()
		final := map[int32]map[uint64]string{}
		for p := range int32(partitions) {
			final[p] = readAll(t, c, co, p)
		}
		res := Check(History{Acked: acked, Final: final})
		return res.Lost + res.Misplaced
	}
	lost := 0
	for round := range *powerRounds {
		// Independent cuts: one broker at a time, each healed before the
		// next, so the ISR holds two live replicas at every cut.
		for i := range *powerCuts {
			part := int32(rng.IntN(partitions))
			ps := c.partitions(topic)
			if int(part) >= len(ps) || ps[part].Leader < 1 {
				t.Fatalf("round %d cut %d: partition %d has no leader before the cut", round, i, part)
			}
			p := ps[part]
			target, kind := c.broker(p.Leader), "leader"
			if i%2 == 1 {
				fs := slices.DeleteFunc(slices.Clone(p.Replicas), func(r int32) bool { return r == p.Leader })
				target, kind = c.broker(fs[rng.IntN(len(fs))]), "follower"
				cutsFollower++
			} else {
				cutsLeader++
			}
			downMs := 100 + rng.IntN(400)
			target.kill(t)
			time.Sleep(time.Duration(downMs) * time.Millisecond) // the outage's length
			target.start(t)
			t.Logf("%6.1fs round %d cut %d: power cut of %s (the %s of partition %d), down %d ms", time.Since(start).Seconds(), round, i+1, target.name, kind, part, downMs)
			eventually(t, 60*time.Second, fmt.Sprintf("every ISR full after the power cut of %s", target.name), func() bool { return isrFull(c) })
		}
		n := lostSoFar()
		if n > lost {
			t.Errorf("round %d: independent power cuts lost %d acknowledged records", round, n-lost)
		}
		lostIndependent += n - lost
		lost = n

		// Correlated cut 1: all three brokers at once, every ISR full.
		if !isrFull(c) {
			t.Fatalf("round %d: the ISR is not full before the correlated cut", round)
		}
		cut(t, c.brokers, time.Duration(100+rng.IntN(400))*time.Millisecond)
		allCuts++
		t.Logf("%6.1fs round %d: power cut of all three brokers at once, restarted", time.Since(start).Seconds(), round)
		l, e := operator(t, c, round, "all three brokers lost power", nil)
		leaderless, uncleanElections = leaderless+l, uncleanElections+e
		eventually(t, 90*time.Second, fmt.Sprintf("round %d: every ISR full after the power cut of all brokers and the unclean elections", round), func() bool { return isrFull(c) })
		n = lostSoFar()
		lostAll += n - lost
		lost = n

		// Correlated cut 2: the third replica out of the ISR (paused past
		// its session), the leader and the follower that got the records
		// since lose power at once.
		third := c.brokers[rng.IntN(len(c.brokers))]
		third.pause()
		eventually(t, 30*time.Second, fmt.Sprintf("round %d: %s fenced and out of every ISR while paused", round, third.name), func() bool {
			md, err := c.metadata(topic)
			if err != nil || len(md.Topics) != 1 {
				return false
			}
			fenced := false
			for _, b := range md.Brokers {
				fenced = fenced || (int(b.ID) == third.id && b.Fenced)
			}
			for _, p := range md.Topics[0].Partitions {
				// The ISR may be the leader alone (a lagging follower): with
				// min ISR 2 nothing was acknowledged since it shrank.
				if p.Leader < 1 || slices.Contains(p.ISR, int32(third.id)) {
					return false
				}
			}
			return fenced
		})
		time.Sleep(300 * time.Millisecond) // records acknowledged by two replicas only
		var pair []*node
		for _, b := range c.brokers {
			if b != third {
				pair = append(pair, b)
			}
		}
		cut(t, pair, time.Duration(100+rng.IntN(400))*time.Millisecond)
		pairCuts++
		t.Logf("%6.1fs round %d: power cut of %s and %s at once (every partition's ISR), %s paused out of the ISR, restarted", time.Since(start).Seconds(), round, pair[0].name, pair[1].name, third.name)
		l, e = operator(t, c, round, "its ISR lost power", third)
		leaderless, uncleanElections = leaderless+l, uncleanElections+e
		third.resume()
		eventually(t, 90*time.Second, fmt.Sprintf("round %d: every ISR full after the power cut of the ISR and the unclean elections", round), func() bool { return isrFull(c) })
		n = lostSoFar()
		lostPair += n - lost
		lost = n
	}

	// The end: stop producing, wait for every outcome, read the final
	// logs, check everything acknowledged in the whole run.
	stopProducing()
	final := flushAndRead(t, c, prod, co, partitions)
	stopConsuming()
	wg.Wait()
	rec.mu.Lock()
	h := History{Acked: slices.Clone(rec.acked), Final: final, Seen: slices.Clone(rec.seen)}
	failed, errs := rec.failed, rec.lastErr
	rec.mu.Unlock()
	for k, n := range errs {
		t.Logf("error seen %d times: %s", n, k)
	}
	res := Check(h)
	_, divergent := stopAndCompare(t, c, partitions)
	for _, d := range divergent {
		t.Error("replica divergence: " + d)
	}
	t.Logf("records handed to the producer %d, acknowledged %d, failed %d; consumer observations %d", handed.Load(), len(h.Acked), failed, len(h.Seen))
	for _, p := range res.Problems {
		t.Log(p)
	}
	summary := fmt.Sprintf("faulttest power-loss summary: mode %s; seed %d; independent cuts %d (leader %d, follower %d) lost %d; all-broker cuts %d lost %d; ISR-pair cuts %d lost %d; partitions left leaderless %d, unclean elections %d; acknowledged %d; lost %d; misplaced %d; duplicated %d; truncated-but-seen %d; replica divergences %d",
		mode.name, seed, cutsLeader+cutsFollower, cutsLeader, cutsFollower, lostIndependent, allCuts, lostAll, pairCuts, lostPair, leaderless, uncleanElections,
		res.Acked, res.Lost, res.Misplaced, res.Duplicated, res.TruncatedSeen, len(divergent))
	t.Log(summary)
	fmt.Println(summary)
	if res.Acked == 0 {
		t.Fatal("nothing was acknowledged: the run checked nothing")
	}
	if !mode.correlatedLossAllowed {
		if !res.OK() {
			t.Errorf("%s: lost %d, misplaced %d, duplicated %d, truncated-but-seen %d: fsync before the acknowledgement must survive any power cut", mode.name, res.Lost, res.Misplaced, res.Duplicated, res.TruncatedSeen)
		}
		return
	}
	// Default mode: the correlated cut may take acknowledged records (and
	// with them what consumers saw), but must: with no fsync, all three
	// replicas losing power at once is a loss. None lost means the
	// simulation did not cut.
	if res.Lost == 0 && allCuts > 0 {
		t.Errorf("%s: a power cut of every replica lost nothing: is -simulate-power-loss working?", mode.name)
	}
	if res.Duplicated > 0 {
		t.Errorf("%s: %d duplicates with an idempotent producer", mode.name, res.Duplicated)
	}
}

// cut is a power cut of several brokers at once: all SIGKILLed before any
// is waited for, down for d, restarted.
func cut(t *testing.T, brokers []*node, d time.Duration) {
	t.Helper()
	for _, b := range brokers {
		b.signal(syscall.SIGKILL)
	}
	for _, b := range brokers {
		b.kill(t) // waits for it to be gone
	}
	time.Sleep(d) // the outage's length
	for _, b := range brokers {
		b.start(t)
	}
}

// operator watches the cluster after a correlated power cut: every
// partition must stay leaderless for leaderlessWait (every replica that
// could lead registered as an unclean shutdown, KIP-966), and then it
// elects each one uncleanly, as an operator would. The elected leader
// must not be notLeader (a broker outside the ISR at the cut: it is
// fenced). It returns how many partitions were leaderless and how many
// elections said DataMayBeLost.
func operator(t *testing.T, c *cluster, round int, what string, notLeader *node) (leaderless, unclean int) {
	t.Helper()
	var states []wire.MetadataPartition
	led := poll(leaderlessWait, func() bool {
		states = c.partitions(topic)
		if len(states) != partitions {
			return false
		}
		for _, p := range states {
			if p.Leader >= 1 {
				return true
			}
		}
		return false
	})
	if led || len(states) != partitions {
		t.Errorf("round %d, after %s: a partition got a leader by itself; the README says none does: %+v", round, what, states)
	}
	for _, p := range states {
		if p.Leader >= 1 {
			continue
		}
		leaderless++
		t.Logf("round %d, after %s: partition %d leaderless for %v, ISR %v, ELR %v; electing uncleanly", round, what, p.Partition, leaderlessWait, p.ISR, p.ELR)
		// As an operator would: the elect command.
		out, err := exec.Command(c.elect, "-controller", c.ctl.addr, "-topic", topic, "-partition", fmt.Sprint(p.Partition), "-unclean").CombinedOutput()
		if err != nil {
			t.Fatalf("elect partition %d: %v\n%s", p.Partition, err, out)
		}
		var r struct {
			Leader, LeaderEpoch int32
			DataMayBeLost       bool
		}
		if _, err := fmt.Sscanf(string(out), topic+"-%d: leader %d, leader epoch %d", new(int32), &r.Leader, &r.LeaderEpoch); err != nil || r.Leader < 1 {
			t.Fatalf("elect partition %d: %q (%v)", p.Partition, out, err)
		}
		r.DataMayBeLost = strings.Contains(string(out), "elected uncleanly")
		if notLeader != nil && int(r.Leader) == notLeader.id {
			t.Errorf("round %d: partition %d elected %s, which was out of the ISR and fenced", round, p.Partition, notLeader.name)
		}
		if r.DataMayBeLost {
			unclean++
		}
		t.Logf("round %d: partition %d: broker %d elected uncleanly at leader epoch %d (DataMayBeLost %v)", round, p.Partition, r.Leader, r.LeaderEpoch, r.DataMayBeLost)
	}
	return leaderless, unclean
}
