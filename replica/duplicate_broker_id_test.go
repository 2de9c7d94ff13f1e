package replica_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/metaprops"
	"github.com/kaenlog/kaenlog/wire"
)

// registration returns the registration request in b's outbox.
func registration(t *testing.T, b *replica.Broker) *wire.BrokerRegistrationRequest {
	t.Helper()
	for _, env := range b.Outbox() {
		if m, ok := env.Msg.(*wire.BrokerRegistrationRequest); ok {
			return m
		}
	}
	t.Fatal("no registration in the outbox")
	return nil
}

// A broker refused as a duplicate says so, and asks again after Kafka's
// backoff (100 ms, doubling); once registered it learns its cluster and
// stamps it in its directory.
func TestARefusedDuplicateRegistrationIsReportedAndRetriedWithBackoff(t *testing.T) {
	dir := t.TempDir()
	b, err := replica.OpenBroker(replica.BrokerConfig{ID: 3, Dir: dir, Endpoint: "b3", IncarnationID: [16]byte{1}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	now := int64(0)
	for i, wait := range []int64{100, 200, 400} {
		req := registration(t, b)
		b.Receive(replica.Envelope{From: replica.ControllerAt(), To: replica.BrokerAt(3), Response: true,
			Msg: &wire.BrokerRegistrationResponse{CorrelationID: req.CorrelationID, ErrorCode: wire.CodeDuplicateBrokerRegistration, BrokerEpoch: wire.NoBrokerEpoch}}, now)
		err := b.RegistrationRefused()
		if !errors.Is(err, wire.ErrDuplicateBrokerRegistration) || !strings.Contains(err.Error(), "another incarnation of broker 3") {
			t.Fatalf("refusal %d: RegistrationRefused = %v", i+1, err)
		}
		if next := b.NextTickMs(); next != now+wait {
			t.Fatalf("refusal %d: next try at %d, want %d", i+1, next, now+wait)
		}
		now += wait
		b.Tick(now)
	}
	req := registration(t, b)
	if req.ClusterID != "" {
		t.Fatalf("a broker of no cluster yet sent cluster id %q", req.ClusterID)
	}
	b.Receive(replica.Envelope{From: replica.ControllerAt(), To: replica.BrokerAt(3), Response: true,
		Msg: &wire.BrokerRegistrationResponse{CorrelationID: req.CorrelationID, BrokerEpoch: 5, ClusterID: "c1"}}, now)
	if err := b.RegistrationRefused(); err != nil || b.Epoch() != 5 || b.ClusterID() != "c1" {
		t.Fatalf("after the registration: refused %v, epoch %d, cluster %q", err, b.Epoch(), b.ClusterID())
	}
	if stamp, ok, err := metaprops.Read(vfs.OS(), dir); err != nil || !ok || stamp != (metaprops.Properties{ClusterID: "c1", NodeID: 3, Role: metaprops.RoleBroker}) {
		t.Fatalf("stamp %v, %t, %v", stamp, ok, err)
	}
}

// A broker opened with another id than its directory's stamp, or another
// cluster, is refused before it touches anything, the error naming both.
func TestABrokerOnAnotherNodesDirectoryRefusesToOpen(t *testing.T) {
	dir := t.TempDir()
	cfg := replica.BrokerConfig{ID: 3, Dir: dir, Endpoint: "b3", IncarnationID: [16]byte{1}, ClusterID: "c1"}
	b, err := replica.OpenBroker(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	cfg.ID = 9
	if _, err := replica.OpenBroker(cfg, 0); !errors.Is(err, metaprops.ErrInconsistentNode) ||
		!strings.Contains(err.Error(), "broker 3") || !strings.Contains(err.Error(), "broker 9") {
		t.Fatalf("-id 9 on broker 3's directory: %v", err)
	}
	cfg.ID, cfg.ClusterID = 3, "c2"
	if _, err := replica.OpenBroker(cfg, 0); !errors.Is(err, metaprops.ErrInconsistentClusterID) || wire.CodeOf(err) != wire.CodeInconsistentClusterID {
		t.Fatalf("cluster c2 on cluster c1's directory: %v", err)
	}
}
