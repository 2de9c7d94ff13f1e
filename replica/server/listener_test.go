package server_test

import (
	"encoding/binary"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// pingKey is a request only echoCodec knows: it answers it by itself.
const pingKey wire.APIKey = 999

// echoCodec is kaenlog's protocol behind the exported seam, with one
// request of its own (pingKey) that it answers without the node, and a
// State that counts the requests each place carried.
type echoCodec struct{}

// echoState is what echoCodec keeps of a request until its response.
type echoState struct {
	key  wire.APIKey
	uses int
}

func (echoCodec) Decode(payload []byte, r *server.Request) (wire.Message, error) {
	st, _ := r.State.(*echoState)
	if st == nil {
		st = new(echoState)
		r.State = st
	}
	st.uses++
	if len(payload) >= 2 && wire.APIKey(binary.BigEndian.Uint16(payload)) == pingKey {
		st.key = pingKey
		return nil, errPing
	}
	key, _, err := wire.PeekHeader(payload)
	if err != nil {
		return nil, err
	}
	st.key = key
	if key == wire.APIProduce {
		return r.Produce, wire.DecodeProduceRequestInto(payload, r.Produce)
	}
	return wire.DecodeRequest(payload)
}

var errPing = errors.New("ping: answered by the codec")

func (echoCodec) Refuse(payload []byte, r *server.Request, err error) (wire.Message, bool) {
	if !errors.Is(err, errPing) || len(payload) < 8 {
		return nil, false
	}
	return &server.Answer{Key: pingKey, CorrelationID: int32(binary.BigEndian.Uint32(payload[4:])), Body: "pong"}, true
}

func (echoCodec) Answered(m wire.Message) bool {
	p, ok := m.(*wire.ProduceRequest)
	return !ok || p.Acks != wire.AcksNone
}

func (echoCodec) Frame(pieces net.Buffers, scratch []byte, r *server.Request, m wire.Message) (net.Buffers, []byte, error) {
	st := r.State.(*echoState)
	if st.key != m.APIKey() {
		return pieces, scratch, errors.New("a response of another request's kind")
	}
	if a, ok := m.(*server.Answer); ok {
		body := a.Body.(string)
		start := len(scratch)
		scratch = binary.BigEndian.AppendUint32(scratch, uint32(8+len(body)))
		scratch = append(scratch, header(pingKey, 0, a.CorrelationID)...)
		scratch = append(scratch, body...)
		return append(pieces, scratch[start:]), scratch, nil
	}
	return wire.AppendFrameBuffers(pieces, scratch, m)
}

// TestAFurtherListenerServesTheSameNodeThroughItsCodec: a Listener in
// Config.Listeners hands its requests to the same broker through its own
// Codec, answers in order what the codec answers by itself, and keeps the
// codec's State with each request until its response is framed.
func TestAFurtherListenerServesTheSameNodeThroughItsCodec(t *testing.T) {
	second := map[int32]net.Listener{}
	c := clustertest.Start(t, clustertest.Options{Brokers: 1, Host: func(id int32, _ *replica.Broker, cfg *server.Config) {
		second[id] = clustertest.Listen(t)
		cfg.Listeners = []server.Listener{{Listener: second[id], Codec: echoCodec{}}}
	}})
	tp := replica.TopicPartition{Topic: "echo", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 1, 1)
	cl := dial(t, second[1].Addr().String())
	defer cl.close()
	for i := range 3 {
		cl.send(produceRequest(t, tp, wire.AcksLeader, "a", "b"))
		// A ping behind the produce: answered by the codec, after it.
		ping := header(pingKey, 0, int32(100+i))
		cl.rawFrame(ping)
		resp, err := cl.tryReceive(clustertest.WaitLimit)
		if err != nil {
			t.Fatal(err)
		}
		p := resp.(*wire.ProduceResponse).Partitions[0]
		if p.ErrorCode != wire.CodeNone || p.BaseOffset != uint64(2*i) {
			t.Fatalf("produce %d through the second listener: %+v", i, p)
		}
		cl.nc.SetReadDeadline(time.Now().Add(clustertest.WaitLimit))
		frame, err := wire.ReadFrame(cl.br, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if string(frame[8:]) != "pong" || int32(binary.BigEndian.Uint32(frame[4:])) != int32(100+i) {
			t.Fatalf("ping %d answered %q", i, frame)
		}
	}
	// The first listener still speaks kaenlog's protocol to the same node.
	if got := produce(c, tp, wire.AcksLeader, "c"); got.ErrorCode != wire.CodeNone || got.BaseOffset != 6 {
		t.Fatalf("produce through the first listener: %+v", got)
	}
	// A frame the codec refuses without an answer closes the connection.
	cl.rawFrame([]byte{1})
	cl.expectClosed()
}

// TestAListenerWithoutACodecIsRefused: Serve refuses a Listener missing
// its net.Listener or its Codec.
func TestAListenerWithoutACodecIsRefused(t *testing.T) {
	ln := clustertest.Listen(t)
	defer ln.Close()
	for _, l := range []server.Listener{{Listener: ln}, {Codec: echoCodec{}}} {
		first := clustertest.Listen(t)
		_, err := server.Serve(first, replica.NewControllerNode(nil), server.Config{Clock: clock.NewManual(0), Listeners: []server.Listener{l}})
		first.Close()
		if !errors.Is(err, replica.ErrInvalidConfig) {
			t.Fatalf("Serve with %+v: %v, want ErrInvalidConfig", l, err)
		}
	}
}
