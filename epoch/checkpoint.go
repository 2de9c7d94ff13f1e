package epoch

import (
	"fmt"
	"strconv"
	"strings"
)

// checkpointVersion is the only leader-epoch-checkpoint version Kafka writes
// (LeaderEpochCheckpointFile.CURRENT_VERSION).
const checkpointVersion = 0

// ParseCheckpoint decodes Kafka's leader-epoch-checkpoint text format:
//
//	0            version
//	2            number of entries
//	0 0          epoch start_offset, separated by whitespace
//	1 5
//
// Lines end in "\n" (a "\r" before it is tolerated, as Java's readLine does);
// the last newline is optional. An empty file holds no entries — Kafka
// creates the file empty before its first write. A file with a version but no
// count is rejected rather than read as empty (Kafka reads it as empty): no
// writer produces it, so it means damage. Everything else that is wrong
// returns an error wrapping ErrBadCheckpoint; ParseCheckpoint never panics.
// It allocates in proportion to len(data): the caller bounds the file size.
func ParseCheckpoint(data []byte) ([]Entry, error) {
	if len(data) == 0 {
		return nil, nil
	}
	lines := strings.Split(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the final newline ends a line, it does not start one
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}

	version, err := strconv.ParseInt(lines[0], 10, 32)
	if err != nil || version != checkpointVersion {
		return nil, fmt.Errorf("%w: line 1: version %q, want %d", ErrBadCheckpoint, lines[0], checkpointVersion)
	}
	if len(lines) < 2 {
		return nil, fmt.Errorf("%w: line 2: missing entry count", ErrBadCheckpoint)
	}
	count, err := strconv.ParseInt(lines[1], 10, 32)
	if err != nil || count < 0 {
		return nil, fmt.Errorf("%w: line 2: entry count %q", ErrBadCheckpoint, lines[1])
	}
	body := lines[2:]
	if int64(len(body)) != count {
		return nil, fmt.Errorf("%w: entry count %d, but %d entry lines", ErrBadCheckpoint, count, len(body))
	}

	entries := make([]Entry, 0, len(body))
	for i, line := range body {
		e, err := parseEntry(line)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrBadCheckpoint, i+3, err)
		}
		if n := len(entries); n > 0 && (e.Epoch <= entries[n-1].Epoch || e.StartOffset <= entries[n-1].StartOffset) {
			return nil, fmt.Errorf("%w: line %d: entry %d %d does not follow %d %d (epochs and start offsets must strictly increase)",
				ErrBadCheckpoint, i+3, e.Epoch, e.StartOffset, entries[n-1].Epoch, entries[n-1].StartOffset)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// parseEntry decodes one "epoch start_offset" line. Like Kafka's formatter it
// splits on runs of whitespace and wants exactly two fields; trailing
// whitespace is dropped (as Java's split does), leading whitespace makes an
// empty first field in Java, so it is rejected here too.
func parseEntry(line string) (Entry, error) {
	epochText, startText, ok := splitTwoFields(line)
	if !ok {
		return Entry{}, fmt.Errorf("want \"epoch start_offset\", got %q", line)
	}
	epoch, err := strconv.ParseInt(epochText, 10, 32)
	if err != nil || epoch < 0 {
		return Entry{}, fmt.Errorf("epoch %q is not a non-negative int32", epochText)
	}
	start, err := strconv.ParseInt(startText, 10, 64)
	if err != nil || start < 0 {
		return Entry{}, fmt.Errorf("start offset %q is not a non-negative int64", startText)
	}
	return Entry{Epoch: int32(epoch), StartOffset: uint64(start)}, nil
}

// splitTwoFields splits line into exactly two whitespace-separated fields
// without allocating.
func splitTwoFields(line string) (first, second string, ok bool) {
	i := indexSpace(line)
	if i <= 0 { // no separator, or leading whitespace
		return "", "", false
	}
	first, rest := line[:i], trimLeftSpace(line[i:])
	j := indexSpace(rest)
	if j < 0 {
		j = len(rest)
	}
	second = rest[:j]
	if second == "" || trimLeftSpace(rest[j:]) != "" {
		return "", "", false
	}
	return first, second, true
}

func indexSpace(s string) int {
	for i := 0; i < len(s); i++ {
		if isASCIISpace(s[i]) {
			return i
		}
	}
	return -1
}

func trimLeftSpace(s string) string {
	for len(s) > 0 && isASCIISpace(s[0]) {
		s = s[1:]
	}
	return s
}

// isASCIISpace is Java's regex \s: space, \t, \n, \v, \f, \r.
func isASCIISpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// AppendCheckpoint appends the checkpoint encoding of entries (the format
// ParseCheckpoint reads, byte for byte what Kafka writes on Linux) to dst
// and returns the extended slice. Entries come from a Cache, so their start
// offsets fit int64 (Assign and TruncateFromStart enforce it).
func AppendCheckpoint(dst []byte, entries []Entry) []byte {
	b := strconv.AppendInt(dst, checkpointVersion, 10)
	b = append(b, '\n')
	b = strconv.AppendInt(b, int64(len(entries)), 10)
	b = append(b, '\n')
	for _, e := range entries {
		b = strconv.AppendInt(b, int64(e.Epoch), 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, e.StartOffset, 10)
		b = append(b, '\n')
	}
	return b
}
