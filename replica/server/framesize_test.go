package server_test

import (
	"encoding/binary"
	"net"
	"runtime"
	"testing"

	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// TestOversizedLengthPrefixRefused: a length prefix above the frame limit,
// or negative, closes the connection before anything is allocated for it;
// one within the limit whose bytes never come costs the host a bounded
// buffer (ReadFrame's first 64 KiB), not what the prefix announced.
func TestOversizedLengthPrefixRefused(t *testing.T) {
	c := clustertest.Start(t, clustertest.Options{Brokers: 0})
	addr := c.ControllerHost.Addr().String()
	for _, tc := range []struct {
		name   string
		prefix uint32
		body   []byte
	}{
		{"2 GiB", 0x7fff_ffff, nil},
		{"over the limit by one", wire.DefaultMaxFrameSize + 1, []byte("0123456789")},
		{"negative", 0xffff_ffff, nil},
		{"at the limit, never sent", wire.DefaultMaxFrameSize, []byte("0123456789")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allocated := allocatedBy(func() {
				cl := dial(t, addr)
				defer cl.close()
				frame := binary.BigEndian.AppendUint32(nil, tc.prefix)
				if _, err := cl.nc.Write(append(frame, tc.body...)); err != nil {
					t.Fatal(err)
				}
				cl.nc.(*net.TCPConn).CloseWrite() // the rest never comes
				cl.expectClosed()
			})
			if allocated > 1<<20 {
				t.Fatalf("a %d-byte length prefix cost %d bytes of allocation", tc.prefix, allocated)
			}
		})
	}
}

// allocatedBy returns the bytes the process allocated while f ran.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
