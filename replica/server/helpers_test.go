package server_test

import (
	"bufio"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// The cluster these tests run on is replica/internal/clustertest's; what
// is here is the raw client: frames written and read by hand.

// produceRequest is a produce of values to tp.
func produceRequest(t testing.TB, tp replica.TopicPartition, acks int16, values ...string) *wire.ProduceRequest {
	return &wire.ProduceRequest{Acks: acks, TimeoutMs: 30_000, Partitions: []wire.ProducePartition{
		{Topic: tp.Topic, Partition: tp.Partition, Records: clustertest.Batch(t, values...)},
	}}
}

// client is a raw client connection: frames written and read by hand, as
// the client library will.
type client struct {
	t    testing.TB
	nc   net.Conn
	br   *bufio.Reader
	corr int32
	// keys remembers each request's key by correlation id, to decode its
	// response by (responses carry no trusted key).
	keys map[int32]wire.APIKey
}

func dial(t testing.TB, addr string) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, nc: nc, br: bufio.NewReader(nc), keys: map[int32]wire.APIKey{}}
}

func (c *client) close() { c.nc.Close() }

// send writes req with the next correlation id and returns that id.
func (c *client) send(req wire.Message) int32 {
	c.t.Helper()
	c.corr++
	wire.SetCorrelation(req, c.corr)
	c.keys[c.corr] = req.APIKey()
	var bufs net.Buffers
	bufs, _, err := wire.AppendFrameBuffers(bufs, nil, req)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := bufs.WriteTo(c.nc); err != nil {
		c.t.Fatal(err)
	}
	return c.corr
}

// receive reads the next response, within clustertest.WaitLimit.
func (c *client) receive() wire.Message {
	c.t.Helper()
	m, err := c.tryReceive(clustertest.WaitLimit)
	if err != nil {
		c.t.Fatal(err)
	}
	return m
}

// tryReceive reads the next response within d.
func (c *client) tryReceive(d time.Duration) (wire.Message, error) {
	c.nc.SetReadDeadline(time.Now().Add(d))
	payload, err := wire.ReadFrame(c.br, nil, 0)
	if err != nil {
		return nil, err
	}
	_, corr, err := wire.PeekHeader(payload)
	if err != nil {
		return nil, err
	}
	if _, ok := c.keys[corr]; !ok {
		return nil, fmt.Errorf("a response with correlation id %d, which no request had", corr)
	}
	delete(c.keys, corr)
	return wire.DecodeResponse(payload)
}

// call sends req and returns its response.
func (c *client) call(req wire.Message) wire.Message {
	c.t.Helper()
	corr := c.send(req)
	m := c.receive()
	if m.Correlation() != corr {
		c.t.Fatalf("response %d to request %d", m.Correlation(), corr)
	}
	return m
}

// produce sends one batch of values to tp's leader and returns the answer.
func produce(c *clustertest.Cluster, tp replica.TopicPartition, acks int16, values ...string) wire.ProducePartitionResponse {
	c.T.Helper()
	leader, _ := c.Leader(tp)
	cl := dial(c.T, c.Broker(leader).Host.Addr().String())
	defer cl.close()
	resp := cl.call(produceRequest(c.T, tp, acks, values...)).(*wire.ProduceResponse)
	if len(resp.Partitions) != 1 {
		c.T.Fatalf("produce response with %d partitions", len(resp.Partitions))
	}
	return resp.Partitions[0]
}
