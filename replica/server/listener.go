package server

import (
	"errors"
	"fmt"
	"net"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// Listener is a further listener of a Host (Config.Listeners): its own
// port and its own protocol, the same node. Its connections are the
// node's clients as the first listener's are (replica.ClientAt, numbered
// together), read, ordered, muted, bounded (MaxInFlight, MaxFrameSize)
// and swept when idle by the same rules, and delivered under the same
// node lock; Close and Kill close it with the first. Peers keep talking
// kaenlog's protocol to each other on the first listener: a further
// listener is for clients.
//
// Transport security and authentication, per listener as Kafka's
// listener.security.protocol.map has them, belong here when they come: a
// *tls.Config wrapping the accepted connections, and an authenticator the
// codec consults before it lets a connection's first request through
// (SASL's handshake is requests of its own). Neither exists yet: a
// Listener is plaintext and unauthenticated, so bind it where only
// trusted clients reach it.
type Listener struct {
	// Listener accepts the connections. The host owns it from Serve on.
	Listener net.Listener
	// Codec is the listener's protocol. Required.
	Codec Codec
}

// Codec is a listener's protocol: the seam between the bytes of an
// accepted connection and the node, exported so that a module of its own
// can put another protocol on a second port of the same Host (replica/kafka
// speaks Kafka's). A codec turns a frame's payload into a request the node
// serves (a wire value), and the node's response into a frame; everything
// else — reading frames with the MaxFrameSize bound, the per-connection
// order, muting, the node lock, routing — stays the host's and is the same
// for every codec. Frames are int32-length-prefixed in kaenlog's protocol
// and in Kafka's alike.
//
// One codec serves every connection of its listener, from their
// goroutines at once. Decode and Refuse run outside the node lock, so they
// must not touch the node; Answered and Frame run with the node lock held,
// so Frame may read the node's state (a broker's metadata image) to fill
// in what the wire value does not carry.
type Codec interface {
	// Decode decodes payload, a frame without its length prefix, into a
	// request the node serves: r.Produce or r.Fetch (reused from request
	// to request, the hot path) or a new value of a type
	// wire.SetCorrelation knows, or a *replica.GroupRequest (a broker's
	// group coordinators answer it with a *replica.GroupResponse, which
	// the codec frames). What the response will need to know of
	// the request (the version it came with) goes in r.State. An error
	// sends the request to Refuse instead of to the node.
	Decode(payload []byte, r *Request) (wire.Message, error)
	// Refuse returns the answer to a request Decode failed on with err,
	// given in its place in the connection's order without reaching the
	// node: a refusal, or an answer the codec gives by itself (Kafka's
	// ApiVersions), as a wire response or an *Answer. ok false closes the
	// connection instead, after the answers to the requests before it.
	Refuse(payload []byte, r *Request, err error) (m wire.Message, ok bool)
	// Answered reports whether the request m gets a response at all (an
	// acks=0 produce does not, and takes no place in the order).
	Answered(m wire.Message) bool
	// Frame appends m, the response to the request r, framed (length
	// prefix first), to pieces for one vectored write: fixed bytes encoded
	// into scratch, records by reference or copied into scratch. The
	// pieces are written, or copied, before the node lock is released.
	// An error closes the connection.
	Frame(pieces net.Buffers, scratch []byte, r *Request, m wire.Message) (net.Buffers, []byte, error)
}

// Request is one request's place on its connection as a Codec sees it. It
// lives from the frame's read until its response is written, then serves a
// later request of the same connection; the node may keep the request it
// was decoded into (a parked fetch, a produce's records aliasing the
// payload) until it answers.
type Request struct {
	// Produce is the place's own produce request, for Decode to decode
	// the hot path's produces into without allocating.
	Produce *wire.ProduceRequest
	// Fetch is the place's own fetch request, likewise.
	Fetch *wire.FetchRequest
	// State is the codec's own, from Decode to Frame: the host never reads
	// it, and leaves it as it was when the place is reused, so a codec may
	// reuse what it holds.
	State any
}

// Answer is a response a Codec gives by itself, for a request the node
// never sees (Refuse's result): the host puts it in the request's place
// in the order, and hands it back to the codec's Frame.
type Answer struct {
	// Key is the request's API key, as the host orders responses by it.
	Key wire.APIKey
	// CorrelationID is the host's for the request; the host sets it.
	CorrelationID int32
	// Body is the codec's own.
	Body any
}

// APIKey returns a.Key.
func (a *Answer) APIKey() wire.APIKey { return a.Key }

// Correlation returns a.CorrelationID.
func (a *Answer) Correlation() int32 { return a.CorrelationID }

// errAnswerEncoded is AppendTo's refusal: an Answer is only its codec's to
// frame.
var errAnswerEncoded = errors.New("server: an Answer is framed by its codec, not encoded")

// AppendTo refuses: an Answer is framed by the codec that made it.
func (a *Answer) AppendTo(dst []byte) ([]byte, error) { return dst, errAnswerEncoded }

// setCorrelation is wire.SetCorrelation, and an Answer's and a broker's
// group messages'.
func setCorrelation(m wire.Message, corr int32) bool {
	if a, ok := m.(*Answer); ok {
		a.CorrelationID = corr
		return true
	}
	switch g := m.(type) { // a broker's group requests, which only a codec makes
	case *replica.GroupRequest:
		g.CorrelationID = corr
		return true
	case *replica.GroupResponse:
		g.CorrelationID = corr
		return true
	}
	return wire.SetCorrelation(m, corr)
}

// codecAdapter puts an exported Codec behind the host's codec seam.
type codecAdapter struct{ c Codec }

func (a codecAdapter) view(s *slot) *Request {
	s.codecReq.Produce, s.codecReq.Fetch = &s.produce, &s.fetch
	return &s.codecReq
}

func (a codecAdapter) decodeRequest(s *slot) (wire.Message, error) {
	return a.c.Decode(s.buf, a.view(s))
}

func (a codecAdapter) refuse(s *slot, err error) (wire.Message, bool) {
	return a.c.Refuse(s.buf, a.view(s), err)
}

func (a codecAdapter) answered(m wire.Message) bool { return a.c.Answered(m) }

func (a codecAdapter) frameResponse(pieces net.Buffers, scratch []byte, s *slot, m wire.Message) (net.Buffers, []byte, error) {
	return a.c.Frame(pieces, scratch, a.view(s), m)
}

// checkListeners refuses a further listener without a net.Listener or a
// Codec.
func (c Config) checkListeners() error {
	for i, l := range c.Listeners {
		if l.Listener == nil || l.Codec == nil {
			return fmt.Errorf("server: Config.Listeners[%d] needs a Listener and a Codec: %w", i, replica.ErrInvalidConfig)
		}
	}
	return nil
}

// closeListeners stops every listener accepting.
func (h *Host) closeListeners() {
	h.ln.Close()
	for _, l := range h.cfg.Listeners {
		l.Listener.Close()
	}
}
