package client

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs the package's tests with checkOrder on, so that every
// test that drives a producer through errors, retries, leader changes
// and epoch bumps also checks what hasRetry relies on: a partition sends
// its batches in order, so no batch to retry follows one never sent.
// Benchmarks run without the check, which walks every batch.
func TestMain(m *testing.M) {
	flag.Parse()
	if b := flag.Lookup("test.bench"); b == nil || b.Value.String() == "" {
		checkOrder = true
	}
	os.Exit(m.Run())
}

// hasRetry looks no further than the first batch never sent; the check
// TestMain turns on catches a partition whose batches break that order.
func TestHasRetryStopsAtTheFirstBatchNeverSent(t *testing.T) {
	sent := &batch{attempts: 1, state: stInFlight}
	retry := &batch{attempts: 1, state: stRetry}
	fresh := &batch{state: stNew}
	for _, c := range []struct {
		batches []*batch
		want    bool
	}{
		{[]*batch{sent, retry, fresh}, true},
		{[]*batch{sent, fresh, fresh}, false},
		{[]*batch{fresh}, false},
		{nil, false},
	} {
		part := &partition{tp: TopicPartition{"t", 0}, batches: c.batches}
		if got := part.hasRetry(); got != c.want {
			t.Errorf("hasRetry of %d batches = %t, want %t", len(c.batches), got, c.want)
		}
	}
	defer func(on bool) { checkOrder = on }(checkOrder)
	checkOrder = true
	defer func() {
		if recover() == nil {
			t.Error("a batch to retry after one never sent went unnoticed")
		}
	}()
	(&partition{tp: TopicPartition{"t", 0}, batches: []*batch{fresh, retry}}).hasRetry()
}
