package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// The message floor: a commit's messages between four processes with
// nothing else — no log, no decoding, no state machine. The harness writes
// a produce-sized request to the relay leader; the leader writes a
// fetch-answer-sized message to each of two relay followers from the
// goroutine that read the request (as the broker's fast path does); each
// follower answers with a fetch-sized message; the leader's goroutine that
// reads the second of them writes a produce-response-sized answer to the
// harness. Two message round trips, the shape of kaenlog's acks=all commit,
// so kaenlog's p50 reads against what the machine's kernel, Go's runtime
// and the processes sharing its cores cost for that shape alone.
const (
	floorProduceBytes  = 220 // about kaenlog's single-record produce request
	floorAnswerBytes   = 230 // a fetch response carrying that record
	floorFetchBytes    = 80  // a follower's next fetch
	floorResponseBytes = 60  // the produce response
	floorFollowers     = 2
)

// Lines the relay children print.
const lineRelay = "kfakebench-child relay listening on "

// runRelayFollower answers every floorAnswerBytes it reads on a connection
// with floorFetchBytes.
func runRelayFollower() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfakebench relay follower: %v\n", err)
		return 1
	}
	fmt.Printf("%s%s\n", lineRelay, ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		go func() {
			defer c.Close()
			in, out := make([]byte, floorAnswerBytes), make([]byte, floorFetchBytes)
			for {
				if _, err := io.ReadFull(c, in); err != nil {
					return
				}
				if _, err := c.Write(out); err != nil {
					return
				}
			}
		}()
	}
}

// runRelayLeader relays as the comment at the top of this file says, with the
// followers at the addresses in args.
func runRelayLeader(args []string) int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "kfakebench relay leader: %v\n", err)
		return 1
	}
	if len(args) != floorFollowers {
		return fail(fmt.Errorf("want %d follower addresses, got %q", floorFollowers, args))
	}
	var followers []net.Conn
	for _, a := range args {
		c, err := net.DialTimeout("tcp", a, 5*time.Second)
		if err != nil {
			return fail(err)
		}
		followers = append(followers, c)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	fmt.Printf("%s%s\n", lineRelay, ln.Addr())
	client, err := ln.Accept()
	if err != nil {
		return fail(err)
	}
	var (
		mu   sync.Mutex
		got  int
		resp = make([]byte, floorResponseBytes)
		done = make(chan error, floorFollowers+1)
	)
	for _, f := range followers {
		go func() {
			in := make([]byte, floorFetchBytes)
			for {
				if _, err := io.ReadFull(f, in); err != nil {
					done <- err
					return
				}
				mu.Lock()
				if got++; got == floorFollowers {
					got = 0
					if _, err := client.Write(resp); err != nil {
						mu.Unlock()
						done <- err
						return
					}
				}
				mu.Unlock()
			}
		}()
	}
	go func() {
		in, answer := make([]byte, floorProduceBytes), make([]byte, floorAnswerBytes)
		for {
			if _, err := io.ReadFull(client, in); err != nil {
				done <- err
				return
			}
			for _, f := range followers {
				if _, err := f.Write(answer); err != nil {
					done <- err
					return
				}
			}
		}
	}()
	if err := <-done; err != nil && !errors.Is(err, io.EOF) {
		return fail(err)
	}
	return 0
}

// relay is the floor's three processes, and the harness's connection to
// the leader.
type relay struct {
	procs []*proc
	c     net.Conn
}

// startRelay starts two relay followers and a relay leader, and connects.
func startRelay(self, dir string) (*relay, error) {
	r := &relay{}
	var addrs []string
	for i := range floorFollowers {
		name := fmt.Sprintf("relay follower %d", i+1)
		p, err := startChild(self, roleRelayFollower, name, logPathIn(dir, name), nil)
		if err != nil {
			return nil, err
		}
		r.procs = append(r.procs, p)
		line, err := p.await(lineRelay, startLimit)
		if err != nil {
			return nil, err
		}
		addrs = append(addrs, line[len(lineRelay):])
	}
	p, err := startChild(self, roleRelayLeader, "relay leader", logPathIn(dir, "relay leader"), nil, addrs...)
	if err != nil {
		return nil, err
	}
	r.procs = append(r.procs, p)
	line, err := p.await(lineRelay, startLimit)
	if err != nil {
		return nil, err
	}
	r.c, err = net.DialTimeout("tcp", line[len(lineRelay):], 5*time.Second)
	return r, err
}

// commits runs n relayed commits one at a time and returns each one's
// latency.
func (r *relay) commits(n int) ([]time.Duration, error) {
	r.c.SetDeadline(time.Now().Add(2 * time.Minute))
	out, in := make([]byte, floorProduceBytes), make([]byte, floorResponseBytes)
	commit := func() error {
		if _, err := r.c.Write(out); err != nil {
			return err
		}
		_, err := io.ReadFull(r.c, in)
		return err
	}
	for range 1000 { // warm up
		if err := commit(); err != nil {
			return nil, fmt.Errorf("relay: %w", err)
		}
	}
	lat := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := commit(); err != nil {
			return nil, fmt.Errorf("relay: %w", err)
		}
		lat = append(lat, time.Since(start))
	}
	return lat, nil
}

// close ends the relay's processes.
func (r *relay) close() {
	if r.c != nil {
		r.c.Close()
	}
	for _, p := range r.procs {
		p.kill()
	}
}
