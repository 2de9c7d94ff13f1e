package replica_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A broker in controlled shutdown asks at once, then heartbeats on its
// schedule while the controller moves its leadership away (Kafka's
// BrokerLifecycleManager: the first WantShutDown heartbeat immediately, the
// next ones on a timer: 50 ms, then every heartbeat interval). Answering every
// "not yet" with another heartbeat at once is a hot loop against the
// controller — and on a manual clock it never lets time pass, so the
// shutdown, which waits for the other brokers' heartbeats, never
// completes.
func TestControlledShutdownHeartbeatsOnSchedule(t *testing.T) {
	now := t0
	b, err := replica.OpenBroker(replica.BrokerConfig{ID: 1, Dir: "/b1", IncarnationID: [16]byte{1},
		Replica: replica.Options{Log: log.Options{FS: vfs.NewMem()}}}, now)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	answer := func(m wire.Message) {
		b.Receive(replica.Envelope{From: replica.ControllerAt(), To: replica.BrokerAt(1), Response: true, Msg: m}, now)
	}
	// heartbeats returns the heartbeats in the outbox.
	heartbeats := func() []*wire.BrokerHeartbeatRequest {
		var out []*wire.BrokerHeartbeatRequest
		for _, env := range b.Outbox() {
			switch m := env.Msg.(type) {
			case *wire.BrokerRegistrationRequest:
				answer(&wire.BrokerRegistrationResponse{CorrelationID: m.CorrelationID, BrokerEpoch: 5})
			case *wire.BrokerHeartbeatRequest:
				out = append(out, m)
			}
		}
		return out
	}
	heartbeats() // registers: the first heartbeat is in the next outbox
	hb := heartbeats()
	if len(hb) != 1 {
		t.Fatalf("%d heartbeats after registering, want 1", len(hb))
	}
	answer(&wire.BrokerHeartbeatResponse{CorrelationID: hb[0].CorrelationID})
	heartbeats()

	b.BeginShutdown()
	now += 10
	b.Tick(now)
	hb = heartbeats()
	if len(hb) != 1 || !hb[0].WantShutDown {
		t.Fatalf("controlled shutdown began: %d heartbeats %+v, want one asking to shut down", len(hb), hb)
	}
	for range 5 {
		answer(&wire.BrokerHeartbeatResponse{CorrelationID: hb[0].CorrelationID}) // not yet
		if again := heartbeats(); len(again) != 0 {
			t.Fatalf("a heartbeat answered \"not yet\" at %d was followed by another at the same instant", now-t0)
		}
		hb = nil
		for range 10 {
			next := b.NextTickMs()
			if next <= now {
				t.Fatalf("next tick at %d, now %d", next, now)
			}
			now = next
			b.Tick(now)
			if hb = heartbeats(); len(hb) > 0 {
				break
			}
		}
		if len(hb) != 1 || !hb[0].WantShutDown {
			t.Fatalf("at %d: %d heartbeats %+v, want the next one asking to shut down", now-t0, len(hb), hb)
		}
	}
}

// A leader's controlled shutdown completes: the controller moves its
// leadership to another ISR member, and once every other broker has seen
// that, lets it go.
func TestControlledShutdownCompletes(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 1, a, b, cc)
	produce(t, c, wire.AcksAll, "x")
	leader := c.LeaderOf(topic)
	c.Broker(leader).BeginShutdown()
	if err := c.Await(func() bool { return c.Broker(leader).ShutdownReady() }, 30_000); err != nil {
		t.Fatalf("controlled shutdown of the leader did not complete: %v", err)
	}
	if l := c.LeaderOf(topic); l == leader || l < 0 {
		t.Fatalf("leader %d after the controlled shutdown of %d", l, leader)
	}
	if err := c.StopBroker(leader); err != nil {
		t.Fatal(err)
	}
	produce(t, c, wire.AcksAll, "y")
}
