package server_test

import (
	"sync"

	"github.com/kaenlog/kaenlog/replica"
)

// recorder wraps a broker and records what the host tells it and what it
// answers: the Disconnected calls, and the correlation ids of the responses
// its outbox held, in the order the broker gave them.
type recorder struct {
	*replica.Broker

	mu           sync.Mutex
	disconnected []replica.Addr
	answered     []int32
}

// Disconnected records the call and passes it on to the broker if it has
// the method.
func (r *recorder) Disconnected(peer replica.Addr, nowMs int64) {
	r.mu.Lock()
	r.disconnected = append(r.disconnected, peer)
	r.mu.Unlock()
	if d, ok := any(r.Broker).(interface{ Disconnected(replica.Addr, int64) }); ok {
		d.Disconnected(peer, nowMs)
	}
}

// Outbox records the responses and passes everything on.
func (r *recorder) Outbox() []replica.Envelope {
	out := r.Broker.Outbox()
	r.mu.Lock()
	for _, env := range out {
		if env.Response {
			r.answered = append(r.answered, env.Msg.Correlation())
		}
	}
	r.mu.Unlock()
	return out
}

// wasDisconnected reports whether the broker was told of a broken
// connection with a peer that match accepts.
func (r *recorder) wasDisconnected(match func(replica.Addr) bool) bool {
	return r.disconnects(match) > 0
}

// disconnects counts the broken connections the broker was told of with
// peers that match accepts.
func (r *recorder) disconnects(match func(replica.Addr) bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, a := range r.disconnected {
		if match(a) {
			n++
		}
	}
	return n
}

// hasAnswered reports whether the broker has answered correlation id corr
// (on any connection).
func (r *recorder) hasAnswered(corr int32) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.answered {
		if c == corr {
			return true
		}
	}
	return false
}

func record(b *replica.Broker) replica.Node { return &recorder{Broker: b} }
