package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

func TestFrameRoundTrip(t *testing.T) {
	r := newRand(t)
	var stream bytes.Buffer
	var want [][]byte
	for i := range 50 {
		p := make([]byte, r.IntN(2000))
		for j := range p {
			p[j] = byte(r.Uint32())
		}
		want = append(want, p)
		if i%2 == 0 {
			if err := WriteFrame(&stream, p); err != nil {
				t.Fatal(err)
			}
		} else {
			frame, err := AppendFrame(nil, p)
			if err != nil {
				t.Fatal(err)
			}
			stream.Write(frame)
		}
	}
	// One byte at a time: ReadFrame must not assume a Read fills the buffer.
	src := iotest.OneByteReader(&stream)
	var buf []byte
	for i, w := range want {
		got, err := ReadFrame(src, buf, 4096)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !bytes.Equal(got, w) {
			t.Fatalf("frame %d: got %d bytes, want %d", i, len(got), len(w))
		}
		buf = got
	}
	if _, err := ReadFrame(src, buf, 4096); err != io.EOF {
		t.Fatalf("after the last frame: err = %v, want exactly io.EOF", err)
	}
}

func TestAppendFrameLayout(t *testing.T) {
	got, err := AppendFrame([]byte{9}, []byte("abc"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{9, 0, 0, 0, 3, 'a', 'b', 'c'}; !bytes.Equal(got, want) {
		t.Fatalf("AppendFrame = % x, want % x", got, want)
	}
	var w bytes.Buffer
	if err := WriteFrame(&w, []byte("abc")); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Bytes(), got[1:]) {
		t.Fatalf("WriteFrame = % x, AppendFrame = % x", w.Bytes(), got[1:])
	}
}

func TestEmptyFrame(t *testing.T) {
	var w bytes.Buffer
	if err := WriteFrame(&w, nil); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFrame(&w, nil, 0)
	if err != nil || len(got) != 0 {
		t.Fatalf("ReadFrame = %q, %v; want empty payload, nil", got, err)
	}
}

func TestReadFrameReusesBuf(t *testing.T) {
	frame, _ := AppendFrame(nil, []byte("hello"))
	buf := make([]byte, 0, 64)
	got, err := ReadFrame(bytes.NewReader(frame), buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	if &got[:1][0] != &buf[:1][0] {
		t.Fatal("payload was not read into buf's array")
	}
	r := bytes.NewReader(frame)
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(frame)
		if _, err := ReadFrame(r, buf, 0); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("ReadFrame with a big enough buf allocated %v times, want 0", allocs)
	}
}

// TestReadFrameRefusesHugePrefixWithoutAllocating: the limit is checked
// before the payload buffer exists. The only allocation left is the error
// value itself, a few dozen bytes, against the 2 GiB the prefix asks for.
func TestReadFrameRefusesHugePrefixWithoutAllocating(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prefix int32
		max    int
	}{
		{"max int32 under default limit", 1<<31 - 1, 0},
		{"one over the default limit", DefaultMaxFrameSize + 1, 0},
		{"one over a small limit", 1025, 1024},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := binary.BigEndian.AppendUint32(nil, uint32(tc.prefix))
			r := bytes.NewReader(hdr)
			for _, buf := range [][]byte{make([]byte, 0, 16), nil} {
				r.Reset(hdr)
				got, err := ReadFrame(r, buf, tc.max)
				if !errors.Is(err, ErrFrameTooLarge) {
					t.Fatalf("err = %v, want ErrFrameTooLarge", err)
				}
				if cap(got) != cap(buf) {
					t.Fatalf("cap(result) = %d, want buf's %d: something was allocated", cap(got), cap(buf))
				}
				const runs = 200
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for range runs {
					r.Reset(hdr)
					if _, err := ReadFrame(r, buf, tc.max); !errors.Is(err, ErrFrameTooLarge) {
						t.Fatal(err)
					}
				}
				runtime.ReadMemStats(&after)
				if perCall := (after.TotalAlloc - before.TotalAlloc) / runs; perCall > 512 {
					t.Fatalf("refusing a %d-byte prefix allocated %d bytes per call, want only the error value", tc.prefix, perCall)
				}
			}
		})
	}
}

func TestReadFrameErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream []byte
		max    int
		want   error
		alsoIs error
	}{
		{"clean EOF", nil, 0, io.EOF, nil},
		{"EOF inside prefix", []byte{0, 0}, 0, ErrShortFrame, io.ErrUnexpectedEOF},
		{"EOF right after prefix", []byte{0, 0, 0, 3}, 0, ErrShortFrame, io.ErrUnexpectedEOF},
		{"EOF inside payload", []byte{0, 0, 0, 3, 'a'}, 0, ErrShortFrame, io.ErrUnexpectedEOF},
		{"negative length", []byte{0xff, 0xff, 0xff, 0xff}, 0, ErrNegativeLength, ErrMalformed},
		{"min int32 length", []byte{0x80, 0, 0, 0}, 0, ErrNegativeLength, ErrMalformed},
		{"over limit", []byte{0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 8, ErrFrameTooLarge, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFrame(bytes.NewReader(tc.stream), nil, tc.max)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.alsoIs != nil && !errors.Is(err, tc.alsoIs) {
				t.Fatalf("err = %v does not also match %v", err, tc.alsoIs)
			}
			if tc.want == io.EOF && err != io.EOF {
				t.Fatalf("err = %#v, want io.EOF itself so loops can compare with ==", err)
			}
		})
	}
	t.Run("exactly the limit is allowed", func(t *testing.T) {
		got, err := ReadFrame(bytes.NewReader([]byte{0, 0, 0, 2, 'o', 'k'}), nil, 2)
		if err != nil || string(got) != "ok" {
			t.Fatalf("ReadFrame = %q, %v", got, err)
		}
	})
	t.Run("reader errors are wrapped", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := ReadFrame(iotest.ErrReader(boom), nil, 0)
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v, want it to wrap the reader's error", err)
		}
		_, err = ReadFrame(io.MultiReader(bytes.NewReader([]byte{0, 0, 0, 4, 1}), iotest.ErrReader(boom)), nil, 0)
		if !errors.Is(err, boom) || errors.Is(err, ErrShortFrame) {
			t.Fatalf("err = %v, want the reader's error, not ErrShortFrame", err)
		}
	})
}

type failingWriter struct {
	failOn int
	writes int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes == w.failOn {
		return 0, io.ErrClosedPipe
	}
	return len(p), nil
}

func TestWriteFrameWrapsWriterErrors(t *testing.T) {
	for _, failOn := range []int{1, 2} {
		err := WriteFrame(&failingWriter{failOn: failOn}, []byte("payload"))
		if !errors.Is(err, io.ErrClosedPipe) {
			t.Fatalf("write %d failing: err = %v, want io.ErrClosedPipe wrapped", failOn, err)
		}
	}
}

func TestWriteFrameDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("under -race sync.Pool drops items at random, so its New allocates")
	}
	payload := make([]byte, 1024)
	allocs := testing.AllocsPerRun(100, func() {
		if err := WriteFrame(io.Discard, payload); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("WriteFrame allocated %v times per call, want 0", allocs)
	}
}

// chunkReader hands out at most n bytes per Read, like a socket.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

// allocatedPerCall returns the heap bytes and allocations one call of f
// makes, averaged over runs calls.
func allocatedPerCall(runs int, f func()) (bytes uint64, allocs float64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs), float64(after.Mallocs-before.Mallocs) / float64(runs)
}

// TestReadFrameAllocatesAsBytesArrive: a prefix within the limit is not a
// promise. A peer that announces DefaultMaxFrameSize (100 MiB) and sends 10
// bytes gets at most frameGrowStart (64 KiB) of memory, plus the error
// value, before ReadFrame fails with ErrShortFrame; with a caller's buffer
// larger than that, nothing at all beyond the error.
func TestReadFrameAllocatesAsBytesArrive(t *testing.T) {
	stream := binary.BigEndian.AppendUint32(nil, DefaultMaxFrameSize)
	stream = append(stream, "ten bytes!"...)
	const errorSlack = 512 // the wrapped ErrShortFrame and its message
	for _, tc := range []struct {
		name     string
		buf      []byte
		maxBytes uint64
	}{
		{"nil buf", nil, frameGrowStart + errorSlack},
		{"small buf", make([]byte, 0, 16), frameGrowStart + errorSlack},
		{"1 MiB buf is filled first", make([]byte, 0, 1<<20), errorSlack},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bytes.NewReader(stream)
			read := func() {
				r.Reset(stream)
				if _, err := ReadFrame(r, tc.buf, 0); !errors.Is(err, ErrShortFrame) {
					t.Fatalf("err = %v, want ErrShortFrame", err)
				}
			}
			perCall, allocs := allocatedPerCall(100, read)
			t.Logf("declared %d bytes, sent 10: %d bytes in %.1f allocations per call", DefaultMaxFrameSize, perCall, allocs)
			if perCall > tc.maxBytes {
				t.Fatalf("allocated %d bytes per call, want at most %d", perCall, tc.maxBytes)
			}
			n := testing.AllocsPerRun(100, read)
			t.Logf("testing.AllocsPerRun: %v", n)
			// The byte bound above is the point; the count is pinned only
			// without -race, which adds allocations of its own.
			if n > 4 && !raceEnabled {
				t.Fatalf("%v allocations per call, want the buffer and the error's few", n)
			}
		})
	}
}

// TestReadFrameTrickleIsBounded: a peer that sends 1 MiB of a declared 100
// MiB frame and stops makes ReadFrame hold at most twice what it sent, and
// allocate at most about four times that in all.
func TestReadFrameTrickleIsBounded(t *testing.T) {
	const sent = 1 << 20
	stream := binary.BigEndian.AppendUint32(nil, DefaultMaxFrameSize)
	stream = append(stream, make([]byte, sent)...)
	r := bytes.NewReader(stream)
	var last []byte
	perCall, allocs := allocatedPerCall(10, func() {
		r.Reset(stream)
		var err error
		if last, err = ReadFrame(r, nil, 0); !errors.Is(err, ErrShortFrame) {
			t.Fatalf("err = %v, want ErrShortFrame", err)
		}
	})
	t.Logf("declared %d bytes, sent %d: %d bytes in %.1f allocations per call, last buffer %d", DefaultMaxFrameSize, sent, perCall, allocs, cap(last))
	if cap(last) > 2*sent {
		t.Fatalf("held a %d-byte buffer for %d bytes sent", cap(last), sent)
	}
	if perCall > 4*sent+frameGrowStart {
		t.Fatalf("allocated %d bytes per call for %d bytes sent", perCall, sent)
	}
}

// TestReadFrameGrowing: frames larger than buf arrive whole and in order
// whatever the read sizes, and the result's capacity is the frame's length
// whenever ReadFrame had to allocate.
func TestReadFrameGrowing(t *testing.T) {
	r := newRand(t)
	sizes := []int{0, 1, frameGrowStart - 1, frameGrowStart, frameGrowStart + 1, 3*frameGrowStart + 7, 1<<20 + 3}
	var stream []byte
	var want [][]byte
	for _, n := range sizes {
		p := make([]byte, n)
		for j := range p {
			p[j] = byte(r.Uint32())
		}
		want = append(want, p)
		stream, _ = AppendFrame(stream, p)
	}
	for _, chunk := range []int{1 << 30, 1000, 7} {
		for _, bufCap := range []int{0, 16, 100 << 10, 2 << 20} {
			src := &chunkReader{r: bytes.NewReader(stream), n: chunk}
			for i, w := range want {
				buf := make([]byte, 0, bufCap)
				got, err := ReadFrame(src, buf, 0)
				if err != nil {
					t.Fatalf("chunk %d, buf %d, frame %d: %v", chunk, bufCap, i, err)
				}
				if !bytes.Equal(got, w) {
					t.Fatalf("chunk %d, buf %d, frame %d: payload differs", chunk, bufCap, i)
				}
				switch {
				case len(w) <= bufCap:
					if len(w) > 0 && &got[:1][0] != &buf[:1][0] {
						t.Fatalf("chunk %d, buf %d, frame %d: a big enough buf was not used", chunk, bufCap, i)
					}
				case cap(got) != len(w):
					t.Fatalf("chunk %d, buf %d, frame %d: cap %d, want exactly %d", chunk, bufCap, i, cap(got), len(w))
				}
			}
			if _, err := ReadFrame(src, nil, 0); err != io.EOF {
				t.Fatalf("chunk %d, buf %d: after the last frame err = %v, want io.EOF", chunk, bufCap, err)
			}
		}
	}
}

func TestAppendFrameHeader(t *testing.T) {
	got, err := AppendFrameHeader([]byte{9}, 3)
	if err != nil || !bytes.Equal(got, []byte{9, 0, 0, 0, 3}) {
		t.Fatalf("AppendFrameHeader = % x, %v", got, err)
	}
	for _, tc := range []struct {
		n    int
		want error
	}{{-1, ErrNegativeLength}, {1 << 31, ErrFrameTooLarge}} {
		got, err := AppendFrameHeader([]byte("keep"), tc.n)
		if !errors.Is(err, tc.want) || string(got) != "keep" {
			t.Errorf("AppendFrameHeader(%d) = %q, %v; want dst unchanged, %v", tc.n, got, err, tc.want)
		}
	}
}

// concat joins buffers the way writev puts them on the wire.
func concat(bufs net.Buffers) []byte {
	var out []byte
	for _, b := range bufs {
		out = append(out, b...)
	}
	return out
}

// TestAppendFrameBuffersIsAppendFrame: for every message, the buffers
// carry exactly AppendFrame(AppendTo(m)); records are referenced, never
// copied; several frames can share one bufs and one scratch.
func TestAppendFrameBuffersIsAppendFrame(t *testing.T) {
	r := newRand(t)
	for range 100 {
		var (
			bufs    net.Buffers
			scratch []byte
			want    []byte
		)
		for _, mk := range allMessages() {
			m := mk.gen(r)
			var err error
			before := len(bufs)
			if bufs, scratch, err = AppendFrameBuffers(bufs, scratch, m); err != nil {
				t.Fatalf("%s: %v", mk.name, err)
			}
			if want, err = AppendFrame(want, mustEncode(t, m)); err != nil {
				t.Fatal(err)
			}
			for _, b := range bufs[before:] {
				if len(b) == 0 {
					t.Fatalf("%s: an empty buffer", mk.name)
				}
			}
			// A pointer frames the same as a value.
			pb, _, err := AppendFrameBuffers(nil, nil, pointerTo(m))
			if err != nil || !bytes.Equal(concat(pb), concat(bufs[before:])) {
				t.Fatalf("%s: framing a pointer differs: %v", mk.name, err)
			}
			if fr, ok := m.(FetchResponse); ok {
				k := before
				for _, p := range fr.Partitions {
					if len(p.Records) == 0 {
						continue
					}
					for k < len(bufs) && (len(bufs[k]) != len(p.Records) || &bufs[k][0] != &p.Records[0]) {
						k++
					}
					if k == len(bufs) {
						t.Fatalf("FetchResponse: records of %s-%d were copied, not referenced", p.Topic, p.Partition)
					}
				}
			}
		}
		if got := concat(bufs); !bytes.Equal(got, want) {
			t.Fatalf("buffers\n% x\nAppendFrame\n% x", got, want)
		}
		// And they read back as frames.
		rd := bytes.NewReader(want)
		for _, mk := range allMessages() {
			frame, err := ReadFrame(rd, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if key, _, err := PeekHeader(frame); err != nil || !strings.HasPrefix(mk.name, key.String()) {
				t.Fatalf("frame for %s has key %v, %v", mk.name, key, err)
			}
		}
	}
}

// pointerTo returns a pointer to a copy of m, still a Message.
func pointerTo(m Message) Message {
	switch m := m.(type) {
	case FetchResponse:
		return &m
	case ProduceRequest:
		return &m
	case FetchRequest:
		return &m
	}
	return m
}

func TestAppendFrameBuffersRefusals(t *testing.T) {
	bufs := net.Buffers{[]byte("earlier")}
	scratch := []byte("earlier scratch")
	for _, m := range []Message{
		FetchResponse{Partitions: []FetchPartitionResponse{{Topic: "t", Records: []byte("x")}, {Topic: "", Records: []byte("y")}}},
		&ProduceRequest{TimeoutMs: -1},
		FetchRequest{MaxBytes: -1},
	} {
		gotBufs, gotScratch, err := AppendFrameBuffers(bufs, scratch, m)
		if err == nil {
			t.Fatalf("%T: no error", m)
		}
		if len(gotBufs) != 1 || string(gotScratch) != "earlier scratch" {
			t.Fatalf("%T: after a refusal bufs = %q, scratch = %q", m, gotBufs, gotScratch)
		}
	}
}

// TestAppendFrameBuffersDoesNotAllocate: with bufs and scratch kept, a
// fetch answer of many partitions, passed by pointer, is framed without
// allocating and without copying its records.
func TestAppendFrameBuffersDoesNotAllocate(t *testing.T) {
	m := FetchResponse{}
	for i := range 50 {
		m.Partitions = append(m.Partitions, FetchPartitionResponse{Topic: "orders", Partition: int32(i), Records: bytes.Repeat([]byte{1}, 4096)})
	}
	bufs, scratch, err := AppendFrameBuffers(nil, nil, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(scratch) > 50*100 {
		t.Fatalf("scratch holds %d bytes: records were copied", len(scratch))
	}
	if len(bufs) != 100 {
		t.Fatalf("%d buffers, want 100 (fixed fields and records alternating; records end the frame)", len(bufs))
	}
	allocs := testing.AllocsPerRun(100, func() {
		if bufs, scratch, err = AppendFrameBuffers(bufs[:0], scratch[:0], &m); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("AppendFrameBuffers allocated %v times per call with warm buffers", allocs)
	}
}

// TestAppendFrameBuffersOverTCP sends frames through a loopback TCP
// connection with net.Buffers.WriteTo (writev) and reads them back.
func TestAppendFrameBuffersOverTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP: %v", err)
	}
	defer ln.Close()
	type result struct {
		frames [][]byte
		err    error
	}
	done := make(chan result, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			done <- result{err: err}
			return
		}
		defer conn.Close()
		var res result
		for {
			frame, err := ReadFrame(conn, nil, 0)
			if err == io.EOF {
				break
			}
			if err != nil {
				res.err = err
				break
			}
			res.frames = append(res.frames, frame)
		}
		done <- res
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(t)
	var sent [][]byte
	var bufs net.Buffers
	var scratch []byte
	for range 20 {
		m := genFetchResponse(r)
		if bufs, scratch, err = AppendFrameBuffers(bufs[:0], scratch[:0], m); err != nil {
			t.Fatal(err)
		}
		out := bufs
		if _, err := out.WriteTo(conn); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, mustEncode(t, m))
	}
	conn.Close()
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	if len(res.frames) != len(sent) {
		t.Fatalf("received %d frames, sent %d", len(res.frames), len(sent))
	}
	for i := range sent {
		if !bytes.Equal(res.frames[i], sent[i]) {
			t.Fatalf("frame %d differs", i)
		}
	}
}
