package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
)

// TestRawReaderReadsAsTheConnDoes: the raw reader a connection's frames are
// read through hands the bytes in order across reads of any size, waits
// for bytes not yet sent, ends with io.EOF at the peer's close, and with
// net.ErrClosed once the connection is closed here.
func TestRawReaderReadsAsTheConnDoes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r := newReader(nc)
	if _, ok := r.(*rawReader); !ok {
		t.Fatalf("newReader(%T) = %T, want the raw reader", nc, r)
	}

	// Two writes read back in 3-byte pieces.
	for _, s := range []string{"hello", "world"} {
		if _, err := peer.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	var got []byte
	p := make([]byte, 3)
	for len(got) < len("helloworld") {
		n, err := r.Read(p)
		if err != nil {
			t.Fatalf("Read after %q: %v", got, err)
		}
		got = append(got, p[:n]...)
	}
	if string(got) != "helloworld" {
		t.Fatalf("read %q, want %q", got, "helloworld")
	}

	// A read of an empty socket waits for the next write.
	done := make(chan []byte)
	go func() {
		b := make([]byte, 16)
		n, err := r.Read(b)
		if err != nil {
			t.Errorf("waiting Read: %v", err)
		}
		done <- b[:n]
	}()
	if _, err := peer.Write([]byte("late")); err != nil {
		t.Fatal(err)
	}
	if b := <-done; !bytes.Equal(b, []byte("late")) {
		t.Fatalf("waiting Read got %q, want %q", b, "late")
	}

	peer.Close()
	if n, err := r.Read(p); n != 0 || err != io.EOF {
		t.Fatalf("Read after the peer closed = %d, %v; want 0, io.EOF", n, err)
	}
	nc.Close()
	if _, err := r.Read(p); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Read after Close = %v; want net.ErrClosed", err)
	}
}
