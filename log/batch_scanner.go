package log

// BatchScanner walks the batches in a byte slice without allocating,
// verifying each one's framing and CRC (as VerifyBatch does) but not parsing
// its records. It is how a storage layer recovers a segment: scan until Next
// returns false; if Err is non-nil, the bytes from Pos onward are a torn or
// corrupt tail, and everything before Pos is whole, checksummed batches.
//
//	var s BatchScanner
//	s.Reset(buf)
//	for s.Next() {
//		use(s.Pos(), s.Header(), s.Bytes())
//	}
//	if err := s.Err(); err != nil { ... buf[:s.Pos()] is the valid prefix ... }
//
// The zero value scans an empty slice. A BatchScanner is not safe for
// concurrent use.
type BatchScanner struct {
	buf    []byte
	pos    int         // start of the current batch; after the end, where scanning stopped
	next   int         // start of the batch the next call to Next reads; pos <= next <= len(buf)
	header BatchHeader // header of the current batch; zero when there is none
	err    error       // first failure; once set, Next returns false
}

// Reset makes s scan buf from its first byte, forgetting any previous state.
func (s *BatchScanner) Reset(buf []byte) {
	*s = BatchScanner{buf: buf}
}

// Next advances to the next batch and reports whether there is one. It
// returns false at the end of the input or at the first batch that fails
// VerifyBatch; Err tells the two apart.
func (s *BatchScanner) Next() bool {
	s.header = BatchHeader{}
	s.pos = s.next
	if s.err != nil || s.next >= len(s.buf) {
		return false
	}
	h, err := VerifyBatch(s.buf[s.next:])
	if err != nil {
		s.err = shiftCorruptPos(err, s.next)
		return false
	}
	s.header = h
	s.next += h.Size()
	return true
}

// Header returns the verified header of the current batch, or the zero
// BatchHeader once Next has returned false.
func (s *BatchScanner) Header() BatchHeader { return s.header }

// Bytes returns the current batch's bytes (aliasing the scanned slice, with
// capacity clipped to the batch), or nil once Next has returned false.
func (s *BatchScanner) Bytes() []byte {
	if s.next == s.pos {
		return nil
	}
	return s.buf[s.pos:s.next:s.next]
}

// Pos returns the byte position of the current batch in the scanned slice.
// Once Next has returned false it is where scanning stopped: len(buf) after
// a clean end, or the start of the batch that failed, so buf[:Pos()] is
// always a run of whole, verified batches.
func (s *BatchScanner) Pos() int { return s.pos }

// Err returns nil if scanning ended cleanly at the end of the input (or has
// not ended), or else the *CorruptError for the batch at Pos, with its
// position relative to the scanned slice.
func (s *BatchScanner) Err() error { return s.err }
