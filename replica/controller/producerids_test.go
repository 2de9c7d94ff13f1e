package controller

import (
	"errors"
	"math"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/wire"
)

// initProducerID asks h's controller for a producer id, as a new
// non-transactional producer does.
func (h *harness) initProducerID() wire.InitProducerIDResponse {
	h.t.Helper()
	r := h.c.InitProducerID(wire.InitProducerIDRequest{CorrelationID: 9, TransactionTimeoutMs: -1, ProducerID: wire.NoProducerID, ProducerEpoch: wire.NoProducerEpoch}, h.now)
	if r.CorrelationID != 9 {
		h.t.Fatalf("correlation id %d, want 9", r.CorrelationID)
	}
	h.check()
	return r
}

// Ids come from blocks of 1000 that the metadata log allocates: every
// call gets a new id with epoch 0, and only the first of each block
// writes a record.
func TestInitProducerIDAllocatesInBlocks(t *testing.T) {
	h := newHarness(t, Config{})
	for i := range int64(2500) {
		r := h.initProducerID()
		if r.ErrorCode != wire.CodeNone || r.ProducerID != i || r.ProducerEpoch != 0 {
			t.Fatalf("call %d: %+v, want id %d epoch 0", i, r, i)
		}
	}
	if h.store.appends != 3 {
		t.Fatalf("%d appends to the metadata log for 2500 ids, want 3 (one per block of %d)", h.store.appends, ProducerIDBlockSize)
	}
	var ends []int64
	for _, rec := range storeRecords(t, h.store) {
		if p, ok := rec.(ProducerIDsRecord); ok {
			if p.BrokerID != NoLeader || p.BrokerEpoch != -1 {
				t.Fatalf("record %+v: the controller allocates for itself", p)
			}
			ends = append(ends, p.NextProducerID)
		}
	}
	if len(ends) != 3 || ends[0] != 1000 || ends[1] != 2000 || ends[2] != 3000 {
		t.Fatalf("block ends %v, want [1000 2000 3000]", ends)
	}
	if got := h.c.Image().NextProducerID(); got != 3000 {
		t.Fatalf("image's next producer id %d, want 3000", got)
	}
	// The request's fields are not consulted: a producer that had an id
	// gets a new one too, at epoch 0.
	r := h.c.InitProducerID(wire.InitProducerIDRequest{TransactionTimeoutMs: 60000, ProducerID: 4, ProducerEpoch: 3}, h.now)
	if r.ErrorCode != wire.CodeNone || r.ProducerID != 2500 || r.ProducerEpoch != 0 {
		t.Fatalf("re-initialising producer 4: %+v, want a new id 2500 at epoch 0", r)
	}
}

// A controller opened again starts at the next block: no id it ever
// handed out is handed out again, though the rest of the block in use is
// skipped.
func TestARestartedControllerNeverReusesAProducerID(t *testing.T) {
	h := newHarness(t, Config{})
	seen := map[int64]bool{}
	next := func() int64 {
		t.Helper()
		r := h.initProducerID()
		if r.ErrorCode != wire.CodeNone || seen[r.ProducerID] {
			t.Fatalf("%+v: an error or an id handed out twice", r)
		}
		seen[r.ProducerID] = true
		return r.ProducerID
	}
	for range 5 {
		next()
	}
	h.restartController()
	if id := next(); id != 1000 {
		t.Fatalf("first id after a restart: %d, want 1000 (the next block)", id)
	}
	h.restartController()
	h.restartController() // a restart before any call allocates nothing
	if id := next(); id != 2000 {
		t.Fatalf("first id after two more restarts: %d, want 2000", id)
	}
	for range 1500 {
		next()
	}
	h.restartController()
	if id := next(); id != 4000 {
		t.Fatalf("after 1501 ids from 2000 and a restart: %d, want 4000", id)
	}
}

// Brokers follow the metadata log with the same Image: the allocations
// replay, and an image refuses a block that does not move forward.
func TestProducerIDsRecordReplays(t *testing.T) {
	h := newHarness(t, Config{})
	h.startBroker(1)
	for range 1001 {
		h.initProducerID()
	}
	follower := NewImage()
	all, err := h.c.ReadMetadata(nil, 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := follower.ApplyBatches(all); err != nil {
		t.Fatal(err)
	}
	if !follower.Equal(h.c.Image()) || follower.NextProducerID() != 2000 {
		t.Fatalf("follower:\n%scontroller:\n%s", follower, h.c.Image())
	}
	for name, rec := range map[string]ProducerIDsRecord{
		"going back":     {BrokerID: NoLeader, BrokerEpoch: -1, NextProducerID: 1500},
		"standing still": {BrokerID: NoLeader, BrokerEpoch: -1, NextProducerID: 2000},
		"broker id -2":   {BrokerID: -2, BrokerEpoch: -1, NextProducerID: 3000},
		"epoch -2":       {BrokerID: 1, BrokerEpoch: -2, NextProducerID: 3000},
	} {
		im := follower.Clone()
		before := im.String()
		if err := im.Apply(rec); !errors.Is(err, ErrInvariant) || im.String() != before {
			t.Errorf("%s: Apply(%+v) = %v; want ErrInvariant and no change", name, rec, err)
		}
	}
	if err := follower.Apply(ProducerIDsRecord{BrokerID: 1, BrokerEpoch: 0, NextProducerID: 5000}); err != nil {
		t.Fatalf("a block for a broker: %v", err)
	}
}

// Refusals: a failed controller answers NOT_CONTROLLER; ids that would
// reach math.MaxInt64 are UNKNOWN_SERVER_ERROR, as KRaft answers.
func TestInitProducerIDRefusals(t *testing.T) {
	h := newHarness(t, Config{})
	h.store.failAppends = 1
	r := h.c.InitProducerID(wire.InitProducerIDRequest{ProducerID: -1, ProducerEpoch: -1}, h.now)
	if r.ErrorCode != wire.CodeNotController || r.ProducerID != wire.NoProducerID || r.ProducerEpoch != wire.NoProducerEpoch {
		t.Fatalf("on a failing store: %+v, want NOT_CONTROLLER and no id", r)
	}
	if r := h.c.InitProducerID(wire.InitProducerIDRequest{}, h.now); r.ErrorCode != wire.CodeNotController {
		t.Fatalf("a failed controller: %+v", r)
	}

	// A metadata log whose last block ends near the top of int64.
	store := &memStore{}
	rec, _ := ProducerIDsRecord{BrokerID: NoLeader, BrokerEpoch: -1, NextProducerID: math.MaxInt64 - 1500}.AppendTo(nil)
	batch, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: []log.Record{{Value: rec}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Append(batch); err != nil {
		t.Fatal(err)
	}
	c, err := Open(store, Config{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	r = c.InitProducerID(wire.InitProducerIDRequest{}, 0)
	if r.ErrorCode != wire.CodeNone || r.ProducerID != math.MaxInt64-1500 {
		t.Fatalf("the last block that fits: %+v", r)
	}
	for range ProducerIDBlockSize - 1 {
		c.InitProducerID(wire.InitProducerIDRequest{}, 0)
	}
	r = c.InitProducerID(wire.InitProducerIDRequest{}, 0)
	if r.ErrorCode != wire.CodeUnknownServerError || r.ProducerID != wire.NoProducerID {
		t.Fatalf("past the last block: %+v, want UNKNOWN_SERVER_ERROR", r)
	}
	if c.Failed() != nil {
		t.Fatalf("exhausted ids failed the controller: %v", c.Failed())
	}
}
