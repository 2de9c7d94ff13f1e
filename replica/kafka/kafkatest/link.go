package kafkatest

import (
	"io"
	"net"
	"sync"
)

// link is the path from one broker to another's kaenlog listener (a
// follower's fetches to its leader): a TCP proxy the dialing broker's
// host resolves the peer to (server.Config.Resolve), so that the path
// can be cut and healed on its own. It dials the peer's current address
// at every connection, so a restarted peer is reached again.
type link struct {
	ln     net.Listener
	target func() (string, bool)

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

func newLink(target func() (string, bool)) (*link, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &link{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	l.wg.Add(1)
	go l.serve()
	return l, nil
}

func (l *link) addr() string { return l.ln.Addr().String() }

func (l *link) serve() {
	defer l.wg.Done()
	for {
		in, err := l.ln.Accept()
		if err != nil {
			return
		}
		addr, ok := l.target()
		var out net.Conn
		if ok {
			out, err = net.Dial("tcp", addr)
		}
		if !ok || err != nil {
			in.Close()
			continue
		}
		l.mu.Lock()
		if l.cut {
			l.mu.Unlock()
			in.Close()
			out.Close()
			continue
		}
		l.conns[in], l.conns[out] = struct{}{}, struct{}{}
		l.mu.Unlock()
		l.wg.Add(2)
		go l.pipe(in, out)
		go l.pipe(out, in)
	}
}

func (l *link) pipe(dst, src net.Conn) {
	defer l.wg.Done()
	io.Copy(dst, src)
	src.Close()
	dst.Close()
	l.mu.Lock()
	delete(l.conns, src)
	delete(l.conns, dst)
	l.mu.Unlock()
}

// setCut cuts the link (closing every connection through it and every
// new one) or heals it.
func (l *link) setCut(cut bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = cut
	if cut {
		for c := range l.conns {
			c.Close()
		}
	}
}

func (l *link) close() {
	l.ln.Close()
	l.setCut(true)
	l.wg.Wait()
}
