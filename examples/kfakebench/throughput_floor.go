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

	"github.com/kaenlog/kaenlog/log"
)

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
	lineStream         = "kfakebench-child stream listening on "
	streamAnswerBytes  = 64 // a produce response, about
	roleStreamLeader   = "floor-stream-leader"
	roleStreamFollower = "floor-stream-follower"
	streamInFlight     = 5 // the producers' in-flight limit
)

// floorRecordSize is the size of a record of a valueBytes value in a
// RecordBatch v2, as log.RecordSize measures it: no key, no headers, a
// timestamp delta below 64 ms and an offset delta from 64 to 8191 (one and
// two varint bytes, a batch's typical record).
func floorRecordSize(valueBytes int) int {
	size, _ := log.RecordSize(&log.Record{OffsetDelta: 64, Value: make([]byte, valueBytes)})
	return size
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
	// Unlinked at once: the harness SIGKILLs this process, so a deferred
	// remove never ran and left the file in the temporary directory.
	os.Remove(f.Name())
	fmt.Printf("%s%s\n", lineStream, ln.Addr())
	var (
		mu      sync.Mutex
		grown   = sync.NewCond(&mu)
		leo     int64
		ends    = map[net.Conn]int64{} // each follower's end
		pending []int64                // the ends of unanswered frames
		client  net.Conn
	)
	answer := make([]byte, streamAnswerBytes)
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
				// Its own offset, for sendfile. The file is unlinked,
				// so it is reopened through /proc (Linux, where the
				// floor is measured); a follower that cannot is
				// reported, never left waiting.
				own, err := os.Open(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
				if err != nil {
					fmt.Fprintf(os.Stderr, "kfakebench floor: reopen the stream file: %v\n", err)
					c.Close()
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
	// Unlinked at once: the harness SIGKILLs this process, so a deferred
	// remove never ran and left the file in the temporary directory.
	os.Remove(f.Name())
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
	leader, err := startChild(b.self, roleStreamLeader, "floor-stream-leader", logPathIn(b.dir, "floor-stream-leader"), nil)
	if err != nil {
		return 0, err
	}
	defer leader.kill()
	line, err := leader.await(lineStream, startLimit)
	if err != nil {
		return 0, err
	}
	addr := strings.TrimPrefix(line, lineStream)
	for i := range 2 {
		name := fmt.Sprintf("floor-stream-follower-%d", i)
		fol, err := startChild(b.self, roleStreamFollower, name, logPathIn(b.dir, name), nil, addr)
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
		a := make([]byte, streamAnswerBytes)
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
