package server_test

import (
	"sync"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// recorder wraps a broker and records what the host tells it and what it
// answers: the Disconnected calls, and the correlation ids of the responses
// its outbox held, in the order the broker gave them.
type recorder struct {
	*replica.Broker

	mu           sync.Mutex
	disconnected []replica.Addr
	answered     []answer
	received     []received
}

// answer is a response the broker gave: to whom, under which id.
type answer struct {
	to   replica.Addr
	corr int32
}

// received is a request as the broker saw it: the host gives each one a
// correlation id of its own.
type received struct {
	from replica.Addr
	key  wire.APIKey
	corr int32
	acks int16 // a produce's
}

// Receive records the requests from clients and passes everything on.
func (r *recorder) Receive(env replica.Envelope, nowMs int64) {
	if !env.Response && env.From.Kind == replica.ClientAddr {
		rc := received{from: env.From, key: env.Msg.APIKey(), corr: env.Msg.Correlation()}
		if p, ok := env.Msg.(*wire.ProduceRequest); ok {
			rc.acks = p.Acks
		}
		r.mu.Lock()
		r.received = append(r.received, rc)
		r.mu.Unlock()
	}
	r.Broker.Receive(env, nowMs)
}

// requestsFromLastAcksAll returns the connection that sent the last
// acks=all produce and the correlation ids the broker saw for its
// requests, in order, from that produce on.
func (r *recorder) requestsFromLastAcksAll() (replica.Addr, []int32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := -1
	for i, rc := range r.received {
		if rc.key == wire.APIProduce && rc.acks == wire.AcksAll {
			at = i
		}
	}
	if at < 0 {
		return replica.Addr{}, nil
	}
	var corrs []int32
	for _, rc := range r.received[at:] {
		if rc.from == r.received[at].from {
			corrs = append(corrs, rc.corr)
		}
	}
	return r.received[at].from, corrs
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
			r.answered = append(r.answered, answer{env.To, env.Msg.Correlation()})
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
// (an id the host gave the request, see received) to client.
func (r *recorder) hasAnswered(client replica.Addr, corr int32) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.answered {
		if a.to == client && a.corr == corr {
			return true
		}
	}
	return false
}

func record(b *replica.Broker) replica.Node { return &recorder{Broker: b} }
