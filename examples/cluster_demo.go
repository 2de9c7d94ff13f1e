package examples

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/wire"
)

// The cluster demo: three brokers and the controller, in English. Where the
// chapter's demo draws the controller, this one runs it.

// ClusterDemoConfig is what the cluster demo's flags set.
type ClusterDemoConfig struct {
	// NowMs is the clock when the cluster starts (--now-ms), 0 or more.
	NowMs int64
	// MinISR is the topic's min.insync.replicas (--min-isr), 1 to 3.
	MinISR int
	// LagMaxMs is replica.lag.time.max.ms (--lag-ms), 1000 to 600000.
	LagMaxMs int64
	// SessionTimeoutMs is the controller's broker session timeout
	// (--session-ms), 1000 to 600000, and more than the 2000 ms heartbeat
	// interval.
	SessionTimeoutMs int64

	// earlyRound, when set, runs a fetch round between the acks=all produce
	// and the check that it is parked, so the check cannot see what it
	// claims. Only the demo's own test sets it.
	earlyRound bool
}

// DefaultClusterDemoConfig is the run the golden file holds: Kafka's
// defaults (lag 30 s, session 9 s), min.insync.replicas 2.
func DefaultClusterDemoConfig() ClusterDemoConfig {
	return ClusterDemoConfig{NowMs: 1700000000000, MinISR: 2, LagMaxMs: 30_000, SessionTimeoutMs: 9_000}
}

// Validate reports flag values the demo cannot run with, wrapping
// ErrInvalidConfig.
func (c ClusterDemoConfig) Validate() error {
	switch {
	case c.NowMs < 0 || c.NowMs > math.MaxInt64/2:
		return fmt.Errorf("%w: now-ms %d: want 0 to %d", ErrInvalidConfig, c.NowMs, int64(math.MaxInt64/2))
	case c.MinISR < 1 || c.MinISR > clusterBrokers:
		return fmt.Errorf("%w: min-isr %d: want 1 to %d (the cluster has %d brokers)", ErrInvalidConfig, c.MinISR, clusterBrokers, clusterBrokers)
	case c.LagMaxMs < 1000 || c.LagMaxMs > 600_000:
		return fmt.Errorf("%w: lag-ms %d: want 1000 to 600000", ErrInvalidConfig, c.LagMaxMs)
	case c.SessionTimeoutMs <= replica.DefaultHeartbeatIntervalMs || c.SessionTimeoutMs > 600_000:
		return fmt.Errorf("%w: session-ms %d: want %d to 600000 (more than the heartbeat interval)", ErrInvalidConfig, c.SessionTimeoutMs, replica.DefaultHeartbeatIntervalMs+1)
	}
	return nil
}

// clusterBrokers is how many brokers the cluster demo runs.
const clusterBrokers = 3

// ClusterDemo runs the cluster demo's sections, each on a fresh in-memory
// cluster of three brokers and the controller.
type ClusterDemo struct{ cfg ClusterDemoConfig }

// NewClusterDemo validates cfg.
func NewClusterDemo(cfg ClusterDemoConfig) (*ClusterDemo, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &ClusterDemo{cfg: cfg}, nil
}

// ClusterSections lists the cluster demo's sections in order.
var ClusterSections = []struct {
	// Name is the section's name, for its Example and error texts.
	Name string
	// Run checks the section's claims and prints it to w.
	Run func(d *ClusterDemo, w io.Writer) error
}{
	{"Election", (*ClusterDemo).Election},
	{"AcksAllWaits", (*ClusterDemo).AcksAllWaits},
	{"ISROnTheTimer", (*ClusterDemo).ISROnTheTimer},
	{"LeaderCrash", (*ClusterDemo).LeaderCrash},
	{"FastLeaderChange", (*ClusterDemo).FastLeaderChange},
}

// RunClusterDemo prints every section, separated by blank lines, and stops
// at the first one whose claim the run did not bear out.
func RunClusterDemo(w io.Writer, cfg ClusterDemoConfig) error {
	d, err := NewClusterDemo(cfg)
	if err != nil {
		return err
	}
	for i, s := range ClusterSections {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := s.Run(d, w); err != nil {
			return fmt.Errorf("section %s: %w", s.Name, err)
		}
	}
	return nil
}

// payments is the partition every section replicates.
var payments = replica.TopicPartition{Topic: "payments", Partition: 0}

// scene is one section's cluster and how it prints times.
type scene struct {
	*replica.Cluster
	start int64
}

// open starts a fresh cluster of brokers 1, 2, 3 with payments-0 on all
// three, broker 1 preferred.
func (d *ClusterDemo) open() (*scene, error) {
	c, err := replica.OpenCluster(replica.ClusterConfig{
		Dir: "/cluster-demo", Brokers: []int32{1, 2, 3}, StartMs: d.cfg.NowMs, InMemory: true,
		Controller: controller.Config{SessionTimeoutMs: d.cfg.SessionTimeoutMs},
		Broker:     replica.BrokerConfig{Replica: replica.Options{LagMaxMs: d.cfg.LagMaxMs}},
	})
	if err != nil {
		return nil, err
	}
	if err := c.CreateTopic(payments.Topic, 1, clusterBrokers, int32(d.cfg.MinISR), [][]int32{{1, 2, 3}}); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return &scene{Cluster: c, start: d.cfg.NowMs}, nil
}

// at prints the scene's time as seconds since it began: "t=45.0s".
func (s *scene) at() string {
	ms := s.NowMs() - s.start
	return fmt.Sprintf("t=%d.%ds", ms/1000, ms%1000/100)
}

// state is the controller's committed state of payments-0.
func (s *scene) state() controller.PartitionState {
	p, _ := s.Controller().Image().Partition(payments.Topic, payments.Partition)
	return p
}

func (s *scene) describe() string {
	p := s.state()
	return fmt.Sprintf("leader %d, leader epoch %d, partition epoch %d, ISR %v", p.Leader, p.LeaderEpoch, p.PartitionEpoch, sorted(p.ISR))
}

func sorted(v []int32) []int32 { return slices.Sorted(slices.Values(v)) }

// holds returns the record values broker id's replica holds.
func (s *scene) holds(id int32) ([]string, error) {
	r, ok := s.Replica(id, payments)
	if !ok {
		return nil, fmt.Errorf("broker %d hosts no %v", id, payments)
	}
	return values(r.Log())
}

func (s *scene) produce(acks int16, v string) error {
	_, err := s.Produce(payments, acks, 60_000, []byte(v))
	return err
}

func (s *scene) leaderReplica() *replica.Replica {
	r, _ := s.Replica(s.LeaderOf(payments), payments)
	return r
}

// awaitLeader waits until someone other than not leads and knows it.
func (s *scene) awaitLeader(not int32) error {
	return s.Await(func() bool {
		l := s.LeaderOf(payments)
		r, ok := s.Replica(l, payments)
		return l >= 0 && l != not && ok && r.Role() == replica.RoleLeader
	}, 600_000)
}

// Election starts three brokers and the controller: each broker registers
// and gets its broker epoch (the offset of its registration in the metadata
// log), heartbeats, and is unfenced once it has caught up with the metadata.
// A topic is created; the controller assigns the replicas, elects the
// preferred one at leader epoch 0 with every live replica in the ISR, and
// every broker takes its role from the metadata log it fetches.
func (d *ClusterDemo) Election(w io.Writer) error {
	s, err := d.open()
	if err != nil {
		return err
	}
	defer s.Close()
	var p printer
	p.line("== Three brokers register, and the controller elects a leader ==")
	for _, b := range s.Controller().Image().Brokers() {
		if err := claim(!b.Fenced, "broker %d should be unfenced once caught up", b.ID); err != nil {
			return err
		}
		p.line("broker %d registered with broker epoch %d, unfenced", b.ID, b.Epoch)
	}
	st := s.state()
	if err := claim(st.Leader == 1 && st.LeaderEpoch == 0 && len(st.ISR) == clusterBrokers,
		"the preferred replica should lead at epoch 0 with a full ISR: %s", s.describe()); err != nil {
		return err
	}
	p.line("topic %s created: replicas %v, min.insync.replicas %d", payments.Topic, st.Replicas, d.cfg.MinISR)
	p.line("controller: %s", s.describe())
	for _, id := range s.BrokerIDs() {
		r, _ := s.Replica(id, payments)
		want := replica.RoleFollower
		if id == st.Leader {
			want = replica.RoleLeader
		}
		if err := claim(r.Role() == want && r.LeaderEpoch() == st.LeaderEpoch,
			"broker %d should be a %v at epoch %d, is a %v at %d", id, want, st.LeaderEpoch, r.Role(), r.LeaderEpoch()); err != nil {
			return err
		}
		p.line("  broker %d: %v at leader epoch %d, as the metadata log says", id, r.Role(), r.LeaderEpoch())
	}
	p.line("nothing above was decided by a broker: the controller wrote it, the brokers read it")
	return p.flush(w)
}

// AcksAllWaits produces with acks=all and shows the answer wait: the record
// is on the leader at once, the followers copy it in one fetch round, and
// only the next round — which tells the leader they hold it — moves the
// high watermark past it and lets the leader answer.
func (d *ClusterDemo) AcksAllWaits(w io.Writer) error {
	s, err := d.open()
	if err != nil {
		return err
	}
	defer s.Close()
	var p printer
	p.line("== acks=all waits for the high watermark ==")
	call, err := s.SendProduce(payments, wire.AcksAll, 30_000, []byte("pay-1"))
	if err != nil {
		return err
	}
	if d.cfg.earlyRound {
		s.FetchRound()
		s.FetchRound()
	}
	l := s.leaderReplica()
	if err := claim(!call.Done() && l.LEO() == 1 && l.HighWatermark() == 0, "the write should be parked: done %v LEO %d HW %d", call.Done(), l.LEO(), l.HighWatermark()); err != nil {
		return err
	}
	p.line("produce pay-1 with acks=all: the leader appends it (LEO %d) and parks the answer (HW %d)", l.LEO(), l.HighWatermark())
	for round := 1; !call.Done(); round++ {
		s.FetchRound()
		f2, _ := s.Replica(2, payments)
		f3, _ := s.Replica(3, payments)
		answer := "no answer yet"
		if call.Done() {
			resp, _, err := call.Result()
			if err != nil {
				return err
			}
			answer = fmt.Sprintf("answered NONE, offset %d", resp.BaseOffset)
		}
		p.line("fetch round %d: followers' LEO %d and %d, leader HW %d: %s", round, f2.LEO(), f3.LEO(), l.HighWatermark(), answer)
		if round > 3 {
			return claim(false, "the produce should be answered within two rounds")
		}
	}
	p.line("the producer heard NONE only once every ISR member held the record")
	return p.flush(w)
}

// ISROnTheTimer cuts broker 3 off from the leader and lets the clock run:
// the leader's ISR check runs every lag/2, proposes to remove broker 3 once
// it has not caught up for longer than the lag, and the controller commits
// it. When the link comes back, broker 3 catches up, the leader proposes it
// back, and the controller commits that too.
func (d *ClusterDemo) ISROnTheTimer(w io.Writer) error {
	s, err := d.open()
	if err != nil {
		return err
	}
	defer s.Close()
	var p printer
	p.line("== The ISR shrinks and grows on the timer, through the controller ==")
	s.Network().Cut(replica.BrokerAt(3), replica.BrokerAt(1))
	if err := s.produce(wire.AcksLeader, "pay-1"); err != nil {
		return err
	}
	p.line("%s  broker 3 loses its link to leader 1; %s", s.at(), s.describe())
	step := d.cfg.LagMaxMs / 2
	for !slices.Equal(sorted(s.state().ISR), []int32{1, 2}) {
		s.Advance(step)
		s.FetchRound()
		p.line("%s  ISR check: %s", s.at(), s.describe())
		if s.NowMs()-s.start > 4*d.cfg.LagMaxMs {
			return claim(false, "the ISR should shrink within a few lag periods")
		}
	}
	p.line("the leader proposed the removal; the controller committed it (partition epoch +1, leader epoch unchanged)")
	s.Network().Heal()
	p.line("%s  the link is back", s.at())
	if err := s.Await(func() bool { s.FetchRound(); return len(s.state().ISR) == clusterBrokers }, 8*d.cfg.LagMaxMs); err != nil {
		return err
	}
	r3, _ := s.Replica(3, payments)
	p.line("%s  broker 3 caught up (LEO %d): proposed back in and committed; %s", s.at(), r3.LEO(), s.describe())
	p.line("(its fetch sent during the cut was lost: it waited out the request timeout before fetching again)")
	return p.flush(w)
}

// LeaderCrash kills the leader's broker. The controller notices when its
// session expires, fences it, and elects the first ISR member in assignment
// order at the next leader epoch: a clean election, no committed record
// lost. The old leader restarts after an unclean shutdown, so it is not
// eligible until it has caught up and rejoined the ISR (KIP-966).
func (d *ClusterDemo) LeaderCrash(w io.Writer) error {
	s, err := d.open()
	if err != nil {
		return err
	}
	defer s.Close()
	var p printer
	p.line("== The leader crashes, and the controller elects cleanly ==")
	for _, v := range []string{"pay-1", "pay-2"} {
		if err := s.produce(wire.AcksAll, v); err != nil {
			return err
		}
	}
	p.line("%s  pay-1 and pay-2 committed; %s", s.at(), s.describe())
	if err := s.CrashBroker(1, vfs.KeepUnsynced); err != nil {
		return err
	}
	p.line("%s  broker 1 is killed", s.at())
	if err := s.awaitLeader(1); err != nil {
		return err
	}
	fenced, _ := s.Controller().Image().Broker(1)
	if err := claim(fenced.Fenced && s.LeaderOf(payments) == 2, "broker 1 should be fenced and broker 2 elected: %s", s.describe()); err != nil {
		return err
	}
	p.line("%s  its session expired: fenced; %s", s.at(), s.describe())
	if err := s.produce(wire.AcksAll, "pay-3"); errors.Is(err, wire.ErrNotEnoughReplicas) {
		// Two replicas left under min.insync.replicas 3: refused before the
		// append, so the producer knows; acks=1 is still written.
		p.line("%s  pay-3 with acks=all is refused: %v", s.at(), wire.CodeOf(err))
		if err := s.produce(wire.AcksLeader, "pay-3"); err != nil {
			return err
		}
		p.line("%s  pay-3 with acks=1 is written, not committed until the ISR grows back", s.at())
	} else if err != nil {
		return err
	} else {
		p.line("%s  pay-3 committed by the new leader", s.at())
	}
	held, err := s.holds(2)
	if err != nil {
		return err
	}
	if err := claim(slices.Equal(held, []string{"pay-1", "pay-2", "pay-3"}), "the new leader should hold every record, the committed ones first: %q", held); err != nil {
		return err
	}
	p.line("%s  the new leader holds %v", s.at(), held)
	if err := s.StartBroker(1); err != nil {
		return err
	}
	p.line("%s  broker 1 restarts after an unclean shutdown; %s", s.at(), s.describe())
	if err := claim(!slices.Contains(s.state().ISR, 1), "the restarted broker should not be in the ISR yet: %s", s.describe()); err != nil {
		return err
	}
	if err := s.Await(func() bool { s.FetchRound(); return slices.Contains(s.state().ISR, 1) }, 60_000); err != nil {
		return err
	}
	held, err = s.holds(1)
	if err != nil {
		return err
	}
	p.line("%s  broker 1 caught up %v and rejoined; %s", s.at(), held, s.describe())
	return p.flush(w)
}

// FastLeaderChange is KIP-279's A→B→A: broker 1 writes pay-2 that nobody
// copies, loses its links and is replaced by broker 2, which writes pay-3
// at the same offset. When broker 1 is back, its first fetch from broker 2
// answers with a diverging epoch: its epoch 0 ended at offset 1 on the
// leader, so it truncates pay-2 and copies pay-3 before it can rejoin the
// ISR. Broker 2 then dies, broker 1 leads again, and every log and every
// leader-epoch cache ends equal.
func (d *ClusterDemo) FastLeaderChange(w io.Writer) error {
	s, err := d.open()
	if err != nil {
		return err
	}
	defer s.Close()
	var p printer
	p.line("== KIP-279: leadership goes 1 → 2 → 1, and the logs converge ==")
	if err := s.produce(wire.AcksAll, "pay-1"); err != nil {
		return err
	}
	if err := s.produce(wire.AcksLeader, "pay-2"); err != nil {
		return err
	}
	h1, _ := s.holds(1)
	p.line("broker 1 leads at epoch 0 and holds %v (pay-2 not yet copied)", h1)
	for _, x := range []replica.Addr{replica.ControllerAt(), replica.BrokerAt(2), replica.BrokerAt(3)} {
		s.Network().Cut(replica.BrokerAt(1), x)
	}
	if err := s.awaitLeader(1); err != nil {
		return err
	}
	if err := s.produce(wire.AcksLeader, "pay-3"); err != nil {
		return err
	}
	h2, _ := s.holds(2)
	p.line("broker 1 cut off; broker 2 leads at epoch %d and writes pay-3 at offset 1: %v", s.state().LeaderEpoch, h2)
	s.Network().Heal()
	if err := s.Await(func() bool { s.FetchRound(); return slices.Contains(s.state().ISR, 1) }, 60_000); err != nil {
		return err
	}
	h1, _ = s.holds(1)
	if err := claim(slices.Equal(h1, h2), "broker 1 should hold broker 2's log: %v vs %v", h1, h2); err != nil {
		return err
	}
	p.line("broker 1 back: a diverging epoch tells it epoch 0 ended at offset 1; it drops pay-2, copies pay-3: %v", h1)
	if err := s.CrashBroker(2, vfs.KeepUnsynced); err != nil {
		return err
	}
	if err := s.awaitLeader(2); err != nil {
		return err
	}
	if err := s.produce(wire.AcksLeader, "pay-4"); err != nil {
		return err
	}
	if err := s.StartBroker(2); err != nil {
		return err
	}
	if err := s.Await(func() bool { s.FetchRound(); return len(s.state().ISR) == clusterBrokers }, 60_000); err != nil {
		return err
	}
	p.line("broker 2 dies; broker 1 leads again at epoch %d; broker 2 comes back and catches up", s.state().LeaderEpoch)
	var logs, epochs []string
	for _, id := range s.BrokerIDs() {
		h, err := s.holds(id)
		if err != nil {
			return err
		}
		r, _ := s.Replica(id, payments)
		logs, epochs = append(logs, fmt.Sprint(h)), append(epochs, fmt.Sprint(r.Epochs()))
		p.line("  broker %d: %v, epochs %v", id, h, r.Epochs())
	}
	if err := claim(allSame(logs) && allSame(epochs), "every log and epoch cache should be equal: %v %v", logs, epochs); err != nil {
		return err
	}
	p.line("every log and every leader-epoch cache is equal")
	return p.flush(w)
}

func allSame(v []string) bool {
	for _, x := range v {
		if x != v[0] {
			return false
		}
	}
	return true
}
