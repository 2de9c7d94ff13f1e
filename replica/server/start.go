package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/metaprops"
)

// This file is the embedding API: a controller or a broker in a Go program
// in a few lines, with the wiring the commands need (a stamped directory,
// a random incarnation, continuous fetching, waiting until the broker is
// unfenced) done once, here. examples/internal/nodecmd runs its nodes
// through it.

// ControllerSpec is what StartController needs. Only Dir and Clock are
// required.
type ControllerSpec struct {
	// Dir is the controller's directory: its metadata log and its stamp
	// (package replica/metaprops). Required.
	Dir string
	// Clock runs the controller's timers (broker sessions) and the host.
	// Required: a program hands it the wall clock (examples/wallclock),
	// a test any clock.
	Clock clock.Clock
	// Listen is the host:port to listen on; "" means 127.0.0.1:0, any free
	// loopback port (Addr tells which).
	Listen string
	// NodeID is the controller's node id, stamped in Dir (0 by default).
	NodeID int32
	// ClusterID is the cluster's id. "" means the one stamped in Dir or,
	// for a new directory, a new random one (kafka-storage random-uuid's
	// form). A directory stamped with another is refused.
	ClusterID string
	// FS is the file system of the metadata log; nil means the OS's.
	FS vfs.FS
	// Controller is the controller's configuration (session timeout,
	// default min ISR...); its ClusterID is set from the stamp.
	Controller controller.Config
	// Host is the host's configuration; its Clock is set from Clock.
	Host Config
}

// Controller is a controller served by a Host, as StartController returns
// it.
type Controller struct {
	*Host
	ctl   *controller.Controller
	store controller.Store
	id    string
}

// StartController opens (or creates) the controller's stamped directory
// and metadata log, replays it, listens and serves: brokers may register
// at Addr as soon as it returns. Its log is fsynced at every append (the
// controller answers only what is durable). Close stops it and closes the
// log.
func StartController(spec ControllerSpec) (*Controller, error) {
	if spec.Dir == "" || spec.Clock == nil {
		return nil, fmt.Errorf("server: StartController needs a Dir and a Clock: %w", replica.ErrInvalidConfig)
	}
	fsys := spec.FS
	if fsys == nil {
		fsys = vfs.OS()
	}
	clusterID := spec.ClusterID
	if clusterID == "" {
		stamp, ok, err := metaprops.Read(fsys, spec.Dir)
		switch {
		case err != nil:
			return nil, err
		case ok:
			clusterID = stamp.ClusterID
		default:
			clusterID = RandomClusterID()
		}
	}
	store, stamp, err := controller.OpenNodeLogStore(spec.Dir, spec.NodeID, clusterID, log.Options{Sync: log.SyncEveryAppend, FS: spec.FS})
	if err != nil {
		return nil, err
	}
	ccfg := spec.Controller
	ccfg.ClusterID = stamp.ClusterID
	ctl, err := controller.Open(store, ccfg, spec.Clock.NowMs())
	if err != nil {
		return nil, errors.Join(err, store.Close())
	}
	ln, err := net.Listen("tcp", listenOrLoopback(spec.Listen))
	if err != nil {
		return nil, errors.Join(err, store.Close())
	}
	hcfg := spec.Host
	hcfg.Clock = spec.Clock
	h, err := Serve(ln, replica.NewControllerNode(ctl), hcfg)
	if err != nil {
		ln.Close()
		return nil, errors.Join(err, store.Close())
	}
	return &Controller{Host: h, ctl: ctl, store: store, id: stamp.ClusterID}, nil
}

// ClusterID is the cluster's id, as stamped in the controller's directory.
func (c *Controller) ClusterID() string { return c.id }

// Failed reports the controller's store failure, if any: a controller
// whose metadata log failed answers nothing more and should be stopped.
func (c *Controller) Failed() error {
	var err error
	c.Do(func(int64) { err = c.ctl.Failed() })
	return err
}

// Close stops serving (see Host.Close), then closes the metadata log.
func (c *Controller) Close() error {
	return errors.Join(c.Host.Close(), c.store.Close())
}

// Kill stops serving at once (see Host.Kill) and closes the metadata log.
// Nothing it answered for is lost: each record was fsynced before.
func (c *Controller) Kill() {
	c.Host.Kill()
	c.store.Close()
}

// BrokerSpec is what StartBroker needs. Only Broker.ID, Broker.Dir,
// Controller and Clock are required. Every file of the broker goes
// through Broker.Replica.Log.FS (nil: the OS's), the seam a test
// injects a simulated power loss through (vfs.NewVolatileCache).
type BrokerSpec struct {
	// Broker is the broker's configuration. StartBroker sets its Endpoint
	// (from Listen, unless set), its KafkaEndpoint (when KafkaCodec is
	// set, unless set), a random IncarnationID (unless set) and always
	// ContinuousFetch: a broker of a running cluster must fetch for its
	// followers, or every acks=all produce ends in NOT_ENOUGH_REPLICAS.
	Broker replica.BrokerConfig
	// Controller is the controller's host:port. Required.
	Controller string
	// Clock runs the broker's timers and the host. Required: a program
	// hands it the wall clock (examples/wallclock), a test any clock.
	Clock clock.Clock
	// Listen is the host:port of kaenlog's listener; "" means 127.0.0.1:0.
	Listen string
	// KafkaListen and KafkaCodec add a Kafka listener (the nested module
	// replica/kafka's codec: kafka.NewCodec). KafkaListen "" means
	// 127.0.0.1:0; a nil KafkaCodec means no Kafka listener.
	KafkaListen string
	KafkaCodec  func(*replica.Broker) Codec
	// Host is the host's configuration; its Clock and Controller are set
	// from this spec, and its Listeners get the Kafka listener. Its
	// OnEvent, if set, is still called.
	Host Config
}

// Broker is a broker served by a Host, as StartBroker returns it.
type Broker struct {
	*Host
	b        *replica.Broker
	kafka    string // "" without a Kafka listener
	changed  chan struct{}
	mu       sync.Mutex
	refusal  error // the last registration refusal (under mu)
	halted   error
	endpoint string
}

// StartBroker opens the broker's data directory (recovering its logs),
// listens and serves it: it registers with the controller at once. It
// returns before the broker is registered; WaitReady waits for that.
// Close is a controlled shutdown, then a clean close of every log.
func StartBroker(spec BrokerSpec) (*Broker, error) {
	if spec.Clock == nil || spec.Controller == "" || spec.Broker.Dir == "" {
		return nil, fmt.Errorf("server: StartBroker needs a Broker.Dir, a Controller and a Clock: %w", replica.ErrInvalidConfig)
	}
	ln, err := net.Listen("tcp", listenOrLoopback(spec.Listen))
	if err != nil {
		return nil, err
	}
	var kln net.Listener
	if spec.KafkaCodec != nil {
		if kln, err = net.Listen("tcp", listenOrLoopback(spec.KafkaListen)); err != nil {
			ln.Close()
			return nil, fmt.Errorf("server: the Kafka listener: %w", err)
		}
	}
	closeAll := func() {
		ln.Close()
		if kln != nil {
			kln.Close()
		}
	}
	cfg := spec.Broker
	if cfg.Endpoint == "" {
		cfg.Endpoint = ListenerAddr(ln)
	}
	if kln != nil && cfg.KafkaEndpoint == "" {
		cfg.KafkaEndpoint = ListenerAddr(kln)
	}
	if cfg.IncarnationID == [16]byte{} {
		rand.Read(cfg.IncarnationID[:])
	}
	cfg.ContinuousFetch = true
	b, err := replica.OpenBroker(cfg, spec.Clock.NowMs())
	if err != nil {
		closeAll()
		return nil, err
	}
	sb := &Broker{b: b, changed: make(chan struct{}, 1), endpoint: cfg.Endpoint}
	hcfg := spec.Host
	hcfg.Clock, hcfg.Controller = spec.Clock, spec.Controller
	if kln != nil {
		hcfg.Listeners = append(append([]Listener(nil), hcfg.Listeners...), Listener{Listener: kln, Codec: spec.KafkaCodec(b)})
		sb.kafka = cfg.KafkaEndpoint
	}
	user := hcfg.OnEvent
	hcfg.OnEvent = func() {
		// Under the node lock: note what WaitReady needs without calling
		// the host, and wake it.
		sb.mu.Lock()
		sb.refusal, sb.halted = b.RegistrationRefused(), b.Halted()
		sb.mu.Unlock()
		select {
		case sb.changed <- struct{}{}:
		default:
		}
		if user != nil {
			user()
		}
	}
	h, err := Serve(ln, b, hcfg)
	if err != nil {
		closeAll()
		return nil, errors.Join(err, b.Close())
	}
	sb.Host = h
	return sb, nil
}

// Node is the broker the host serves. Read it only inside Host.Do.
func (b *Broker) Node() *replica.Broker { return b.b }

// Endpoint is the address the broker registered for kaenlog's protocol.
func (b *Broker) Endpoint() string { return b.endpoint }

// KafkaEndpoint is the address the broker registered for its Kafka
// listener, the one Metadata advertises; ok is false without one.
func (b *Broker) KafkaEndpoint() (addr string, ok bool) { return b.kafka, b.kafka != "" }

// WaitReady waits until the broker is registered and unfenced, so that
// the controller counts it for new topics and elections. It returns the
// broker's halt error if its log failed or the controller refused it for
// good (another cluster), and ctx's error — joined with the last
// registration refusal, if any, such as another live incarnation of the
// same id — when ctx ends first.
func (b *Broker) WaitReady(ctx context.Context) error {
	for {
		var ready bool
		var halted error
		b.Do(func(int64) { ready, halted = !b.b.Fenced(), b.b.Halted() })
		if halted != nil {
			return halted
		}
		if ready {
			return nil
		}
		select {
		case <-b.changed:
		case <-ctx.Done():
			b.mu.Lock()
			refusal := b.refusal
			b.mu.Unlock()
			if refusal != nil {
				return fmt.Errorf("server: broker not ready: %w (last refusal: %w)", ctx.Err(), refusal)
			}
			return fmt.Errorf("server: broker not registered and unfenced: %w", ctx.Err())
		}
	}
}

// Halted is the broker's halt error (a failed log, a controller of
// another cluster), or nil while it runs.
func (b *Broker) Halted() error {
	var err error
	b.Do(func(int64) { err = b.b.Halted() })
	return err
}

// ListenerAddr is ln's address as a peer dials it: 127.0.0.1 for an
// unspecified host (a listener on ":9092").
func ListenerAddr(ln net.Listener) string {
	a, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return ln.Addr().String()
	}
	if a.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(a.Port))
	}
	return a.String()
}

// RandomClusterID returns a new cluster id in kafka-storage random-uuid's
// form: 16 random bytes, base64url without padding.
func RandomClusterID() string {
	var id [16]byte
	rand.Read(id[:])
	return base64.RawURLEncoding.EncodeToString(id[:])
}

func listenOrLoopback(addr string) string {
	if addr == "" {
		return "127.0.0.1:0"
	}
	return addr
}
