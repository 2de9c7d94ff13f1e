package log

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
)

// The clean-shutdown marker, .kafka_cleanshutdown, is written last by
// Close, after every segment, index file and checkpoint is fsynced, and
// deleted first by Open. It lets Open trust the directory without reading
// a segment. Its content (see doc.go):
//
//	kaenlog clean shutdown 2
//	start 0
//	end 4127
//	max-timestamp 1700000000000 4120
//	segments 2
//	0 1073741590
//	2050 51020
//	crc 1a2b3c4d
//
// The crc line is the CRC-32C, in hex, of every byte before it. A marker
// that does not parse, fails its CRC, or does not match the directory is
// ignored: Open then recovers as after a crash.
const (
	markerHeader = "kaenlog clean shutdown 2"
	// markerLimit bounds the marker Open reads: about 40 bytes a segment.
	markerLimit = 64 << 20
)

// segmentRecord is one segment as Close left it: its base offset and size
// in bytes, -1 when Close never needed to open it (a segment Open trusted
// without reading and nothing used since).
type segmentRecord struct {
	base uint64
	size int64
}

// shutdownRecord is what the marker holds. activeMax is the active
// segment's largest timestamp and its offset (maxTime), which appends
// after a clean Open continue the time index from without reading the
// segment.
type shutdownRecord struct {
	start, end uint64
	activeMax  maxTime
	segments   []segmentRecord
}

// appendShutdownRecord encodes r onto dst.
func appendShutdownRecord(dst []byte, r shutdownRecord) []byte {
	start := len(dst)
	dst = append(dst, markerHeader+"\nstart "...)
	dst = strconv.AppendUint(dst, r.start, 10)
	dst = append(dst, "\nend "...)
	dst = strconv.AppendUint(dst, r.end, 10)
	dst = append(dst, "\nmax-timestamp "...)
	dst = strconv.AppendInt(dst, r.activeMax.ts, 10)
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, r.activeMax.off, 10)
	dst = append(dst, "\nsegments "...)
	dst = strconv.AppendInt(dst, int64(len(r.segments)), 10)
	dst = append(dst, '\n')
	for _, s := range r.segments {
		dst = strconv.AppendUint(dst, s.base, 10)
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, s.size, 10)
		dst = append(dst, '\n')
	}
	crc := ChecksumCRC32C(dst[start:])
	return fmt.Appendf(dst, "crc %08x\n", crc)
}

// parseShutdownRecord decodes a marker. Every count is bounded by the
// bytes present before anything is allocated. Errors say why the marker is
// not trusted; they are reported, never returned by Open.
func parseShutdownRecord(data []byte) (shutdownRecord, error) {
	var r shutdownRecord
	crcAt := bytes.LastIndex(data, []byte("crc "))
	if crcAt < 0 || (crcAt > 0 && data[crcAt-1] != '\n') {
		return r, fmt.Errorf("no crc line")
	}
	want, err := strconv.ParseUint(string(bytes.TrimSuffix(data[crcAt+4:], []byte("\n"))), 16, 32)
	if err != nil || len(data)-crcAt != len("crc 00000000\n") {
		return r, fmt.Errorf("malformed crc line")
	}
	body := data[:crcAt]
	if ChecksumCRC32C(body) != uint32(want) {
		return r, fmt.Errorf("crc mismatch")
	}
	lines := bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n"))
	if len(lines) < 5 || string(lines[0]) != markerHeader {
		return r, fmt.Errorf("unknown format")
	}
	field := func(line []byte, name string) (uint64, error) {
		v, ok := bytes.CutPrefix(line, []byte(name+" "))
		if !ok {
			return 0, fmt.Errorf("want %q line, have %q", name, clipForError(line))
		}
		return parseDecimal(v)
	}
	if r.start, err = field(lines[1], "start"); err != nil {
		return r, err
	}
	if r.end, err = field(lines[2], "end"); err != nil {
		return r, err
	}
	mt, ok := bytes.CutPrefix(lines[3], []byte("max-timestamp "))
	ts, off, ok2 := bytes.Cut(mt, []byte(" "))
	if !ok || !ok2 {
		return r, fmt.Errorf("want \"max-timestamp\" line, have %q", clipForError(lines[3]))
	}
	if r.activeMax.off, err = parseDecimal(off); err != nil {
		return r, err
	}
	// -1 (noTimestamp, with offset 0) or a timestamp above it, in the
	// canonical decimal form.
	if r.activeMax.ts, err = strconv.ParseInt(string(ts), 10, 64); err != nil || strconv.FormatInt(r.activeMax.ts, 10) != string(ts) ||
		r.activeMax.ts < noTimestamp || (r.activeMax.ts == noTimestamp && r.activeMax.off != 0) {
		return r, fmt.Errorf("bad max-timestamp %q", clipForError(lines[3]))
	}
	n, err := field(lines[4], "segments")
	if err != nil {
		return r, err
	}
	if n != uint64(len(lines)-5) || n == 0 {
		return r, fmt.Errorf("%d segment lines, count says %d", len(lines)-5, n)
	}
	r.segments = make([]segmentRecord, 0, n)
	for _, line := range lines[5:] {
		b, s, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			return r, fmt.Errorf("bad segment line %q", clipForError(line))
		}
		base, err := parseDecimal(b)
		if err != nil {
			return r, err
		}
		size := int64(-1) // unknown: Close never opened the segment
		if string(s) != "-1" {
			v, err := parseDecimal(s)
			if err != nil || v > math.MaxUint32 {
				return r, fmt.Errorf("bad segment size %q", clipForError(s))
			}
			size = int64(v)
		}
		if k := len(r.segments); k > 0 && base <= r.segments[k-1].base {
			return r, fmt.Errorf("segment bases not increasing")
		}
		r.segments = append(r.segments, segmentRecord{base: base, size: size})
	}
	if last := r.segments[len(r.segments)-1].base; r.end < last || r.start > r.end {
		return r, fmt.Errorf("start %d, end %d and last segment %d disagree", r.start, r.end, last)
	}
	if last := r.segments[len(r.segments)-1].base; r.activeMax.ts != noTimestamp && (r.activeMax.off < last || r.activeMax.off >= r.end) {
		return r, fmt.Errorf("max-timestamp offset %d outside the active segment [%d, %d)", r.activeMax.off, last, r.end)
	}
	return r, nil
}

// parseDecimal parses digits only (no sign, no spaces) into an offset that
// fits int64.
func parseDecimal(b []byte) (uint64, error) {
	if len(b) == 0 || len(b) > 19 || len(bytes.TrimLeft(b, "0123456789")) != 0 {
		return 0, fmt.Errorf("%q is not an offset", clipForError(b))
	}
	v, err := strconv.ParseUint(string(b), 10, 63)
	if err != nil {
		return 0, fmt.Errorf("%q is not an offset", clipForError(b))
	}
	return v, nil
}
