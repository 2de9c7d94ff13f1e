// Package server runs a kaenlog node — a [replica.Broker] or a
// [replica.ControllerNode] — over TCP: the network twin of the in-process
// [replica.Network]. The node stays a pure state machine; a [Host] gives it
// connections, a lock and a clock.
//
//	ln, _ := net.Listen("tcp", ":9092")
//	b, _ := replica.OpenBroker(replica.BrokerConfig{ID: 1, Endpoint: ln.Addr().String(), ...}, clk.NowMs())
//	h, _ := server.Serve(ln, b, server.Config{Clock: clk, Controller: "127.0.0.1:9093"})
//	...
//	err := h.Close() // controlled shutdown, then the broker's clean close
//
// To embed a whole node in a few lines, [StartController] and
// [StartBroker] do the wiring above once: a stamped directory, a random
// incarnation, continuous fetching, the listeners, and
// [Broker.WaitReady], which returns once the broker is registered and
// unfenced (a topic created before that finds too few brokers).
//
// The files, in the order a request meets them:
//
//   - start.go: [StartController], [StartBroker]: a node embedded in a
//     program, as the commands run theirs.
//   - host.go: [Host], [Config], [Serve]: the node lock, the driver, routing
//     and the graceful and hard stops.
//   - conn.go: an accepted connection: reading, per-connection order,
//     muting, writing.
//   - codec.go: the seam between bytes and wire values.
//   - budget.go, pool.go: the memory budget of accepted connections and
//     the pooled buffers it counts.
//   - listener.go: [Listener], [Codec]: further listeners with protocols
//     of their own.
//   - idle.go, deadline.go: closing accepted connections left idle, and
//     those whose client does not read its responses.
//   - dial.go: the host's own connections to its peers: lanes, dialling,
//     backoff, responses matched to requests.
//
// # The node lock
//
// One mutex guards the node. A connection's goroutine reads a frame
// (through a bufio.Reader, [wire.ReadFrame] bounded by
// Config.MaxFrameSize, [wire.DefaultMaxFrameSize] by default, checked
// before anything is allocated), checks and decodes it, all outside the
// lock; then, under it, the node's Receive runs at the clock's nowMs, the
// outbox is routed and the node's [clock.Driver] is kicked, so a deadline
// the message brought forward (a parked produce's timeout) is scheduled.
// The driver calls the node's Tick at its NextTickMs on the injected
// [clock.Clock], under the same lock. The host never reads any other
// clock: the commands hand it the wall clock of examples/wallclock, tests
// may hand it any.
//
// One fsync runs outside the lock: after an event that left a broker's
// log with rolled segments not yet on disk
// ([replica.Broker.RolledUnflushedLogs]), the host's flush goroutine calls
// [log.Log.FlushRolled] on each such log, as Kafka's scheduler flushes a
// segment after it rolls, so that fsyncing a full segment stalls neither
// the node nor the log's appends. A failed fsync fails the log; the
// goroutine then ticks the node, which halts.
//
// # Routing
//
// An accepted connection is the node's replica.ClientAt(n), n a
// connection counter, whoever is on the other side (a client, a follower
// fetching, a broker talking to the controller): responses to ClientAt(n)
// go back on connection n. Requests the node sends to BrokerAt(id) or
// ControllerAt() go on connections the host dials: the controller's
// address is Config.Controller, a broker's is the endpoint it registered,
// read from the node's metadata image ([replica.Broker.Image]) under the
// lock; Config.Resolve may answer first. A response on such a connection
// is decoded by the API key of the request with its correlation id, and
// delivered as Envelope{From: peer, Response: true}. Peers answer in
// order, so a response that does not answer the oldest request in flight
// breaks the connection.
//
// A node's requests to one peer use two connections, lanes: fetches, which
// the peer may park for their MaxWaitMs, on one, everything else on the
// other, so that a heartbeat never waits behind a parked fetch of the
// metadata log (Kafka's brokers keep separate channels for the same
// reason).
//
// # Per-connection order and muting
//
// Requests on one connection are answered in the order they arrived,
// Kafka's rule, which Kafka clients depend on. The host reads up to
// Config.MaxInFlight requests of a connection ahead of their responses
// (default [DefaultMaxInFlight]) and delivers each to the node as it
// arrives; a response the node gives out of order (a fetch answered while
// an acks=all produce before it waits for its commit) waits for the ones
// before it. With MaxInFlight requests waiting the connection is muted:
// nothing more is read from it until the oldest response is written, so a
// client that does not read its responses stops itself, not the host.
// MaxInFlight 1 is Kafka's server exactly (muted from a request until its
// response is out). So one connection parks at most MaxInFlight requests in
// the node (fetches waiting for data, acks=all produces waiting for their
// commit): a client that sends more long polls is not dropped, only no
// longer read until an answer is written. An acks=0 produce has no response and takes no place
// in the order; when the node refuses one it asks for the connection to
// be closed ([replica.Envelope].Close), and the host closes it once the
// requests read before it are answered and their answers written, and
// handles none read after it. Kafka's broker handles one request of a
// connection at a time, so nothing is pending when it closes one; closing
// at once here would drop answers already decided (an acks=1 produce
// appended, which its client would then resend: a duplicate). A close
// for a request that did not decode (next section) waits the same way; a
// length prefix over the limit or negative, or a request the node does
// not serve, closes at once (the connection's framing or peer cannot be
// trusted further).
//
// A request's place (its slot) holds the frame's bytes and the values it
// decodes into (produce and fetch decode with [wire.DecodeProduceRequestInto]
// and [wire.DecodeFetchRequestInto]); its buffer goes back to its pool
// only after the response is written, so a node may keep a request it
// parked until it answers it.
//
// # Writes
//
// Every frame leaves whole in one write, and nothing is written that could
// wait with the node lock held, so a slow reader never stalls the node.
// A response is framed under the lock as pieces for one vectored write
// ([wire.AppendFrameBuffers] into net.Buffers: the fixed fields encoded,
// a fetch response's records by reference). A broker's fetch-response
// records alias its fetch buffers only until its next event, so they
// leave before the lock does, one of two ways:
//
//   - the fast path: when the response is first in its connection's order
//     and the connection's writer goroutine is idle, the node's goroutine
//     writes it at once, header and records in one writev on the
//     non-blocking socket (what the socket buffer takes; on Linux). No
//     record is copied and no goroutine is woken: most responses leave
//     this way, in the same call that produced them;
//   - otherwise, or for what the socket did not take, the bytes are copied
//     into pooled 16 KiB chunks, counted against the memory budget until
//     they are written, and the writer goroutine sends every frame ready
//     at the head of the order together, in one writev.
//
// Requests to peers are framed into the connection's buffer and leave the
// same two ways.
//
// # Memory a client can pin
//
// What the host holds for an accepted connection is counted: a request
// frame from its length prefix (a frame read in part counts whole) until
// its response is written, and what the socket did not take of a
// response until it is written. A connection may hold
// Config.MaxConnectionHeldBytes ([DefaultMaxConnectionHeldBytes], 32 MiB),
// and all together, beyond 16 KiB free to each (its read buffer's size),
// Config.MaxHeldBytes ([DefaultMaxHeldBytes], 256 MiB: Kafka's
// queued.max.request.bytes, but counting responses too and finite by
// default). So the heap they take stays under the budget plus a small
// constant per connection, and a client of small requests is never
// stopped by others that spent the budget.
//
// When a frame does not fit, its payload is not read (its length prefix
// was): the socket is left unread, back-pressure on that client alone,
// rather than buffering it or failing another. Readers waiting for the
// shared budget are served in arrival order. Two rules keep this from
// deadlocking: nothing a request needs to be answered waits for the
// budget (responses are charged as they are, with the node lock held, and
// a connection's requests in flight finish whatever it holds), and a
// frame larger than what is left is still read once nothing else is
// held — of the connection, for a frame over its bound; of the host, for
// one over the whole budget (Kafka's memory pool admits one oversized
// request the same way). Every byte held is given back within a bound:
// a request's wait is clamped (below), a response left unread closes its
// connection after Config.WriteTimeoutMs ([DefaultWriteTimeoutMs], Kafka's
// request.timeout.ms; Kafka's socket has no write deadline), and a frame
// never finished leaves with its idle connection.
//
// A fetch response's records are bounded when the broker reads them: the
// host is the broker's [replica.FetchBudget], which grants each response
// what its connection may still hold and what is free of the shared
// budget (nothing owed to a waiting reader); a response granted less
// carries only whole batches within the grant. A follower's fetch is the
// exception: granted anything, it carries its first batch whole, so that
// clients spending the budget hold back clients but never replication
// (followers fetch on this listener; a follower given only its free
// allowance while a producer's batch larger than that is appended would
// never catch up, and the ISR of every partition led here would shrink).
// That is one batch beyond the grant per follower fetch. A grant is held
// until the response is framed, then what the socket did not take is
// counted.
//
// The node may park a request for at most Config.MaxRequestWaitMs
// ([DefaultMaxRequestWaitMs], 30 s): a fetch's MaxWaitMs and a produce's
// TimeoutMs are clamped before the node sees them. In Kafka both are the
// client's (fetch.max.wait.ms, the producer's timeout) and the broker
// honours any value; here one client cannot hold a request, and its
// memory, for 24 days.
//
// Buffers are drawn from pools shared by all connections and given back
// when the response is written; one grown for a large frame is not kept
// by its connection, so an idle connection holds its 16 KiB read buffer
// and little more.
//
// # Refusals
//
// A frame whose header is readable but whose body does not decode is
// answered as Kafka answers it: the response of its API key with
// INVALID_REQUEST (or UNSUPPORTED_VERSION) where the response has a
// top-level error code, empty otherwise, in its place in the order; the
// connection stays open. A produce is the exception when it said acks=0,
// or when its acks cannot be read ([wire.PeekProduceAcks]): an acks=0
// produce is never answered, so the connection is closed instead, as for
// an acks=0 produce the node refuses; where acks are unreadable, closing
// is the one answer right for both kinds of client (Kafka closes the
// connection on every request it cannot parse). A frame whose header is
// unreadable or names an unknown API, a length prefix over the limit or
// negative, or a request the node does not serve (a broker is not the
// controller) closes the connection. A response finds its request by an id the host gave it, not
// by the client's correlation id, which the response carries back: a
// client may repeat an id, and is answered in order as Kafka's broker
// answers it.
//
// # Connection loss
//
// When a connection breaks, the node is told through its optional method
// Disconnected(peer replica.Addr, nowMs int64): a broker then forgets what
// it sent to that peer (so it sends it again at once instead of after its
// request timeout) and drops what it parked for it. For an accepted
// connection the peer is ClientAt(n); for a dialled one, the broker or the
// controller. A dialled connection that breaks is dialled again at the
// next request; a dial that fails drops what was queued on it, tells the
// node, and the next dial waits a backoff on the host's clock
// (Config.ReconnectBackoffMs doubling to Config.ReconnectBackoffMaxMs, as
// Kafka's reconnect.backoff.ms).
//
// # Idle connections
//
// An accepted connection idle for Config.ConnectionsMaxIdleMs (Kafka's
// connections.max.idle.ms, [DefaultConnectionsMaxIdleMs]: 10 minutes) on
// the host's clock is closed, as Kafka's Selector closes it, so that a
// client gone without a word does not keep its socket. Idle means no
// request read and no response handed to it for that long, no write under
// way, and none of its requests within the wait it may be parked for: a
// parked fetch counts as activity until its clamped MaxWaitMs ends, not
// longer. One timer sweeps, only while there are connections; a negative
// bound turns it off. The host's own connections to its peers are not
// swept, nor bounded by the memory budget.
//
// # Stopping
//
// [Host.Close] stops accepting and, for a broker, runs the controlled
// shutdown ([replica.Broker.BeginShutdown], then waiting for
// [replica.Broker.ShutdownReady] at most Config.ShutdownTimeoutMs on the
// host's clock) so that its leaderships move before it goes; then it
// closes every connection and the broker ([replica.Broker.Close]: logs
// closed cleanly, checkpoints and the clean-shutdown marker written).
// [Host.Kill] is the hard stop tests use: no shutdown, no marker.
//
// # A second listener
//
// The node never sees frames: it is handed wire values and returns wire
// values. The bytes are one small seam, the codec in codec.go, and the
// host's kaenlog codec is one implementation. Config.Listeners puts
// further listeners on the same Host, each on its own port with its own
// exported [Codec] (listener.go): replica/kafka's speaks Kafka's protocol,
// decoding Kafka's request headers and bodies into the same wire structs
// (their fields follow Kafka's JSON schemas for that reason) and encoding
// responses in the version each request came with ([Request].State). A
// codec may answer a request by itself, without the node ([Answer]:
// Kafka's ApiVersions). Order, muting, limits, routing, the node lock and
// the outbound connections stay as they are: peers keep talking kaenlog's
// protocol to each other on the first listener. TLS and authentication
// per listener have their place documented on [Listener]; neither exists
// yet.
//
// # Group APIs
//
// A broker's group coordinators take a [replica.GroupRequest] whose body
// is replica/group's message, with Go errors; every listener translates
// its protocol into it and the answer back. The kaenlog codec does so in
// groups.go, for wire's own group messages (FindCoordinator, JoinGroup,
// SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, one group
// per request; ListGroups, DescribeGroups, DeleteGroups, OffsetDelete;
// errors as codes: wire imports nothing of the broker's), so
// kaenlog's client and a Kafka client reach the same coordinator and can
// be members of one group. A JoinGroup on kaenlog's protocol always
// requires a known member id (KIP-394), as Kafka's JoinGroup v4+.
package server
