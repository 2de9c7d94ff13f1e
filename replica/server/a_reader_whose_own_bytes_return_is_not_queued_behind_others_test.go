package server

import (
	"runtime"
	"testing"
	"time"
)

// TestAReaderWhoseOwnBytesReturnIsNotQueuedBehindOthersFrames: a
// connection whose next frame needed shared bytes only because its own
// unsent response still held some (a follower's next fetch read while its
// last fetch response is being written) queues for the shared budget. Once
// that response is written its frame needs nothing shared, so it is let in
// at once, even behind another connection's large frame that waits for
// shared bytes held elsewhere for minutes. It was left in the queue until
// that frame was read, and the follower's acks=all produce timed out
// (TestAFollowerReplicatesWhileClientsHoldTheBudget, flaky by this race).
func TestAReaderWhoseOwnBytesReturnIsNotQueuedBehindOthersFrames(t *testing.T) {
	const limit = 1 << 20
	b := newMemBudget(limit, -1)
	conn := func() *inConn { return &inConn{memWake: make(chan struct{}, 1)} }
	hog, big, follower := conn(), conn(), conn()

	if !b.admit(hog, connectionFreeBytes+limit) { // holds the whole shared budget
		t.Fatal("the first frame was not admitted")
	}
	bigIn := make(chan bool, 1)
	go func() { bigIn <- b.admit(big, connectionFreeBytes+limit/2) }()
	awaitQueued(t, b, 1, "the large frame to queue for the shared budget")

	b.charge(follower, connectionFreeBytes+4096) // an unsent fetch response
	followerIn := make(chan bool, 1)
	go func() { followerIn <- b.admit(follower, 100) }()
	awaitQueued(t, b, 2, "the follower's next frame to queue behind the large one")

	b.release(follower, connectionFreeBytes+4096) // the response is written
	select {
	case ok := <-followerIn:
		if !ok {
			t.Fatal("the follower's frame was refused")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("waited 10 s for the follower's frame, which needs nothing shared once its response is written: it is still queued behind the large frame")
	}
	select {
	case <-bigIn:
		t.Fatal("the large frame was admitted while the shared budget is held")
	default:
	}
	b.release(hog, connectionFreeBytes+limit)
	select {
	case ok := <-bigIn:
		if !ok {
			t.Fatal("the large frame was refused")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("waited 10 s for the large frame once the shared budget was free")
	}
}

// awaitQueued waits until n readers have queued for the shared budget.
func awaitQueued(t *testing.T, b *memBudget, n int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.mu.Lock()
		q := len(b.queue)
		b.mu.Unlock()
		if q >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s (%d queued)", what, q)
		}
		runtime.Gosched() // the readers run on other goroutines; nothing to sleep on
	}
}
