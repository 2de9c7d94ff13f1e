package controller

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/internal/testkit"
	"github.com/kaenlog/kaenlog/wire"
)

var (
	modelRuns  = flag.Int("model.runs", 6, "random runs per configuration in TestModelEveryStepKeepsTheControllersInvariants")
	modelSteps = flag.Int("model.steps", 250, "steps per run in TestModelEveryStepKeepsTheControllersInvariants")
)

// TestModelEveryStepKeepsTheControllersInvariants drives the controller with seeded random sequences of
// registrations (clean, unclean, retried), heartbeats (caught up or not,
// asking to shut down, with stale epochs), time jumps, AlterPartitions
// (valid and stale), elections (clean, unclean and preferred),
// reassignments and their cancellations, the
// periodic preferred-leader check, topic creations and
// controller restarts. After every step:
//
//   - the image's invariants hold (Image.Check) and a fresh replay of the
//     store builds exactly the controller's image (the harness checks both);
//   - every leader is an active broker;
//   - a partition's epochs never go down, and its partition epoch goes up
//     whenever its state changes;
//   - an accepted AlterPartition came from the leader under the current
//     epochs;
//   - with ELR and the unclean-shutdown rule on: no ISR or ELR holds a
//     broker that restarted uncleanly and has not since been readmitted by
//     AlterPartition (or been chosen by an unclean election, which says
//     data may be lost).
//
// Replay a failure with: go test ./replica/controller -run TestModelEveryStepKeepsTheControllersInvariants -seed N
func TestModelEveryStepKeepsTheControllersInvariants(t *testing.T) {
	for _, cfg := range []struct {
		name string
		cfg  Config
	}{
		{"default", Config{SessionTimeoutMs: 1000}},
		{"no ELR", Config{SessionTimeoutMs: 1000, DisableELR: true}},
		{"no unclean-shutdown rule", Config{SessionTimeoutMs: 1000, DisableUncleanShutdownRule: true}},
		{"min ISR 2", Config{SessionTimeoutMs: 1000, DefaultMinISR: 2}},
		{"frequent leader rebalance", Config{SessionTimeoutMs: 1000, LeaderImbalanceCheckIntervalMs: 1500}},
	} {
		t.Run(cfg.name, func(t *testing.T) {
			r := testkit.NewRand(t)
			for run := range *modelRuns {
				seed := r.Uint64()
				t.Run(fmt.Sprint(run), func(t *testing.T) { runModel(t, cfg.cfg, seed) })
			}
		})
	}
}

type model struct {
	h       *harness
	r       *rand.Rand
	trace   []string
	last    map[string]PartitionState // partition state after the previous step
	tainted map[string]map[int32]bool // partition → brokers that restarted uncleanly since
	follow  *Image                    // a broker's image, following the metadata log record by record
	// proposed is the ISR the step's accepted AlterPartition proposed,
	// by partition: its leader vouched each member caught up.
	proposed map[string][]int32
}

func runModel(t *testing.T, cfg Config, seed uint64) {
	m := &model{
		h:       newHarness(t, cfg),
		r:       rand.New(rand.NewPCG(seed, seed>>1|1)),
		last:    map[string]PartitionState{},
		tainted: map[string]map[int32]bool{},
		follow:  NewImage(),
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("run seed %d; last steps:\n%s", seed, strings.Join(m.trace[max(0, len(m.trace)-25):], "\n"))
		}
	})
	ids := []int32{1, 2, 3, 4, 5}
	for _, id := range ids[:3] {
		m.h.startBroker(id)
	}
	for step := range *modelSteps {
		m.proposed = nil
		m.step(step, ids)
		m.checkProperties()
	}
}

func (m *model) logf(format string, args ...any) {
	m.trace = append(m.trace, fmt.Sprintf(format, args...))
}

func pkey(topic string, p int32) string { return fmt.Sprintf("%s-%d", topic, p) }

func (m *model) randomPartition() (PartitionState, bool) {
	parts := m.h.c.Image().Partitions()
	if len(parts) == 0 {
		return PartitionState{}, false
	}
	return parts[m.r.IntN(len(parts))], true
}

func (m *model) step(step int, ids []int32) {
	h, r := m.h, m.r
	id := ids[r.IntN(len(ids))]
	switch k := r.IntN(100); {
	case k < 10: // a process of broker id starts
		clean, lost := r.IntN(2) == 0, r.IntN(5) == 0
		if b, ok := h.brokers[id]; ok && r.IntN(6) == 0 {
			// a retried registration of the current process
			resp := h.c.RegisterBroker(wire.BrokerRegistrationRequest{BrokerID: id, IncarnationID: incarnation(id, b.gen)}, h.now)
			m.logf("%d: retry registration of %d → %v epoch %d", step, id, resp.ErrorCode, resp.BrokerEpoch)
			if resp.ErrorCode != wire.CodeNone || resp.BrokerEpoch != b.epoch {
				h.t.Fatalf("a retried registration got %+v, want epoch %d", resp, b.epoch)
			}
			break
		}
		end, img := h.c.MetadataEndOffset(), h.c.Image()
		resp := h.tryRegister(id, clean, lost)
		if resp.ErrorCode == wire.CodeDuplicateBrokerRegistration {
			// The previous process's session is live: refused, and nothing
			// about the live broker changed.
			m.logf("%d: broker %d registers, clean %t, lost data %t → refused: %v", step, id, clean, lost, resp.ErrorCode)
			if got := h.c.MetadataEndOffset(); got != end {
				h.t.Fatalf("a refused registration wrote records: end offset %d → %d", end, got)
			}
			if before, after := img.brokers[id], h.c.Image().brokers[id]; before != after {
				h.t.Fatalf("a refused registration changed broker %d: %+v → %+v", id, before, after)
			}
			break
		}
		if resp.ErrorCode != wire.CodeNone {
			h.t.Fatalf("registering broker %d: %v", id, resp.ErrorCode)
		}
		m.logf("%d: broker %d registers, clean %t, lost data %t → epoch %d", step, id, clean, lost, h.brokers[id].epoch)
		if (!clean || lost) && !h.cfg.DisableUncleanShutdownRule {
			for _, p := range h.c.Image().Partitions() {
				m.taint(pkey(p.Topic, p.Partition), id)
			}
		}
	case k < 45: // a heartbeat
		b, ok := h.brokers[id]
		if !ok {
			break
		}
		end := h.c.MetadataEndOffset()
		req := wire.BrokerHeartbeatRequest{BrokerID: id, BrokerEpoch: b.epoch, MetadataOffset: end, WantShutDown: r.IntN(12) == 0}
		if r.IntN(5) == 0 {
			req.MetadataOffset = r.Uint64N(end + 1)
		}
		if r.IntN(10) == 0 {
			req.BrokerEpoch = r.Int64N(b.epoch + 1) // maybe stale
		}
		resp := h.c.Heartbeat(req, h.now)
		m.logf("%d: heartbeat %+v → %+v", step, req, resp)
		h.check()
	case k < 60: // time passes
		ms := r.Int64N(2 * h.cfg.SessionTimeoutMs)
		h.advance(ms)
		m.logf("%d: %d ms pass → %s", step, ms, h.brokersState())
	case k < 80: // a leader (or an impostor) proposes an ISR
		p, ok := m.randomPartition()
		if !ok || p.Leader == NoLeader && r.IntN(3) > 0 {
			break
		}
		req := h.alterReq(p.Topic, p.Partition)
		req.NewISR = nil
		members := []int32{p.Leader}
		for _, rep := range p.Replicas {
			if rep != p.Leader && r.IntN(2) == 0 {
				members = append(members, rep)
			}
		}
		for _, id := range members {
			e := wire.NoBrokerEpoch
			if b, ok := h.brokers[id]; ok {
				e = b.epoch
			}
			req.NewISR = append(req.NewISR, wire.BrokerState{BrokerID: id, BrokerEpoch: e})
		}
		switch r.IntN(8) {
		case 0:
			req.PartitionEpoch = max(0, req.PartitionEpoch-1) // stale
		case 1:
			req.LeaderEpoch = max(0, req.LeaderEpoch-1)
		case 2:
			req.BrokerID = p.Replicas[r.IntN(len(p.Replicas))]
			if b, ok := h.brokers[req.BrokerID]; ok {
				req.BrokerEpoch = b.epoch
			}
		case 3:
			if p.LeaderRecoveryState == wire.LeaderRecovering && len(req.NewISR) == 1 {
				break
			}
			req.LeaderRecoveryState = wire.LeaderRecovered
		}
		resp := h.c.AlterPartition(req, h.now)
		m.logf("%d: AlterPartition %s-%d by %d epochs %d/%d isr %v → %v", step, req.Topic, req.Partition, req.BrokerID, req.LeaderEpoch, req.PartitionEpoch, members, resp.ErrorCode)
		h.check()
		if resp.ErrorCode == wire.CodeNone || resp.ErrorCode == wire.CodeNewLeaderElected { // applied
			if req.BrokerID != p.Leader || req.LeaderEpoch != p.LeaderEpoch || req.PartitionEpoch != p.PartitionEpoch {
				h.t.Fatalf("accepted a proposal from %d under %d/%d; the partition was %s", req.BrokerID, req.LeaderEpoch, req.PartitionEpoch, p)
			}
			for _, id := range members {
				m.untaint(pkey(p.Topic, p.Partition), id)
			}
			m.proposed = map[string][]int32{pkey(p.Topic, p.Partition): members}
		}
	case k < 85: // an operator asks for an election
		p, ok := m.randomPartition()
		if !ok {
			break
		}
		kind := r.IntN(4)
		if kind == 3 { // or a reassignment (KIP-455), or its cancellation
			req := wire.AlterPartitionReassignmentsRequest{Topic: p.Topic, Partition: p.Partition, Cancel: r.IntN(4) == 0}
			if !req.Cancel {
				perm := slices.Clone(ids)
				r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
				req.Replicas = perm[:1+r.IntN(min(3, len(perm)))]
			}
			resp := h.c.AlterPartitionReassignments(req, h.now)
			m.logf("%d: reassign %s-%d to %v cancel %t → %v %s", step, p.Topic, p.Partition, req.Replicas, req.Cancel, resp.ErrorCode, resp.ErrorMessage)
			h.check()
			break
		}
		unclean, preferred := kind == 0, kind == 1
		resp := h.c.ElectLeaders(wire.ElectLeadersRequest{Topic: p.Topic, Partition: p.Partition, Unclean: unclean, Preferred: preferred}, h.now)
		m.logf("%d: ElectLeaders %s-%d unclean %t preferred %t → %+v", step, p.Topic, p.Partition, unclean, preferred, resp)
		h.check()
		if preferred && resp.ErrorCode == wire.CodeNone && resp.Leader != p.Replicas[0] && slices.Contains(p.ISR, p.Replicas[0]) {
			if b, ok := h.c.Image().Broker(p.Replicas[0]); ok && !b.Fenced && !b.InControlledShutdown {
				h.t.Fatalf("a preferred election elected %d over the active ISR member %d: %s", resp.Leader, p.Replicas[0], p)
			}
		}
		if resp.DataMayBeLost {
			if !unclean {
				h.t.Fatalf("a clean election said data may be lost: %+v", resp)
			}
			m.tainted[pkey(p.Topic, p.Partition)] = nil
		}
	case k < 92: // a topic is created
		name := fmt.Sprintf("t%d", r.IntN(6))
		t := wire.CreatableTopic{Name: name, Partitions: 1 + r.Int32N(3), ReplicationFactor: int16(1 + r.IntN(3)),
			Configs: wire.MinInsyncReplicas(r.Int32N(4))}
		if r.IntN(4) == 0 {
			t.Configs = append(t.Configs, wire.TopicConfig{Name: "unclean.leader.election.enable", Value: "true"})
		}
		if r.IntN(3) == 0 {
			t.Partitions, t.ReplicationFactor = 0, 0
			perm := r.Perm(len(ids))
			rf := 1 + r.IntN(3)
			for range 1 + r.IntN(2) {
				var list []int32
				for _, i := range perm[:rf] {
					list = append(list, ids[i])
				}
				t.Assignment = append(t.Assignment, list)
				perm = append(perm[1:], perm[0])
			}
		}
		req := wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{t}}
		resp := h.c.CreateTopics(req, h.now)
		m.logf("%d: CreateTopics %+v → %+v", step, req, resp.Topics)
		h.check()
	case k < 96: // the controller restarts
		h.restartController()
		m.logf("%d: controller restarts", step)
	default: // a read
		md := h.c.Metadata(wire.MetadataRequest{})
		img := h.c.Image()
		if len(md.Brokers) != len(img.Brokers()) || len(md.Topics) != len(img.TopicNames()) {
			h.t.Fatalf("Metadata %+v disagrees with the image\n%s", md, img)
		}
	}
}

func (m *model) taint(key string, id int32) {
	if m.tainted[key] == nil {
		m.tainted[key] = map[int32]bool{}
	}
	m.tainted[key][id] = true
}

func (m *model) untaint(key string, id int32) { delete(m.tainted[key], id) }

func (m *model) checkProperties() {
	h := m.h
	m.followLog()
	img := h.c.Image()
	if !m.follow.Equal(img) {
		h.t.Fatalf("a broker following the metadata log built\n%swhile the controller holds\n%s", m.follow, img)
	}
	for _, p := range img.Partitions() {
		key := pkey(p.Topic, p.Partition)
		if p.Leader != NoLeader {
			if b, ok := img.Broker(p.Leader); !ok || !b.active() {
				h.t.Fatalf("%s is led by broker %d, which is not active: %+v", p, p.Leader, b)
			}
		}
		if old, ok := m.last[key]; ok {
			if p.LeaderEpoch < old.LeaderEpoch || p.PartitionEpoch < old.PartitionEpoch ||
				(!p.equal(old) && p.PartitionEpoch == old.PartitionEpoch) {
				h.t.Fatalf("epochs went wrong: %s → %s", old, p)
			}
		}
		m.last[key] = p
		if h.cfg.DisableELR || h.cfg.DisableUncleanShutdownRule {
			continue
		}
		for id := range m.tainted[key] {
			if slices.Contains(p.ISR, id) || slices.Contains(p.ELR, id) {
				h.t.Fatalf("%s holds broker %d, which restarted uncleanly and was not readmitted", p, id)
			}
		}
	}
}

// followLog applies the records the step appended to the model's own image,
// one at a time, and looks at every partition change: a leader elected from
// outside the ISR and the ELR is an unclean election,
// which must say so (RECOVERING) and accepts whatever the new leader holds.
func (m *model) followLog() {
	h := m.h
	buf, err := h.c.ReadMetadata(nil, m.follow.EndOffset(), 1<<30)
	if err != nil {
		h.t.Fatal(err)
	}
	for len(buf) > 0 {
		b, n, err := log.DecodeBatch(buf)
		if err != nil {
			h.t.Fatal(err)
		}
		buf = buf[n:]
		for _, rec := range b.Records {
			r, err := DecodeRecord(rec.Value)
			if err != nil {
				h.t.Fatal(err)
			}
			var old PartitionState
			ch, isChange := r.(PartitionChangeRecord)
			if isChange {
				old, _ = m.follow.Partition(ch.Topic, ch.Partition)
			}
			if err := m.follow.Apply(r); err != nil {
				h.t.Fatal(err)
			}
			if !isChange || ch.Leader == NoLeader || ch.Leader == old.Leader {
				continue
			}
			if slices.Contains(old.ISR, ch.Leader) || slices.Contains(old.ELR, ch.Leader) {
				continue // clean: from the ISR, or from the ELR once the change emptied the ISR
			}
			if old.Reassigning() && ch.Replicas != nil && len(ch.AddingReplicas) == 0 && len(ch.RemovingReplicas) == 0 &&
				slices.Contains(m.proposed[pkey(ch.Topic, ch.Partition)], ch.Leader) {
				// clean: the AlterPartition that took the new leader into
				// the ISR (its leader vouching it caught up) completed the
				// reassignment, and the removed leader handed over to it.
				continue
			}
			if ch.LeaderRecoveryState != wire.LeaderRecovering || len(ch.ISR) != 1 || len(ch.ELR) != 0 {
				h.t.Fatalf("unclean election %s → %+v: want RECOVERING, the leader alone in the ISR, no ELR", old, ch)
			}
			m.untaint(pkey(ch.Topic, ch.Partition), ch.Leader)
		}
	}
}
