package controller

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/wire"
)

// Open replays the store: a controller restarted anywhere in a scenario
// comes back with the same image and carries on. (The harness also checks,
// after every step of every scenario, that a replay of the store equals the
// controller's image.)
func TestARestartedControllerCarriesOnWhereItStopped(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	h.restartController() // empty store
	for _, id := range []int32{1, 2, 3} {
		h.startBroker(id)
		h.restartController()
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 2, ReplicationFactor: 3, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "2"}}}}})
	h.restartController()
	h.alter(h.alterReq("orders", 0, 1, 2), wire.CodeNone)
	h.restartController()
	h.silence(1000, 2, 3)
	h.restartController()
	h.want("orders", 0, "orders-0 leader 2 epoch 1/2 replicas [1 2 3] isr [2] elr [1] lke [] RECOVERED")
	h.register(1, false, true)
	h.restartController()
	h.want("orders", 0, "orders-0 leader 2 epoch 1/3 replicas [1 2 3] isr [2] elr [] lke [] RECOVERED")
	h.heartbeat(1)
	h.alter(h.alterReq("orders", 0, 2, 1), wire.CodeNone)
	h.restartController()
	h.want("orders", 0, "orders-0 leader 2 epoch 1/4 replicas [1 2 3] isr [2 1] elr [] lke [] RECOVERED")
}

// A store that fails an Append leaves the controller failed: it never
// applies a record that was not durably appended, answers every later
// request with NOT_CONTROLLER, and only a reopen from the store clears it.
func TestAFailedAppendLeavesTheControllerFailed(t *testing.T) {
	h := threeBrokers(t, Config{}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 3}}})
	before := h.c.Image()

	h.store.failAppends = 1
	r := h.c.AlterPartition(h.alterReq("orders", 0, 1, 2), h.now)
	if r.ErrorCode != wire.CodeNotController {
		t.Fatalf("AlterPartition on a failing store: %v, want NOT_CONTROLLER", r.ErrorCode)
	}
	err := h.c.Failed()
	if !errors.Is(err, ErrFailed) || !errors.Is(err, wire.ErrNotController) || wire.CodeOf(err) != wire.CodeNotController {
		t.Fatalf("Failed() = %v, want ErrFailed carrying NOT_CONTROLLER", err)
	}
	if !h.c.Image().Equal(before) {
		t.Fatalf("a record that was not appended was applied:\n%s", h.c.Image())
	}

	// Every later call errors, even though the store works again.
	if r := h.c.RegisterBroker(wire.BrokerRegistrationRequest{BrokerID: 4, IncarnationID: incarnation(4, 1)}, h.now); r.ErrorCode != wire.CodeNotController {
		t.Errorf("RegisterBroker: %v", r.ErrorCode)
	}
	if r := h.c.Heartbeat(wire.BrokerHeartbeatRequest{BrokerID: 1, BrokerEpoch: h.brokers[1].epoch}, h.now); r.ErrorCode != wire.CodeNotController {
		t.Errorf("Heartbeat: %v", r.ErrorCode)
	}
	if r := h.c.AlterPartition(h.alterReq("orders", 0, 1, 2), h.now); r.ErrorCode != wire.CodeNotController {
		t.Errorf("AlterPartition: %v", r.ErrorCode)
	}
	if r := h.c.CreateTopics(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "x", Partitions: 1, ReplicationFactor: 1}}}, h.now); wire.CodeOf(r.Err()) != wire.CodeNotController {
		t.Errorf("CreateTopics: %+v", r)
	}
	if r := h.c.ElectLeaders(wire.ElectLeadersRequest{Topic: "orders"}, h.now); r.ErrorCode != wire.CodeNotController {
		t.Errorf("ElectLeaders: %v", r.ErrorCode)
	}
	if r := h.c.Metadata(wire.MetadataRequest{}); r.ErrorCode != wire.CodeNotController || r.Brokers != nil {
		t.Errorf("Metadata: %+v", r)
	}
	if _, err := h.c.ReadMetadata(nil, 0, 100); !errors.Is(err, ErrFailed) {
		t.Errorf("ReadMetadata: %v", err)
	}
	if h.c.NextTickMs() != Never {
		t.Errorf("NextTickMs = %d, want Never", h.c.NextTickMs())
	}
	end := h.store.EndOffset()
	h.c.Tick(h.now + 1_000_000)
	if h.store.EndOffset() != end {
		t.Error("a failed controller's Tick wrote records")
	}

	// Reopening from the store clears it, with exactly the durable state.
	h.restartController()
	if h.c.Failed() != nil || !h.c.Image().Equal(before) {
		t.Fatalf("reopened: failed %v, image\n%s", h.c.Failed(), h.c.Image())
	}
	h.alter(h.alterReq("orders", 0, 1, 2), wire.CodeNone)
}

// skewStore appends at an offset the controller did not expect.
type skewStore struct{ *memStore }

func (s skewStore) Append(batch []byte) (uint64, error) {
	base, err := s.memStore.Append(batch)
	return base + 1, err
}

func TestAStoreThatAppendsElsewhereFailsTheController(t *testing.T) {
	c, err := Open(skewStore{&memStore{}}, Config{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := c.RegisterBroker(wire.BrokerRegistrationRequest{BrokerID: 1, IncarnationID: incarnation(1, 1)}, 0)
	if r.ErrorCode != wire.CodeNotController || !errors.Is(c.Failed(), ErrFailed) {
		t.Fatalf("%+v, failed %v", r, c.Failed())
	}
	if _, ok := c.Image().Broker(1); ok {
		t.Fatal("applied a record whose offset the store contradicted")
	}
}

func TestOpenRefusesAStoreThatDoesNotReplay(t *testing.T) {
	appendRecords := func(s *memStore, recs ...Record) {
		b := log.Batch{BaseOffset: s.end, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}
		for i, r := range recs {
			v, err := r.AppendTo(nil)
			if err != nil {
				t.Fatal(err)
			}
			b.Records = append(b.Records, log.Record{OffsetDelta: int32(i), Value: v})
		}
		buf, err := log.AppendBatch(nil, &b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(buf); err != nil {
			t.Fatal(err)
		}
	}
	s := &memStore{}
	appendRecords(s, TopicRecord{Name: "orders", MinISR: 1}, TopicRecord{Name: "orders", MinISR: 1})
	if _, err := Open(s, Config{}, 0); !errors.Is(err, ErrInvariant) {
		t.Fatalf("a topic created twice: %v, want ErrInvariant", err)
	}
	s = &memStore{}
	appendRecords(s, TopicRecord{Name: "orders", MinISR: 1})
	s.batches[0][len(s.batches[0])-1] ^= 1
	if _, err := Open(s, Config{}, 0); !errors.Is(err, ErrBadRecord) {
		t.Fatalf("a corrupt batch: %v, want ErrBadRecord", err)
	}
}

func TestOpenRefusesABadConfig(t *testing.T) {
	for _, cfg := range []Config{{SessionTimeoutMs: -1}, {DefaultMinISR: -1}} {
		if _, err := Open(&memStore{}, cfg, 0); !errors.Is(err, ErrInvalidConfig) || wire.CodeOf(err) != wire.CodeInvalidRequest {
			t.Errorf("Open(%+v) = %v, want ErrInvalidConfig", cfg, err)
		}
	}
}
