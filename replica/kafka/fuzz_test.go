package kafka_test

import (
	"encoding/binary"
	"net"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzRequestPath runs any payload down the listener's request path as the
// host runs it: Decode, then Refuse on an error (framing its answer if it
// has one), or the broker's Receive and the framing of every response it
// gives. Nothing may panic, and every frame's length prefix must be its
// length. Seeds: a request of every served API at every version kmsg
// knows, and the payloads of the bad-input test.
func FuzzRequestPath(f *testing.F) {
	for _, key := range []int16{0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 22, 23, 42, 47, 999} {
		req := kmsg.RequestForKey(key)
		if req == nil {
			f.Add([]byte{byte(key >> 8), byte(key), 0, 0, 0, 0, 0, 1, 0, 0, 0, 0})
			continue
		}
		for v := int16(0); v <= req.MaxVersion(); v++ {
			req.SetVersion(v)
			b := binary.BigEndian.AppendUint16(nil, uint16(key))
			b = binary.BigEndian.AppendUint16(b, uint16(v))
			b = binary.BigEndian.AppendUint32(b, 7)
			b = binary.BigEndian.AppendUint16(b, 0xffff)
			if req.IsFlexible() {
				b = append(b, 0)
			}
			f.Add(req.AppendTo(b))
		}
	}
	f.Add([]byte{0, 3, 0})
	f.Add([]byte{0, 3, 0, 1, 0, 0, 0, 1, 0x10, 0})
	b, err := replica.OpenBroker(replica.BrokerConfig{ID: 1, Dir: "/b", IncarnationID: [16]byte{1},
		Replica: replica.Options{Log: log.Options{FS: vfs.NewMem()}}}, 0)
	if err != nil {
		f.Fatal(err)
	}
	b.Outbox() // its registration
	codec := kafka.NewCodec(b, kafka.Config{})
	f.Fuzz(func(t *testing.T, payload []byte) {
		r := &server.Request{Produce: new(wire.ProduceRequest), Fetch: new(wire.FetchRequest)}
		frame := func(m wire.Message) {
			pieces, _, err := codec.Frame(nil, nil, r, m)
			if err != nil {
				return // the host closes the connection
			}
			var all []byte
			for _, p := range (net.Buffers)(pieces) {
				all = append(all, p...)
			}
			if len(all) < 8 || int(binary.BigEndian.Uint32(all)) != len(all)-4 {
				t.Fatalf("a frame of %d bytes with length prefix % x", len(all), all[:min(4, len(all))])
			}
		}
		m, err := codec.Decode(payload, r)
		if err != nil {
			if ans, ok := codec.Refuse(payload, r, err); ok {
				frame(ans)
			}
			return
		}
		if !codec.Answered(m) {
			return
		}
		b.Receive(replica.Envelope{From: replica.ClientAt(1), To: replica.BrokerAt(1), Msg: m}, 1)
		for _, env := range b.Outbox() {
			if env.Response && env.To == replica.ClientAt(1) {
				frame(env.Msg)
			}
		}
	})
}
