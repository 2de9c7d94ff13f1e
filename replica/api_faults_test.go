package replica_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// One API's faults replace every link's for its messages alone: with
// AlterPartition answers lost, the metadata on the same link still
// arrives, until ClearAPIFaults gives them the link's faults back. A cut
// link still loses everything.
func TestAPIFaultsApplyToThatAPIAlone(t *testing.T) {
	clk := clock.NewManual(t0)
	n := replica.NewNetwork(clk, 1)
	to, from := replica.BrokerAt(1), replica.ControllerAt()
	got := map[wire.APIKey]int{}
	n.Attach(to, func(env replica.Envelope) { got[env.Msg.APIKey()]++ })
	send := func() {
		n.Send(replica.Envelope{From: from, To: to, Response: true, Msg: &wire.AlterPartitionResponse{CorrelationID: 1}})
		n.Send(replica.Envelope{From: from, To: to, Response: true, Msg: &wire.BrokerHeartbeatResponse{CorrelationID: 2}})
		clk.Advance(1)
	}
	n.SetAPIFaults(wire.APIAlterPartition, replica.LinkFaults{DropRate: 1})
	send()
	if got[wire.APIAlterPartition] != 0 || got[wire.APIBrokerHeartbeat] != 1 {
		t.Fatalf("with AlterPartition lost: got %v, want only the heartbeat answer", got)
	}
	n.ClearAPIFaults(wire.APIAlterPartition)
	send()
	if got[wire.APIAlterPartition] != 1 || got[wire.APIBrokerHeartbeat] != 2 {
		t.Fatalf("after ClearAPIFaults: got %v, want both", got)
	}
	n.SetAPIFaults(wire.APIAlterPartition, replica.LinkFaults{})
	n.Cut(from, to)
	send()
	if got[wire.APIAlterPartition] != 1 {
		t.Fatal("an AlterPartition answer crossed a cut link")
	}
}
