package controller

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/wire"
)

// memStore is a Store in memory, for tests only: whole batches in a slice.
// failAppends makes the next Appends fail, as a full or broken disk would.
type memStore struct {
	batches     [][]byte
	bases       []uint64
	end         uint64
	failAppends int
	appends     int
}

var errDiskFull = errors.New("memstore: disk full")

func (s *memStore) Append(batch []byte) (uint64, error) {
	if s.failAppends > 0 {
		s.failAppends--
		return 0, errDiskFull
	}
	h, err := log.VerifyBatch(batch)
	if err != nil {
		return 0, err
	}
	base := s.end
	b := append([]byte(nil), batch...)
	if err := log.SetBaseOffset(b, base); err != nil {
		return 0, err
	}
	s.batches = append(s.batches, b)
	s.bases = append(s.bases, base)
	s.end = base + uint64(h.LastOffsetDelta) + 1
	s.appends++
	return base, nil
}

func (s *memStore) Read(dst []byte, from uint64, maxBytes int) ([]byte, error) {
	if from > s.end {
		return dst, fmt.Errorf("memstore: offset %d beyond end %d", from, s.end)
	}
	n := 0
	for i, b := range s.batches {
		last := s.end - 1
		if i+1 < len(s.bases) {
			last = s.bases[i+1] - 1
		}
		if last < from {
			continue
		}
		if n > 0 && n+len(b) > maxBytes {
			break
		}
		dst = append(dst, b...)
		n += len(b)
	}
	return dst, nil
}

func (s *memStore) EndOffset() uint64 { return s.end }
func (s *memStore) Close() error      { return nil }

// incarnation makes a deterministic, non-zero incarnation id for broker id's
// gen-th process.
func incarnation(id int32, gen int) [16]byte {
	var x [16]byte
	copy(x[:], fmt.Sprintf("b%d-gen%d", id, gen))
	x[15] = 1
	return x
}

// broker is what a test remembers of one broker process.
type broker struct {
	id    int32
	gen   int
	epoch int64
}

// harness drives a Controller through a story. After every step that can
// write, it checks the image's invariants and that a fresh replay of the
// store builds exactly the controller's image: a controller restarted at
// that point would be identical.
type harness struct {
	t       *testing.T
	cfg     Config
	store   *memStore
	c       *Controller
	now     int64
	brokers map[int32]*broker
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	h := &harness{t: t, cfg: cfg, store: &memStore{}, now: 1_000_000, brokers: map[int32]*broker{}}
	c, err := Open(h.store, cfg, h.now)
	if err != nil {
		t.Fatal(err)
	}
	h.c = c
	return h
}

// check verifies the invariants and that replaying the store gives the
// controller's image.
func (h *harness) check() {
	h.t.Helper()
	img := h.c.Image()
	if err := img.Check(); err != nil {
		h.t.Fatalf("image invariants: %v\n%s", err, img)
	}
	if h.c.Failed() != nil {
		return
	}
	replayed, err := Open(h.store, h.cfg, h.now)
	if err != nil {
		h.t.Fatalf("replaying the store: %v", err)
	}
	if !replayed.image.Equal(h.c.image) {
		h.t.Fatalf("a replay of the store differs from the controller's image:\nreplay\n%scontroller\n%s", replayed.image, h.c.image)
	}
}

// restartController reopens the controller from its store, as after a
// crash, and checks it comes back with the same image.
func (h *harness) restartController() {
	h.t.Helper()
	before := h.c.Image()
	c, err := Open(h.store, h.cfg, h.now)
	if err != nil {
		h.t.Fatalf("reopen: %v", err)
	}
	if !c.image.Equal(before) {
		h.t.Fatalf("restart changed the image:\nbefore\n%safter\n%s", before, c.image)
	}
	h.c = c
}

// advance moves the clock and lets the controller do what is due.
func (h *harness) advance(ms int64) {
	h.t.Helper()
	h.now += ms
	h.c.Tick(h.now)
	h.check()
}

// startBroker registers a new process of broker id, shut down cleanly
// before (PreviousBrokerEpoch is its last epoch), and heartbeats until it
// is unfenced.
func (h *harness) startBroker(id int32) {
	h.t.Helper()
	h.register(id, true, false)
	if r := h.heartbeat(id); r.IsFenced {
		h.t.Fatalf("broker %d still fenced after a caught-up heartbeat: %+v", id, r)
	}
}

// register registers a new process of broker id; clean says whether the
// previous process shut down cleanly, lostData whether its recovery cut
// flushed data. The previous process's session must be over.
func (h *harness) register(id int32, clean, lostData bool) wire.BrokerRegistrationResponse {
	h.t.Helper()
	r := h.tryRegister(id, clean, lostData)
	if r.ErrorCode != wire.CodeNone {
		h.t.Fatalf("registering broker %d: %v", id, r.ErrorCode)
	}
	return r
}

// tryRegister is register that may be refused: a refused process is
// forgotten, and the previous one stays the broker's.
func (h *harness) tryRegister(id int32, clean, lostData bool) wire.BrokerRegistrationResponse {
	h.t.Helper()
	b, ok := h.brokers[id]
	if !ok {
		b = &broker{id: id, epoch: wire.NoBrokerEpoch}
		h.brokers[id] = b
	}
	prev := wire.NoBrokerEpoch
	if clean {
		prev = b.epoch
	}
	b.gen++
	r := h.c.RegisterBroker(wire.BrokerRegistrationRequest{
		BrokerID: id, IncarnationID: incarnation(id, b.gen), Endpoint: fmt.Sprintf("b%d:9092", id),
		PreviousBrokerEpoch: prev, LostData: lostData,
	}, h.now)
	if r.ErrorCode == wire.CodeNone {
		b.epoch = r.BrokerEpoch
	} else {
		b.gen--
	}
	h.check()
	return r
}

// shutDown stops broker id cleanly, as a process that shuts down: it
// heartbeats with WantShutDown until the controller lets it go, which ends
// its session; others heartbeat meanwhile, caught up.
func (h *harness) shutDown(id int32, others ...int32) {
	h.t.Helper()
	for range 10 {
		if r := h.heartbeatWith(id, h.c.MetadataEndOffset(), true); r.ShouldShutDown {
			return
		}
		h.heartbeatAll(others...)
	}
	h.t.Fatalf("broker %d was never let go", id)
}

// heartbeat sends broker id's heartbeat, having applied the whole metadata
// log.
func (h *harness) heartbeat(id int32) wire.BrokerHeartbeatResponse {
	h.t.Helper()
	return h.heartbeatWith(id, h.c.MetadataEndOffset(), false)
}

func (h *harness) heartbeatWith(id int32, metadataOffset uint64, wantShutDown bool) wire.BrokerHeartbeatResponse {
	h.t.Helper()
	r := h.c.Heartbeat(wire.BrokerHeartbeatRequest{
		BrokerID: id, BrokerEpoch: h.brokers[id].epoch, MetadataOffset: metadataOffset, WantShutDown: wantShutDown,
	}, h.now)
	if r.ErrorCode != wire.CodeNone {
		h.t.Fatalf("heartbeat of broker %d: %v", id, r.ErrorCode)
	}
	h.check()
	return r
}

// heartbeatAll heartbeats every live broker in id order.
func (h *harness) heartbeatAll(ids ...int32) {
	h.t.Helper()
	for _, id := range ids {
		h.heartbeat(id)
	}
}

func (h *harness) createTopic(req wire.CreateTopicsRequest) {
	h.t.Helper()
	if r := h.c.CreateTopics(req, h.now); r.Err() != nil || len(r.Topics) != len(req.Topics) {
		h.t.Fatalf("creating %+v: %+v", req.Topics, r)
	}
	h.check()
}

func (h *harness) part(topic string, p int32) PartitionState {
	h.t.Helper()
	s, ok := h.c.Image().Partition(topic, p)
	if !ok {
		h.t.Fatalf("no partition %s-%d", topic, p)
	}
	return s
}

// want checks a partition's state against its one-line form, e.g.
// "orders-0 leader 1 epoch 0/0 replicas [1 2 3] isr [1 2 3] elr [] lke [] RECOVERED".
func (h *harness) want(topic string, p int32, line string) {
	h.t.Helper()
	if got := h.part(topic, p).String(); got != line {
		h.t.Fatalf("partition state:\n got %s\nwant %s", got, line)
	}
}

// alterReq is the AlterPartition a partition's leader would send to set
// the ISR to isr, with the epochs it holds.
func (h *harness) alterReq(topic string, p int32, isr ...int32) wire.AlterPartitionRequest {
	h.t.Helper()
	s := h.part(topic, p)
	req := wire.AlterPartitionRequest{
		BrokerID: s.Leader, Topic: topic, Partition: p,
		LeaderEpoch: s.LeaderEpoch, PartitionEpoch: s.PartitionEpoch, LeaderRecoveryState: s.LeaderRecoveryState,
	}
	if b, ok := h.brokers[s.Leader]; ok {
		req.BrokerEpoch = b.epoch
	}
	for _, id := range isr {
		e := wire.NoBrokerEpoch
		if b, ok := h.brokers[id]; ok {
			e = b.epoch
		}
		req.NewISR = append(req.NewISR, wire.BrokerState{BrokerID: id, BrokerEpoch: e})
	}
	return req
}

// alter sends req and checks the answer's code.
func (h *harness) alter(req wire.AlterPartitionRequest, want wire.ErrorCode) wire.AlterPartitionResponse {
	h.t.Helper()
	r := h.c.AlterPartition(req, h.now)
	if r.ErrorCode != want {
		h.t.Fatalf("AlterPartition %+v: %v, want %v", req, r.ErrorCode, want)
	}
	h.check()
	return r
}

// brokersState formats every broker's flags, e.g. "1 active, 2 fenced".
func (h *harness) brokersState() string {
	var parts []string
	for _, b := range h.c.Image().Brokers() {
		s := "active"
		switch {
		case b.Fenced:
			s = "fenced"
		case b.InControlledShutdown:
			s = "shutting-down"
		}
		parts = append(parts, fmt.Sprintf("%d %s", b.ID, s))
	}
	return strings.Join(parts, ", ")
}

func (h *harness) wantBrokers(want string) {
	h.t.Helper()
	if got := h.brokersState(); got != want {
		h.t.Fatalf("brokers: %s, want %s", got, want)
	}
}

// storeRecords decodes every record in the store, in offset order.
func storeRecords(t testing.TB, s *memStore) []Record {
	t.Helper()
	var out []Record
	for _, b := range s.batches {
		batch, _, err := log.DecodeBatch(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range batch.Records {
			r, err := DecodeRecord(rec.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
	}
	return out
}
