package client

import (
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A frame from a broker is checked against Config.MaxFrameSize before
// anything is allocated for it: a length prefix above the limit breaks the
// connection (the stream is out of step) without reserving the memory it
// announces, and the request on it is retried like any broken one. So is
// an answer whose correlation id matches no request.
func TestFramesFromBrokersAreBounded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame func(corr int32) []byte
		want  error
	}{
		{"length prefix over the limit", func(int32) []byte {
			return binary.BigEndian.AppendUint32(nil, 1<<30) // 1 GiB announced, nothing sent
		}, wire.ErrFrameTooLarge},
		{"answer to no request", func(corr int32) []byte {
			payload, _ := (&wire.ProduceResponse{CorrelationID: corr + 100}).AppendTo(nil)
			frame, _ := wire.AppendFrame(nil, payload)
			return frame
		}, wire.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := newFakeCluster(t, 1, 1)
			clk := clock.NewManual(0)
			c := newTestClient(t, fc, clk)
			tp := TopicPartition{"t", 0}
			primeMetadata(t, c, tp)
			p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader})
			if err != nil {
				t.Fatal(err)
			}
			out := produceAsync(t, p, tp, "v")
			r := fc.brokers[1].next(t)
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			r.conn.nc.Write(tc.frame(r.corr))
			var lastErr error
			var due int64
			waitProducer(t, p, func() bool {
				part := p.parts[tp]
				if len(part.batches) == 0 || part.batches[0].state != stRetry {
					return false
				}
				lastErr, due = part.batches[0].lastErr, part.retryAt
				return true
			})
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Errorf("%d bytes allocated after the bad frame", grew)
			}
			if !errors.Is(lastErr, tc.want) || !errors.Is(lastErr, wire.ErrNetworkException) {
				t.Fatalf("the request failed with %v, want %v on a broken connection", lastErr, tc.want)
			}
			clk.AdvanceTo(due)
			r2 := fc.brokers[1].next(t)
			if r2.conn == r.conn {
				t.Fatal("the retry went on the broken connection")
			}
			r2.answerProduce(t, wire.CodeNone, 0)
			if o := await(t, out); o.err != nil {
				t.Fatal(o.err)
			}
		})
	}
}
