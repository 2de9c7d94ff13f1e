package replica

// GroupCall is a group request of one of the cluster's clients on its way
// to a broker: Response reports its answer once it has arrived.
type GroupCall struct {
	c    *Cluster
	corr int32
}

// SendGroup sends body, the Body of a [GroupRequest], from client
// ClientAt(client) to broker id, and returns without waiting. The request
// and its answer cross the network as values, not bytes (they are never
// encoded: a listener hands the broker the same values), and are lost, delayed, doubled or cut like any other
// message: simulated consumers join groups and commit offsets this way,
// each from an address of its own, on the coordinators the brokers host.
// Client 0 is the cluster's own client, the one Call sends from.
func (c *Cluster) SendGroup(client, broker int32, body any) *GroupCall {
	from := ClientAt(client)
	if _, ok := c.net.nodes[from]; !ok {
		c.net.Attach(from, func(env Envelope) {
			c.observe(env)
			c.responses[env.Msg.Correlation()] = env.Msg
		})
	}
	call := &GroupCall{c: c, corr: c.NextCorrelation()}
	c.net.Send(Envelope{From: from, To: BrokerAt(broker), Msg: &GroupRequest{CorrelationID: call.corr, Body: body}})
	c.Run()
	return call
}

// Response returns the Body of the broker's [GroupResponse] once it has
// arrived; ok is false until then.
func (g *GroupCall) Response() (body any, ok bool) {
	m, ok := g.c.responses[g.corr]
	if !ok {
		return nil, false
	}
	r, ok := m.(*GroupResponse)
	if !ok {
		return nil, false
	}
	return r.Body, true
}

// Correlation returns the request's correlation id, the one its envelopes
// carry (Cluster.Watch sees them).
func (g *GroupCall) Correlation() int32 { return g.corr }
