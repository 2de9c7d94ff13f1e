package server_test

import (
	"bufio"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// A controller and a broker, each on its own Host over loopback TCP, and
// a client that speaks kaenlog's protocol by hand: it creates a topic at
// the controller, then produces to the broker with acks=all.
func Example() {
	dir, _ := os.MkdirTemp("", "kaenlog-example-")
	defer os.RemoveAll(dir)
	clk := wallclock.New()
	changed := make(chan struct{}, 1)
	onEvent := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}

	// The controller.
	store, _ := controller.OpenLogStore(filepath.Join(dir, "controller"), log.Options{Sync: log.SyncEveryAppend})
	defer store.Close()
	ctl, _ := controller.Open(store, controller.Config{}, clk.NowMs())
	ctlLn, _ := net.Listen("tcp", "127.0.0.1:0")
	ctlHost, _ := server.Serve(ctlLn, replica.NewControllerNode(ctl), server.Config{Clock: clk})
	defer ctlHost.Kill()

	// The broker, a new incarnation: it registers with the controller as
	// soon as it is served.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	cfg := replica.BrokerConfig{ID: 1, Dir: filepath.Join(dir, "broker-1"), Endpoint: ln.Addr().String(), ContinuousFetch: true}
	rand.Read(cfg.IncarnationID[:])
	b, _ := replica.OpenBroker(cfg, clk.NowMs())
	h, _ := server.Serve(ln, b, server.Config{Clock: clk, Controller: ctlLn.Addr().String(), OnEvent: onEvent})
	defer func() { fmt.Println("close:", h.Close()) }()
	awaitBroker := func(cond func() bool) {
		for ok := false; !ok; {
			h.Do(func(int64) { ok = cond() })
			if !ok {
				<-changed
			}
		}
	}
	awaitBroker(func() bool { return !b.Fenced() })

	// The client.
	call := func(addr string, req wire.Message) wire.Message {
		nc, _ := net.Dial("tcp", addr)
		defer nc.Close()
		payload, _ := req.AppendTo(nil)
		frame, _ := wire.AppendFrame(nil, payload)
		nc.Write(frame)
		resp, _ := wire.ReadFrame(bufio.NewReader(nc), nil, 0)
		m, _ := wire.DecodeResponse(resp)
		return m
	}
	created := call(ctlLn.Addr().String(), &wire.CreateTopicsRequest{CorrelationID: 1, Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 1, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "1"}}}}})
	fmt.Println("create topic:", wire.CodeOf(created.(*wire.CreateTopicsResponse).Err()))
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	awaitBroker(func() bool { r, ok := b.Replica(tp); return ok && r.Role() == replica.RoleLeader })

	batch, _ := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		Records: []log.Record{{Value: []byte("hello")}, {OffsetDelta: 1, Value: []byte("world")}}})
	resp := call(ln.Addr().String(), &wire.ProduceRequest{CorrelationID: 2, Acks: wire.AcksAll, TimeoutMs: 10_000,
		Partitions: []wire.ProducePartition{{Topic: "orders", Partition: 0, Records: batch}}})
	p := resp.(*wire.ProduceResponse).Partitions[0]
	fmt.Printf("produce: %v at offset %d\n", p.ErrorCode, p.BaseOffset)
	// Output:
	// create topic: NONE
	// produce: NONE at offset 0
	// close: <nil>
}
