package server_test

import (
	"net"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
)

// proxy forwards TCP connections from its own address to target. It can
// cut the link — close every connection and refuse new ones, so that dials
// fail — and heal it, listening again on the same address.
type proxy struct {
	t      testing.TB
	addr   string
	target string

	mu      sync.Mutex
	ln      net.Listener
	conns   []net.Conn
	cut     bool
	paused  bool
	resume  *sync.Cond
	accepts int // connections accepted, over the proxy's life
	wg      sync.WaitGroup
}

func newProxy(t testing.TB, target string) *proxy {
	p := &proxy{t: t, target: target}
	p.resume = sync.NewCond(&p.mu)
	p.ln = clustertest.Listen(t)
	p.addr = p.ln.Addr().String()
	p.serve(p.ln)
	return p
}

func (p *proxy) serve(ln net.Listener) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", p.target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			if p.cut {
				p.mu.Unlock()
				in.Close()
				out.Close()
				continue
			}
			p.accepts++
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			p.wg.Add(2)
			go p.pipe(in, out)
			go p.pipe(out, in)
		}
	}()
}

// pipe copies src to dst, holding what it read while the proxy is paused.
func (p *proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	defer src.Close()
	defer dst.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		for p.paused && !p.cut {
			p.resume.Wait()
		}
		p.mu.Unlock()
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// pause holds every byte through the proxy, both ways, until unpause; the
// connections stay up.
func (p *proxy) pause() {
	p.mu.Lock()
	p.paused = true
	p.mu.Unlock()
}

// unpause lets the held bytes through.
func (p *proxy) unpause() {
	p.mu.Lock()
	p.paused = false
	p.resume.Broadcast()
	p.mu.Unlock()
}

// cutLink closes every connection through the proxy and stops listening:
// dials to it are refused until heal.
func (p *proxy) cutLink() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	p.resume.Broadcast()
	p.ln.Close()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// heal listens again on the proxy's address.
func (p *proxy) heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy: listen again on %s: %v", p.addr, err)
	}
	p.ln, p.cut = ln, false
	p.serve(ln)
}

func (p *proxy) accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepts
}

func (p *proxy) close() {
	p.cutLink()
	p.wg.Wait()
}

// proxies puts a proxy on every broker-to-broker link of a cluster, made
// when the link is first dialled: proxies.get(from, to) is broker from's
// link to broker to.
type proxies struct {
	c  *clustertest.Cluster
	mu sync.Mutex
	m  map[[2]int32]*proxy
}

// resolver is broker from's Config.Resolve: other brokers through their
// proxies, the controller directly.
func (ps *proxies) resolver(from int32) func(replica.Addr) (string, bool) {
	return func(peer replica.Addr) (string, bool) {
		ps.mu.Lock()
		defer ps.mu.Unlock()
		if peer.Kind != replica.BrokerAddr || ps.c == nil {
			return "", false
		}
		target := ps.c.Broker(peer.ID)
		if target == nil {
			return "", false
		}
		if ps.m == nil {
			ps.m = map[[2]int32]*proxy{}
		}
		k := [2]int32{from, peer.ID}
		p := ps.m[k]
		if p == nil {
			p = newProxy(ps.c.T, target.Host.Addr().String())
			ps.m[k] = p
		}
		return p.addr, true
	}
}

// setCluster tells the proxies which cluster's brokers they lead to.
func (ps *proxies) setCluster(c *clustertest.Cluster) {
	ps.mu.Lock()
	ps.c = c
	ps.mu.Unlock()
}

// get returns the proxy of broker from's link to broker to; the link must
// have been dialled.
func (ps *proxies) get(from, to int32) *proxy {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p := ps.m[[2]int32{from, to}]
	if p == nil {
		ps.c.T.Fatalf("broker %d never dialled broker %d", from, to)
	}
	return p
}

func (ps *proxies) close() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, p := range ps.m {
		p.close()
	}
}
