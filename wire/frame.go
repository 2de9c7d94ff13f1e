package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// DefaultMaxFrameSize is the payload limit to pass to ReadFrame when there is
// no better one: 100 MiB, the default of Kafka's socket.request.max.bytes.
// ReadFrame also uses it when given maxSize <= 0.
const DefaultMaxFrameSize = 100 << 20

// frameHeaderSize is the 4-byte big-endian length in front of every payload.
const frameHeaderSize = 4

// headerPool holds 4-byte scratch arrays for WriteFrame and ReadFrame. A
// local array passed to an io.Writer or io.Reader escapes to the heap, which
// would cost an allocation per frame; pooling keeps the steady state at zero.
var headerPool = sync.Pool{New: func() any { return new([frameHeaderSize]byte) }}

// AppendFrame appends one frame — the payload's length as a 4-byte
// big-endian int32, then the payload — to dst and returns the extended
// slice. It allocates only if dst must grow. A payload longer than
// math.MaxInt32 bytes cannot be framed: the error matches ErrFrameTooLarge
// and dst is returned unchanged.
func AppendFrame(dst, payload []byte) ([]byte, error) {
	dst, err := AppendFrameHeader(dst, len(payload))
	if err != nil {
		return dst, err
	}
	return append(dst, payload...), nil
}

// AppendFrameHeader appends the 4-byte big-endian length prefix of a frame
// whose payload is n bytes long, for a writer that sends the payload from
// where it already is: AppendFrame without the copy. A length an int32
// cannot describe gives ErrFrameTooLarge, a negative one ErrNegativeLength;
// either way dst is returned unchanged.
func AppendFrameHeader(dst []byte, n int) ([]byte, error) {
	if n < 0 {
		return dst, fmt.Errorf("%w: frame length %d", ErrNegativeLength, n)
	}
	if !fitsInt32(n) {
		return dst, fmt.Errorf("%w: payload of %d bytes exceeds the int32 length prefix", ErrFrameTooLarge, n)
	}
	return binary.BigEndian.AppendUint32(dst, uint32(n)), nil
}

// AppendFrameBuffers appends m, framed, to bufs as pieces for one
// vectored write: net.Buffers.WriteTo on a *net.TCPConn is a single writev,
// so a TCP runtime puts the whole frame out in one system call. The length
// prefix, header and fixed-layout fields are appended to scratch, and bufs
// gets slices of scratch; the Records of a FetchResponse or ProduceRequest
// are not copied but appended to bufs as they are, between the slices of
// scratch that surround them. Other messages are encoded whole into
// scratch (they carry no bulk bytes).
//
// The concatenation of what is appended to bufs is exactly
// AppendFrame(nil, payload) for payload = m.AppendTo(nil). It allocates only
// when bufs or scratch must grow, so a writer that keeps both (passing
// bufs[:0] and scratch[:0] back each time) and passes m as a pointer
// (*FetchResponse: a struct value converted to Message is copied to the
// heap) frames every message without allocating. Several messages may be
// appended before one write. Until the write is done the caller must not
// change scratch or the Records m refers to. net.Buffers.WriteTo consumes
// the slice it is called on: write a copy (b := bufs; b.WriteTo(conn)) to
// keep bufs' capacity.
//
// m's own refusals (see its AppendTo), and ErrFrameTooLarge for a payload
// an int32 cannot describe, leave bufs and scratch as they were. m must not
// be nil, nor a nil pointer.
func AppendFrameBuffers(bufs net.Buffers, scratch []byte, m Message) (net.Buffers, []byte, error) {
	s := segmenter{bufs: bufs}
	var (
		out []byte
		err error
	)
	switch v := m.(type) {
	case FetchResponse:
		out, err = v.appendTo(scratch, &s)
	case *FetchResponse:
		out, err = v.appendTo(scratch, &s)
	case ProduceRequest:
		out, err = v.appendTo(scratch, &s)
	case *ProduceRequest:
		out, err = v.appendTo(scratch, &s)
	default:
		start := len(scratch)
		if out, err = m.AppendTo(append(scratch, 0, 0, 0, 0)); err != nil {
			break
		}
		n := len(out) - start - frameHeaderSize
		if !fitsInt32(n) {
			err = fmt.Errorf("%w: payload of %d bytes exceeds the int32 length prefix", ErrFrameTooLarge, n)
			break
		}
		binary.BigEndian.PutUint32(out[start:], uint32(n))
		s.start = start
		s.flush(out)
	}
	if err != nil {
		return bufs, scratch, err
	}
	return s.bufs, out, nil
}

// segmenter collects one frame as buffers for AppendFrameBuffers: the
// bytes encoded into the scratch buffer since start, then a Records slice
// by reference, and so on. An encoder given a segmenter grows its scratch
// buffer once, to the frame's size without the records, before it takes
// the first slice, so every slice points into the same array.
type segmenter struct {
	bufs  net.Buffers
	start int // where in the scratch buffer the bytes not yet in bufs begin
}

// flush appends the encoded bytes not yet in bufs, if any.
func (s *segmenter) flush(dst []byte) {
	if len(dst) > s.start {
		s.bufs = append(s.bufs, dst[s.start:len(dst):len(dst)])
		s.start = len(dst)
	}
}

// appendRecordsField appends a Records field: its int32 length, then the
// bytes themselves, or, when encoding for AppendFrameBuffers (s != nil), a
// reference to them in s. The encoder has checked the length.
func appendRecordsField(dst, records []byte, s *segmenter) []byte {
	dst = appendInt32(dst, int32(len(records)))
	if s == nil {
		return append(dst, records...)
	}
	if len(records) > 0 {
		s.flush(dst)
		s.bufs = append(s.bufs, records)
	}
	return dst
}

// beginFrame starts an encoding: without a segmenter it grows dst by the
// payload's size; with one it grows dst by the frame's size less the
// records (which will not be copied) and appends the frame's length prefix.
// It refuses a payload an int32 cannot describe.
func beginFrame(dst []byte, s *segmenter, fixed, records int) ([]byte, error) {
	if s == nil {
		return grow(dst, fixed+records), nil
	}
	if !fitsInt32(fixed + records) {
		return dst, fmt.Errorf("%w: payload of %d bytes exceeds the int32 length prefix", ErrFrameTooLarge, fixed+records)
	}
	dst = grow(dst, frameHeaderSize+fixed)
	s.start = len(dst)
	return binary.BigEndian.AppendUint32(dst, uint32(fixed+records)), nil
}

// WriteFrame writes one frame (see AppendFrame) to w with two Write calls,
// header then payload, so the payload is never copied; it does not allocate.
// Because of the two calls, concurrent writers on one w must serialise
// frames themselves. A TCP runtime that wants one system call per frame
// uses AppendFrameBuffers (or AppendFrameHeader) and net.Buffers instead.
// Errors from w are returned wrapped; a payload too long to frame gives
// ErrFrameTooLarge before anything is written.
func WriteFrame(w io.Writer, payload []byte) error {
	if !fitsInt32(len(payload)) {
		return fmt.Errorf("%w: payload of %d bytes exceeds the int32 length prefix", ErrFrameTooLarge, len(payload))
	}
	hdr := headerPool.Get().(*[frameHeaderSize]byte)
	defer headerPool.Put(hdr)
	binary.BigEndian.PutUint32(hdr[:], uint32(len(payload)))
	if _, err := w.Write(hdr[:]); err != nil {
		return fmt.Errorf("wire: write frame header: %w", err)
	}
	if len(payload) == 0 {
		return nil
	}
	if _, err := w.Write(payload); err != nil {
		return fmt.Errorf("wire: write frame payload: %w", err)
	}
	return nil
}

// frameGrowStart is the most ReadFrame allocates for a payload before its
// bytes arrive: the first buffer it allocates holds min(length, 64 KiB),
// and each later one at most twice what has arrived.
const frameGrowStart = 64 << 10

// ReadFrame reads one frame from r and returns its payload.
//
// The payload is read into buf's backing array when cap(buf) is large
// enough, so passing the previous result back as buf reads a stream of
// frames with no allocation. Otherwise the buffer grows as the payload
// arrives: ReadFrame fills buf's capacity first, then allocates
// min(length, 64 KiB) if buf was smaller, and doubles the buffer (never past
// the frame's length) each time it fills. A frame of length n read this way
// ends in an array of capacity exactly n, having copied fewer than 2n bytes
// on the way. The returned slice aliases the array and is overwritten by the
// next call that reuses it.
//
// The length prefix is checked before anything is allocated: a negative
// length gives ErrNegativeLength, and one above maxSize gives
// ErrFrameTooLarge. maxSize <= 0 means DefaultMaxFrameSize. A prefix within
// the limit reserves nothing either: a peer that announces 100 MiB and
// sends 10 bytes makes ReadFrame allocate 64 KiB, and in general the buffer
// is never larger than max(64 KiB, cap(buf), twice the bytes received).
//
// A stream that ends before the first byte of a frame gives io.EOF, exactly,
// so a reader loop can stop cleanly. One that ends later, inside the length
// prefix or the payload, gives ErrShortFrame, which also matches
// io.ErrUnexpectedEOF. Other errors from r are returned wrapped. After any
// error other than io.EOF the stream is out of step with its frames and
// should be closed.
func ReadFrame(r io.Reader, buf []byte, maxSize int) ([]byte, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxFrameSize
	}
	var hdr []byte
	if cap(buf) >= frameHeaderSize {
		hdr = buf[:frameHeaderSize]
	} else {
		scratch := headerPool.Get().(*[frameHeaderSize]byte)
		defer headerPool.Put(scratch)
		hdr = scratch[:]
	}
	if _, err := io.ReadFull(r, hdr); err != nil {
		switch {
		case err == io.EOF:
			return buf[:0], io.EOF
		case errors.Is(err, io.ErrUnexpectedEOF):
			return buf[:0], fmt.Errorf("%w: inside the length prefix", ErrShortFrame)
		}
		return buf[:0], fmt.Errorf("wire: read frame header: %w", err)
	}
	n := int32(binary.BigEndian.Uint32(hdr))
	if n < 0 {
		return buf[:0], fmt.Errorf("%w: frame length prefix %d", ErrNegativeLength, n)
	}
	if int64(n) > int64(maxSize) {
		return buf[:0], fmt.Errorf("%w: length prefix %d exceeds limit %d", ErrFrameTooLarge, n, maxSize)
	}
	size := int(n)
	if cap(buf) >= size {
		buf = buf[:size]
		if _, err := io.ReadFull(r, buf); err != nil {
			return buf[:0], payloadError(err, size)
		}
		return buf, nil
	}
	return readGrowing(r, buf, size)
}

// readGrowing reads a payload of size bytes, size > cap(buf), into a buffer
// that grows only as bytes arrive: buf's own capacity first (if it is at
// least min(size, frameGrowStart)), then doubling, capped at size.
func readGrowing(r io.Reader, buf []byte, size int) ([]byte, error) {
	if first := min(size, frameGrowStart); cap(buf) < first {
		buf = make([]byte, 0, first)
	}
	buf = buf[:0]
	for {
		// cap(buf) <= size throughout, so this never reads past the frame.
		m, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err != nil {
			return buf[:0], payloadError(err, size)
		}
		if len(buf) == size {
			return buf, nil
		}
		grown := make([]byte, len(buf), min(2*cap(buf), size))
		copy(grown, buf)
		buf = grown
	}
}

// payloadError is ReadFrame's error for a read of the payload that failed.
func payloadError(err error, size int) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: payload of %d bytes", ErrShortFrame, size)
	}
	return fmt.Errorf("wire: read frame payload: %w", err)
}
