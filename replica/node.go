package replica

import (
	"fmt"

	"github.com/kaenlog/kaenlog/wire"
)

// AddrKind says what sits at an Addr.
type AddrKind uint8

const (
	// BrokerAddr is a broker, by broker id.
	BrokerAddr AddrKind = iota
	// ControllerAddr is the controller (there is one: the stand-in for a
	// KRaft quorum), by node id.
	ControllerAddr
	// ClientAddr is a producer or consumer, by a number its transport
	// chooses (a connection, an in-process client).
	ClientAddr
)

// Addr names a party a message is from or to.
type Addr struct {
	Kind AddrKind // a broker, the controller or a client
	ID   int32    // the broker id, or the client's number; 0 for the controller
}

// BrokerAt returns the address of broker id.
func BrokerAt(id int32) Addr { return Addr{Kind: BrokerAddr, ID: id} }

// ControllerAt returns the controller's address.
func ControllerAt() Addr { return Addr{Kind: ControllerAddr} }

// ClientAt returns the address of client id.
func ClientAt(id int32) Addr { return Addr{Kind: ClientAddr, ID: id} }

// String returns "broker 1", "controller" or "client 7".
func (a Addr) String() string {
	switch a.Kind {
	case BrokerAddr:
		return fmt.Sprintf("broker %d", a.ID)
	case ControllerAddr:
		return "controller"
	case ClientAddr:
		return fmt.Sprintf("client %d", a.ID)
	}
	return fmt.Sprintf("Addr(%d, %d)", a.Kind, a.ID)
}

// Envelope is one message on its way: a request, or a response to one (its
// correlation id is the request's).
type Envelope struct {
	From, To Addr // sender and receiver
	// Response tells a response from a request: wire's header does not say,
	// the direction of a connection does.
	Response bool
	Msg      wire.Message // the request or response, a Go value
	// Close, with no Msg, asks the transport to close the connection to
	// To, a client, as Kafka's broker does after an acks=0 produce it
	// refused. A transport without connections ignores it.
	Close bool
}

// Node is a state machine that talks: a Broker or a ControllerNode. A
// transport delivers envelopes to Receive, calls Tick when NextTickMs
// arrives (a clock.Driver does), and sends whatever Outbox returns. The
// same nodes run in the in-process Cluster, in the simulator and behind
// the network runtime.
//
// A request delivered to Receive, and the bytes it aliases, stay the
// node's until it answers the request: a broker keeps a parked fetch, and
// sends a parked produce's records to its followers (Broker.Outbox), so a
// transport reuses a request's memory only once its response has been
// sent (or, for a request with no response, once Receive returned and the
// outbox was sent).
type Node interface {
	// Receive handles one envelope addressed to this node at nowMs.
	Receive(env Envelope, nowMs int64)
	// Tick does the node's timed work due at nowMs.
	Tick(nowMs int64)
	// NextTickMs is when Tick next has work (clock.Never if none).
	NextTickMs() int64
	// Outbox returns the envelopes to send, in order, and forgets them.
	Outbox() []Envelope
}
