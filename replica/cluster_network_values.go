package replica

import "github.com/kaenlog/kaenlog/wire"

// crossesAsValue reports whether msg crosses the in-memory Network as the
// value itself: a group request or answer, which only a listener
// translates (AppendTo refuses), so that the in-process Cluster serves
// groups to its clients as a listener hands them to a broker.
func crossesAsValue(msg wire.Message) bool {
	switch msg.(type) {
	case *GroupRequest, *GroupResponse:
		return true
	}
	return false
}

// deliverValue hands over a message that crossed as its value, if its
// destination is still there and the link still up.
func (n *Network) deliverValue(env Envelope) {
	receive, ok := n.nodes[env.To]
	if !ok || n.cut[[2]Addr{env.From, env.To}] {
		n.Dropped++
		return
	}
	n.Delivered++
	receive(env)
}
