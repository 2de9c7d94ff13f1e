package replica

import (
	"math/rand/v2"
	"slices"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// LinkFaults is how a link misbehaves. The zero value is a perfect link:
// every message arrives once, at once, in order.
type LinkFaults struct {
	// DropRate is the probability that a message is lost.
	DropRate float64
	// DuplicateRate is the probability that a message arrives twice.
	DuplicateRate float64
	// MinDelayMs and MaxDelayMs bound a message's delay, drawn uniformly;
	// unequal delays reorder messages.
	MinDelayMs, MaxDelayMs int64
}

// Network is an in-memory network between nodes on a Manual clock: every
// message is a timer on that clock, so deliveries interleave with every
// node's timed work in one deterministic order. Faults (loss, duplication,
// delay, reordering, cut links) come from a seeded random source: the same
// seed and the same calls give the same run.
//
// A message crosses it as bytes: it is encoded when sent and decoded when
// delivered, so the sender may reuse its buffers at once and the receiver
// never shares memory with it, as over a socket. A [GroupRequest] or
// [GroupResponse], which is never encoded (each listener translates its
// protocol's group messages to and from it), crosses as the value itself:
// its sender must not change it once sent.
type Network struct {
	clock  *clock.Manual
	rand   *rand.Rand
	nodes  map[Addr]func(Envelope)
	faults map[[2]Addr]LinkFaults
	deflt  LinkFaults
	// api holds the faults of one API's messages on every link, which
	// replace the link's (SetAPIFaults).
	api map[wire.APIKey]LinkFaults
	cut map[[2]Addr]bool
	// gen counts, per address, the Attach and Detach calls: a delivery
	// goes only to the incarnation that was there when it was sent.
	gen map[Addr]uint64
	// inFlight counts scheduled deliveries.
	inFlight int
	// Sent, Dropped and Delivered count messages, for tests and reports.
	Sent, Dropped, Delivered int
}

// NewNetwork returns a perfect network on c whose faults draw from seed.
func NewNetwork(c *clock.Manual, seed uint64) *Network {
	return &Network{
		clock: c, rand: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		nodes: map[Addr]func(Envelope){}, gen: map[Addr]uint64{}, faults: map[[2]Addr]LinkFaults{}, cut: map[[2]Addr]bool{},
		api: map[wire.APIKey]LinkFaults{},
	}
}

// Attach makes deliver receive every envelope addressed to a and sent from
// now on; Detach (a crash) makes them vanish.
func (n *Network) Attach(a Addr, deliver func(Envelope)) {
	n.nodes[a] = deliver
	n.gen[a]++
}

// Detach removes a's receiver: messages to it are lost, those on their way
// included, even if a is attached again before they would arrive — as on a
// connection that died with its process.
func (n *Network) Detach(a Addr) {
	delete(n.nodes, a)
	n.gen[a]++
}

// SetFaults sets the faults of the link from one address to another.
func (n *Network) SetFaults(from, to Addr, f LinkFaults) { n.faults[[2]Addr{from, to}] = f }

// SetDefaultFaults sets the faults of every link without its own.
func (n *Network) SetDefaultFaults(f LinkFaults) { n.deflt = f }

// SetAPIFaults sets the faults of every message of one API, requests and
// responses, on every link: they replace the link's own faults (a cut link
// still loses everything), until ClearAPIFaults. A test makes one
// protocol's answers late or lost this way while the rest flows.
func (n *Network) SetAPIFaults(api wire.APIKey, f LinkFaults) { n.api[api] = f }

// ClearAPIFaults gives api's messages their links' faults again.
func (n *Network) ClearAPIFaults(api wire.APIKey) { delete(n.api, api) }

// Cut stops every message between a and b, both ways, until Heal.
func (n *Network) Cut(a, b Addr) {
	n.cut[[2]Addr{a, b}] = true
	n.cut[[2]Addr{b, a}] = true
}

// Heal restores every cut link.
func (n *Network) Heal() { clear(n.cut) }

// IsCut reports whether messages from a to b are stopped.
func (n *Network) IsCut(a, b Addr) bool { return n.cut[[2]Addr{a, b}] }

// InFlight returns how many deliveries are scheduled.
func (n *Network) InFlight() int { return n.inFlight }

// Send puts env on the network.
func (n *Network) Send(env Envelope) {
	n.Sent++
	if n.cut[[2]Addr{env.From, env.To}] {
		n.Dropped++
		return
	}
	f, ok := n.faults[[2]Addr{env.From, env.To}]
	if !ok {
		f = n.deflt
	}
	if af, ok := n.api[env.Msg.APIKey()]; ok {
		f = af
	}
	if f.DropRate > 0 && n.rand.Float64() < f.DropRate {
		n.Dropped++
		return
	}
	inMemory := crossesAsValue(env.Msg)
	var payload []byte
	if !inMemory {
		var err error
		if payload, err = env.Msg.AppendTo(nil); err != nil {
			n.Dropped++ // a message that cannot be encoded cannot be sent
			return
		}
	}
	copies := 1
	if f.DuplicateRate > 0 && n.rand.Float64() < f.DuplicateRate {
		copies = 2
	}
	for i := range copies {
		payload := payload
		if i > 0 {
			// Each copy its own bytes: a receiver may change what it
			// decoded in place (a leader stamps a produce's batches).
			payload = slices.Clone(payload)
		}
		delay := f.MinDelayMs
		if f.MaxDelayMs > f.MinDelayMs {
			delay += n.rand.Int64N(f.MaxDelayMs - f.MinDelayMs + 1)
		}
		n.inFlight++
		from, to, response, gen := env.From, env.To, env.Response, n.gen[env.To]
		n.clock.AfterFunc(delay, func() {
			n.inFlight--
			if n.gen[to] != gen {
				n.Dropped++ // its destination crashed on the way
				return
			}
			if inMemory {
				n.deliverValue(Envelope{From: from, To: to, Response: response, Msg: env.Msg})
				return
			}
			n.deliver(from, to, response, payload)
		})
	}
}

// deliver decodes and hands over one message, if its destination is still
// there and the link still up.
func (n *Network) deliver(from, to Addr, response bool, payload []byte) {
	receive, ok := n.nodes[to]
	if !ok || n.cut[[2]Addr{from, to}] {
		n.Dropped++
		return
	}
	var msg wire.Message
	var err error
	if response {
		msg, err = wire.DecodeResponse(payload)
	} else {
		msg, err = wire.DecodeRequest(payload)
	}
	if err != nil {
		n.Dropped++
		return
	}
	n.Delivered++
	receive(Envelope{From: from, To: to, Response: response, Msg: msg})
}
