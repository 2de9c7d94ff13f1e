package main

import (
	"bufio"
	"encoding/binary"
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

// The throughput floor: the produce-big row's bytes moved the way kaenlog
// moves them, and nothing else. The harness streams frames of
// bigBatchBytes, up to five unanswered, to a leader process, which pwrites
// each; two follower processes fetch from the leader by offset (a fetch
// names the follower's end, which is also its acknowledgement; the leader
// answers with up to a frame of what lies past it, read from its file by
// sendfile, which is cheaper than kaenlog's pread and write) and pwrite
// what they get; the leader answers a frame when both followers' ends
// passed it. No encoding, checksum or validation anywhere: records/s
// counts the bytes as records of -record-bytes values (floorRecordSize).

const (
	roleStreamLeader   = "floor-stream-leader"
	roleStreamFollower = "floor-stream-follower"
	streamInFlight     = 5 // the producers' in-flight limit
)

// floorRecordSize is the size of a record of a valueBytes value in a
// RecordBatch v2 (no key, no headers, timestamp delta below 64 ms, offset
// delta below 8192): its length varint, attributes, the two deltas, the
// key and value lengths, the value, the header count.
func floorRecordSize(valueBytes int) int {
	body := 1 + 1 + 2 + 1 + varintLen(int64(valueBytes)) + valueBytes + 1
	return varintLen(int64(body)) + body
}

// varintLen is the size of v as a zig-zag varint.
func varintLen(v int64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutVarint(b[:], v)
}

// runStreamLeader is the throughput floor's leader; the first byte of a
// connection says what it is ('F' a follower, 'C' the client).
func runStreamLeader() int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "kfakebench floor: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	f, err := os.CreateTemp("", "kfakebench-floor-")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(f.Name())
	fmt.Printf("%s%s\n", lineFloor, ln.Addr())
	var (
		mu      sync.Mutex
		grown   = sync.NewCond(&mu)
		leo     int64
		ends    = map[net.Conn]int64{} // each follower's end
		pending []int64                // the ends of unanswered frames
		client  net.Conn
	)
	answer := make([]byte, floorReqBytes)
	answerLocked := func() {
		if len(ends) < 2 || client == nil {
			return
		}
		low := int64(-1)
		for _, e := range ends {
			if low < 0 || e < low {
				low = e
			}
		}
		for len(pending) > 0 && pending[0] <= low {
			client.Write(answer)
			pending = pending[1:]
		}
	}
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
			go func() {
				own, err := os.Open(f.Name()) // its own offset, for sendfile
				if err != nil {
					return
				}
				defer own.Close()
				hdr := make([]byte, 8)
				for {
					if _, err := io.ReadFull(c, hdr); err != nil {
						return
					}
					end := int64(binary.BigEndian.Uint64(hdr))
					mu.Lock()
					ends[c] = end
					answerLocked()
					for leo <= end {
						grown.Wait()
					}
					n := min(leo-end, bigBatchBytes)
					mu.Unlock()
					binary.BigEndian.PutUint64(hdr, uint64(n))
					if _, err := c.Write(hdr); err != nil {
						return
					}
					if _, err := own.Seek(end, io.SeekStart); err != nil {
						return
					}
					if _, err := io.Copy(c, &io.LimitedReader{R: own, N: n}); err != nil {
						return
					}
				}
			}()
			continue
		}
		go func() {
			buf := make([]byte, bigBatchBytes)
			for {
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
				mu.Lock()
				if _, err := f.WriteAt(buf, leo); err != nil {
					mu.Unlock()
					fmt.Fprintf(os.Stderr, "kfakebench floor: %v\n", err)
					return
				}
				leo += int64(len(buf))
				pending = append(pending, leo)
				client = c
				grown.Broadcast()
				answerLocked()
				mu.Unlock()
			}
		}()
	}
}

// runStreamFollower fetches from the throughput floor's leader at addr for
// ever.
func runStreamFollower(addr string) int {
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
	r := bufio.NewReaderSize(c, 64<<10)
	hdr, buf := make([]byte, 8), make([]byte, bigBatchBytes)
	var end int64
	for {
		binary.BigEndian.PutUint64(hdr, uint64(end))
		if _, err := c.Write(hdr); err != nil {
			return 1
		}
		if _, err := io.ReadFull(r, hdr); err != nil {
			return 1
		}
		n := int64(binary.BigEndian.Uint64(hdr))
		if n <= 0 || n > bigBatchBytes {
			fmt.Fprintf(os.Stderr, "kfakebench floor: a fetch of %d bytes\n", n)
			return 1
		}
		if _, err := io.ReadFull(r, buf[:n]); err != nil {
			return 1
		}
		if _, err := f.WriteAt(buf[:n], end); err != nil {
			fmt.Fprintf(os.Stderr, "kfakebench floor: %v\n", err)
			return 1
		}
		end += n
	}
}

// throughputFloor starts the throughput floor's processes, streams the
// bytes of records records of valueBytes values through them and returns
// the rate in records/s.
func (b *bench) throughputFloor(records, valueBytes int) (float64, error) {
	leader, err := startChild(b.self, roleStreamLeader, "floor-stream-leader", logPathIn(b.dir, "floor-stream-leader"))
	if err != nil {
		return 0, err
	}
	defer leader.kill()
	line, err := leader.await(lineFloor, startLimit)
	if err != nil {
		return 0, err
	}
	addr := strings.TrimPrefix(line, lineFloor)
	for i := range 2 {
		name := fmt.Sprintf("floor-stream-follower-%d", i)
		fol, err := startChild(b.self, roleStreamFollower, name, logPathIn(b.dir, name), addr)
		if err != nil {
			return 0, err
		}
		defer fol.kill()
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Minute))
	if _, err := c.Write([]byte{'C'}); err != nil {
		return 0, err
	}
	frame := make([]byte, bigBatchBytes)
	for i := range frame {
		frame[i] = byte('a' + i%26)
	}
	frames := max(1, records*floorRecordSize(valueBytes)/bigBatchBytes)
	slots := make(chan struct{}, streamInFlight)
	answered := make(chan error, 1)
	go func() {
		a := make([]byte, floorReqBytes)
		for range frames {
			if _, err := io.ReadFull(c, a); err != nil {
				answered <- err
				return
			}
			<-slots
		}
		answered <- nil
	}()
	start := time.Now()
	for range frames {
		slots <- struct{}{}
		if _, err := c.Write(frame); err != nil {
			return 0, err
		}
	}
	if err := <-answered; err != nil {
		return 0, fmt.Errorf("throughput floor: %w", err)
	}
	elapsed := time.Since(start)
	return float64(frames*bigBatchBytes) / float64(floorRecordSize(valueBytes)) / elapsed.Seconds(), nil
}
