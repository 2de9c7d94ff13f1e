package wire

import (
	"fmt"
	"strconv"
	"unsafe"
)

// MaxTopicLength is the longest topic name Kafka allows, in bytes (Kafka's
// Topic.MAX_NAME_LENGTH).
const MaxTopicLength = 249

// ValidateTopic reports whether name is a topic name Kafka would accept:
// 1 to MaxTopicLength bytes of [a-zA-Z0-9._-], and neither "." nor "..".
// This is the rule every data-plane encoder and decoder applies to a
// Topic field; the error matches ErrInvalidTopic (and so ErrMalformed and
// ErrInvalidTopicException). It does not check the rule Kafka only warns
// about: that '.' and '_' collide in metric names.
func ValidateTopic(name string) error {
	if why := topicProblem(name); why != "" {
		return fmt.Errorf("%w: %q%s", ErrInvalidTopic, name, why)
	}
	return nil
}

// topicProblem returns "" for a valid topic name, or why it is not one,
// phrased to follow the name in an error.
func topicProblem[T string | []byte](t T) string {
	switch {
	case len(t) == 0:
		return ": empty"
	case len(t) > MaxTopicLength:
		return fmt.Sprintf(": %d bytes, max %d", len(t), MaxTopicLength)
	case len(t) == 1 && t[0] == '.', len(t) == 2 && t[0] == '.' && t[1] == '.':
		return `: "." and ".." are not topic names`
	}
	for i := 0; i < len(t); i++ {
		if !topicByte(t[i]) {
			return fmt.Sprintf(": byte %d is %s, want [a-zA-Z0-9._-]", i, strconv.QuoteRune(rune(t[i])))
		}
	}
	return ""
}

func topicByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// topicBytes reads a Topic field: an int16 length and that many bytes,
// checked against Kafka's rule. The length is checked before the bytes are
// taken, so a length over MaxTopicLength is refused as a bad topic, not as
// a truncation.
func (d *decoder) topicBytes(field string) []byte {
	n := d.int16(field)
	switch {
	case d.err != nil:
		return nil
	case n < 0:
		d.fail(ErrNegativeLength, field, fmt.Sprintf(" length = %d", n))
		return nil
	case n == 0 || int(n) > MaxTopicLength:
		d.fail(ErrInvalidTopic, field, fmt.Sprintf(" length = %d, want 1..%d", n, MaxTopicLength))
		return nil
	}
	b := d.take(field, int(n))
	if b == nil {
		return nil
	}
	if why := topicProblem(b); why != "" {
		d.fail(ErrInvalidTopic, field, fmt.Sprintf(" = %q%s", b, why))
		return nil
	}
	return b
}

// partition reads a partition index, which is never negative.
func (d *decoder) partition(field string) int32 {
	v := d.int32(field)
	if d.err == nil && v < 0 {
		d.fail(ErrInvalidPartition, field, fmt.Sprintf(" = %d, want >= 0", v))
		return 0
	}
	return v
}

// topicHolder is a pointer to an array element with a Topic field: the
// element types of the data-plane messages' Partitions slices.
type topicHolder[E any] interface {
	*E
	topicName() string
}

// topicCacheSize is how many distinct topic strings a topicCache holds.
const topicCacheSize = 16

// topicSeedSlack is how far past the destination's previous length a
// topicCache looks into its spare capacity when it seeds itself.
const topicSeedSlack = 4 * topicCacheSize

// topicCache interns the topic names of one decode without a map, and so
// without allocating: a small ring of distinct topic strings, seeded from
// the destination's array the first time a lookup needs it.
type topicCache struct {
	names  [topicCacheSize]string
	n      int  // filled entries
	next   int  // entry the next add replaces once full
	old    int  // the destination's length before this decode
	seeded bool // seed has run
}

// newTopicCache returns an empty cache for a decode into a destination
// whose Partitions held old elements.
func newTopicCache(old int) topicCache { return topicCache{old: old} }

// add remembers s, replacing the oldest entry when full.
func (c *topicCache) add(s string) {
	if c.n < topicCacheSize {
		c.names[c.n] = s
		c.n++
		return
	}
	c.names[c.next] = s
	c.next = (c.next + 1) % topicCacheSize
}

// find returns the cached string equal to b, if any.
func (c *topicCache) find(b []byte) (string, bool) {
	for _, s := range c.names[:c.n] {
		if s == string(b) {
			return s, true
		}
	}
	return "", false
}

// has reports whether s is cached. Strings decoded into one destination
// share their bytes, so comparing data pointers first settles most
// lookups without comparing bytes.
func (c *topicCache) has(s string) bool {
	p := unsafe.StringData(s)
	for _, t := range c.names[:c.n] {
		if unsafe.StringData(t) == p && len(t) == len(s) {
			return true
		}
	}
	for _, t := range c.names[:c.n] {
		if t == s {
			return true
		}
	}
	return false
}

// seed fills the cache with the first distinct topics of the backing array
// of ps, the slice being decoded into: elements already decoded hold this
// payload's topics, the rest what the destination held before. It looks at
// the first old+topicSeedSlack elements at most, so the work is paid for
// by the previous decode (which left that length), never by a large
// capacity that a small payload inherits: a decode stays linear in the
// bytes received.
func seed[E any, P topicHolder[E]](c *topicCache, ps []E) {
	c.seeded = true
	prev := ""
	all := ps[:min(cap(ps), c.old+topicSeedSlack)]
	for j := 0; j < len(all) && c.n < topicCacheSize; j++ {
		s := P(&all[j]).topicName()
		if s == "" || (len(s) == len(prev) && unsafe.StringData(s) == unsafe.StringData(prev)) {
			continue
		}
		prev = s
		if !c.has(s) {
			c.add(s)
		}
	}
}

// readTopic reads the Topic of element i of ps, the slice being decoded
// into, and returns a string that is already at hand whenever one is equal,
// so that a warm destination decodes without allocating: element i before
// it is overwritten (the same partition list as last time, as a follower
// sends on every fetch), element i-1 (the partitions of a topic are usually
// adjacent), then the cache of distinct topics, seeded from the array on
// the first lookup that gets this far. Only a name found in none of these
// is allocated, once, and added to the cache. Each step is bounded, so a
// request naming many topics costs linear time.
func readTopic[E any, P topicHolder[E]](d *decoder, c *topicCache, field string, ps []E, i int) string {
	b := d.topicBytes(field)
	if b == nil {
		return ""
	}
	if s := P(&ps[:cap(ps)][i]).topicName(); s == string(b) {
		return s
	}
	if i > 0 {
		if s := P(&ps[i-1]).topicName(); s == string(b) {
			return s
		}
	}
	if !c.seeded {
		seed[E, P](c, ps)
	}
	if s, ok := c.find(b); ok {
		return s
	}
	s := string(b)
	c.add(s)
	return s
}

// reuse returns a slice of n elements to decode into: s's own array when it
// is large enough, otherwise one new array holding a copy of all of s's
// (so its topic strings stay available to readTopic). Exactly one
// allocation when s is too small; none otherwise, and none when n is 0 and
// s is nil, so an empty array decodes as nil.
func reuse[E any](s []E, n int) []E {
	if n <= cap(s) {
		return s[:n]
	}
	out := make([]E, n)
	copy(out, s[:cap(s)])
	return out
}

// appendTopic appends a Topic field; the encoder has checked it, so its
// length fits the int16.
func appendTopic(dst []byte, t string) []byte {
	dst = appendInt16(dst, int16(len(t)))
	return append(dst, t...)
}
