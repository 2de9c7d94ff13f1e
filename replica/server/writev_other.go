//go:build !linux

package server

import "net"

// rawWriter is the fast path of writev_linux.go; elsewhere there is none,
// and every frame goes through the connection's writer goroutine.
type rawWriter struct{}

func newRawWriter(net.Conn) *rawWriter { return nil }

func (*rawWriter) try([][]byte) (int, error) { return 0, nil }
