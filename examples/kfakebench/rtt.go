package main

import (
	"fmt"
	"io"
	"net"
	"time"
)

// pingBytes is the size of the frame the round trip ping-pongs: about a
// single-record produce request.
const pingBytes = 64

// roundTrips measures n raw TCP round trips over loopback between the
// harness and the echo child (another process, as the brokers are): a
// pingBytes write, then a read of the same bytes back.
func roundTrips(addr string, n int) ([]time.Duration, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Minute))
	out, in := make([]byte, pingBytes), make([]byte, pingBytes)
	ping := func() error {
		if _, err := c.Write(out); err != nil {
			return err
		}
		_, err := io.ReadFull(c, in)
		return err
	}
	for range 1000 { // warm up
		if err := ping(); err != nil {
			return nil, fmt.Errorf("round trip: %w", err)
		}
	}
	lat := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := ping(); err != nil {
			return nil, fmt.Errorf("round trip: %w", err)
		}
		lat = append(lat, time.Since(start))
	}
	return lat, nil
}
