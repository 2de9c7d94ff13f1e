package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// The commit floor: a single-record acks=all commit's messages and nothing
// else. The harness (the client) sends a produce-sized frame to a leader
// process; the leader pwrites the record and hands it to the parked fetches
// of two follower processes; each follower pwrites it and fetches again;
// the second of those fetches makes the leader answer the client. Four
// processes, six frames (four one-way hops on the critical path) and three
// pwrites (two on it), as in a kaenlog commit — but no protocol, no validation, no checksums, one
// goroutine per connection (the shape of any Go TCP server). It is what
// this machine charges for the message pattern itself, so that the latency
// row can be read against it as well as against the raw round trip.

const (
	roleFloorLeader   = "floor-leader"
	roleFloorFollower = "floor-follower"
	lineFloor         = "kfakebench-child floor listening on "
	lineFloorReady    = "kfakebench-child floor ready" // both followers wait in a fetch
	floorReqBytes     = 64                             // a request's header, about
	floorRecordBytes  = 100                            // the record
)

// runFloorLeader is the leader of the floor pattern: the first byte of a
// connection says what it is ('F' a follower, 'C' the client).
func runFloorLeader() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfakebench floor: %v\n", err)
		return 1
	}
	fmt.Printf("%s%s\n", lineFloor, ln.Addr())
	f, err := os.CreateTemp("", "kfakebench-floor-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfakebench floor: %v\n", err)
		return 1
	}
	defer os.Remove(f.Name())
	var (
		mu        sync.Mutex
		followers []net.Conn
		parked    = map[net.Conn]bool{}
		acks      = 2      // followers that fetched past the last append
		waiting   net.Conn // the client, while its produce waits
		off       int64
		ready     bool // both followers' first fetches arrived
	)
	answer := make([]byte, floorReqBytes)
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		kind := make([]byte, 1)
		if _, err := io.ReadFull(c, kind); err != nil {
			c.Close()
			continue
		}
		if kind[0] == 'F' {
			mu.Lock()
			followers = append(followers, c)
			mu.Unlock()
			go func() {
				fetch := make([]byte, floorReqBytes)
				for {
					if _, err := io.ReadFull(c, fetch); err != nil {
						return
					}
					mu.Lock()
					parked[c] = true
					if len(parked) == 2 && !ready {
						ready = true
						fmt.Println(lineFloorReady)
					}
					if acks++; acks == 2 && waiting != nil {
						waiting.Write(answer)
						waiting = nil
					}
					mu.Unlock()
				}
			}()
			continue
		}
		go func() {
			req := make([]byte, floorReqBytes+floorRecordBytes)
			for {
				if _, err := io.ReadFull(c, req); err != nil {
					return
				}
				mu.Lock()
				rec := req[floorReqBytes:]
				f.WriteAt(rec, off)
				off += int64(len(rec))
				acks, waiting = 0, c
				for _, fc := range followers {
					if parked[fc] {
						parked[fc] = false
						fc.Write(rec)
					}
				}
				mu.Unlock()
			}
		}()
	}
}

// runFloorFollower fetches from the leader at addr for ever: a fetch, the
// record, a pwrite.
func runFloorFollower(addr string) int {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfakebench floor: %v\n", err)
		return 1
	}
	f, err := os.CreateTemp("", "kfakebench-floor-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfakebench floor: %v\n", err)
		return 1
	}
	defer os.Remove(f.Name())
	if _, err := c.Write([]byte{'F'}); err != nil {
		return 1
	}
	fetch, rec := make([]byte, floorReqBytes), make([]byte, floorRecordBytes)
	var off int64
	for {
		if _, err := c.Write(fetch); err != nil {
			return 1
		}
		if _, err := io.ReadFull(c, rec); err != nil {
			return 1
		}
		f.WriteAt(rec, off)
		off += int64(len(rec))
	}
}

// commitFloor starts the floor's leader and two followers as processes and
// times n commits from the harness.
func (b *bench) commitFloor(n int) ([]time.Duration, error) {
	leader, err := startChild(b.self, roleFloorLeader, "floor-leader", logPathIn(b.dir, "floor-leader"))
	if err != nil {
		return nil, err
	}
	defer leader.kill()
	line, err := leader.await(lineFloor, startLimit)
	if err != nil {
		return nil, err
	}
	addr := strings.TrimPrefix(line, lineFloor)
	for i := range 2 {
		fol, err := startChild(b.self, roleFloorFollower, fmt.Sprintf("floor-follower-%d", i), logPathIn(b.dir, fmt.Sprintf("floor-follower-%d", i)), addr)
		if err != nil {
			return nil, err
		}
		defer fol.kill()
	}
	if _, err := leader.await(lineFloorReady, startLimit); err != nil {
		return nil, err
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Minute))
	r := bufio.NewReader(c)
	if _, err := c.Write([]byte{'C'}); err != nil {
		return nil, err
	}
	req, answer := make([]byte, floorReqBytes+floorRecordBytes), make([]byte, floorReqBytes)
	commit := func() error {
		if _, err := c.Write(req); err != nil {
			return err
		}
		_, err := io.ReadFull(r, answer)
		return err
	}
	for range 1000 { // warm up, as the raw round trip does
		if err := commit(); err != nil {
			return nil, fmt.Errorf("commit floor: %w", err)
		}
	}
	lat := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := commit(); err != nil {
			return nil, fmt.Errorf("commit floor: %w", err)
		}
		lat = append(lat, time.Since(start))
	}
	return lat, nil
}
