package group

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The records of __consumer_offsets, in Kafka's formats (the JSON schemas of
// apache/kafka group-coordinator/src/main/resources/common/message/). Every
// key and value starts with an int16 version; the rest is Kafka's classic,
// non-flexible encoding: int16-length strings (-1 for a null one),
// int32-length bytes, int32-count arrays, big-endian integers.
//
//	OffsetCommitKey   (key version 0 or 1; written as 1)
//	  group string, topic string, partition int32
//	OffsetCommitValue (value versions 0-3 read; written as 3)
//	  offset int64
//	  leaderEpoch int32          (v3+, KIP-320; -1 when absent)
//	  metadata string
//	  commitTimestamp int64
//	  expireTimestamp int64      (v1 only; read and dropped)
//	GroupMetadataKey  (key version 2)
//	  group string
//	GroupMetadataValue (value versions 0-3 read; written as 3)
//	  protocolType string, generation int32,
//	  protocol nullable string, leader nullable string,
//	  currentStateTimestamp int64 (v2+)
//	  members [] of
//	    memberId string, groupInstanceId nullable string (v3+),
//	    clientId string, clientHost string,
//	    rebalanceTimeout int32 (v1+), sessionTimeout int32,
//	    subscription bytes, assignment bytes
//
// A nil value is a tombstone: it deletes its key when the partition is
// replayed, and compaction eventually removes both. Version 4 of either
// value (KIP-915's first flexible version) and key versions above 2 (the
// records of KIP-848's consumer groups and of share groups) are not read:
// kaenlog writes neither, and [Coordinator.Load] skips keys of other record
// types as Kafka's loader does.
const (
	offsetKeyVersion     = 1
	groupKeyVersion      = 2
	offsetValueVersion   = 3
	groupValueVersion    = 3
	maxReadValueVersion  = 3
	legacyOffsetKeyV0    = 0
	noLeaderEpoch        = -1
	minMemberRecordBytes = 2 + 2 + 2 + 4 + 4 + 4 // v0: three empty strings, a timeout, two empty byte fields
)

// ErrMalformedRecord is the family of every error DecodeKey and DecodeValue
// return: the bytes are not a __consumer_offsets record kaenlog reads.
var ErrMalformedRecord = errors.New("group: malformed __consumer_offsets record")

// Key is a decoded __consumer_offsets key: an offset commit's (Topic and
// Partition set) or a group's metadata (IsGroup).
type Key struct {
	// IsGroup is true for a GroupMetadataKey, false for an
	// OffsetCommitKey.
	IsGroup bool
	// Group is the group id.
	Group string
	// Topic is the committed partition's topic (offset keys only).
	Topic string
	// Partition is the committed partition's index (offset keys only).
	Partition int32
}

// OffsetValue is a decoded OffsetCommitValue: what OffsetFetch answers.
type OffsetValue struct {
	// Offset is the committed offset, the next one the group consumes.
	Offset int64
	// LeaderEpoch is the epoch of the record before Offset (KIP-320), or
	// -1 when the committer did not know it.
	LeaderEpoch int32
	// Metadata is the committer's string, kept opaque.
	Metadata string
	// CommitTimestampMs is the coordinator's time of the commit.
	CommitTimestampMs int64
}

// GroupValue is a decoded GroupMetadataValue: a group's generation and
// members as of its last write.
type GroupValue struct {
	// ProtocolType is the members' protocol type ("consumer", "connect").
	ProtocolType string
	// Generation is the group's generation id.
	Generation int32
	// Protocol is the selected protocol, "" when none (a null string).
	Protocol string
	// Leader is the leader's member id, "" when none.
	Leader string
	// CurrentStateTimestampMs is when the group entered its state, or -1.
	CurrentStateTimestampMs int64
	// Members are the group's members with their assignments.
	Members []MemberValue
}

// MemberValue is one member of a GroupValue.
type MemberValue struct {
	// MemberID is the coordinator-given member id.
	MemberID string
	// GroupInstanceID is a static member's group.instance.id (KIP-345),
	// "" for a dynamic member.
	GroupInstanceID string
	// ClientID is the client's client.id.
	ClientID string
	// ClientHost is the client's address.
	ClientHost string
	// RebalanceTimeoutMs is the member's rebalance timeout.
	RebalanceTimeoutMs int32
	// SessionTimeoutMs is the member's session timeout.
	SessionTimeoutMs int32
	// Subscription is the member's metadata for the selected protocol.
	Subscription []byte
	// Assignment is what the leader assigned the member, opaque.
	Assignment []byte
}

// OffsetKey encodes the key of an offset commit record (key version 1).
func OffsetKey(group, topic string, partition int32) []byte {
	b := binary.BigEndian.AppendUint16(nil, offsetKeyVersion)
	b = appendString(b, group)
	b = appendString(b, topic)
	return binary.BigEndian.AppendUint32(b, uint32(partition))
}

// GroupKey encodes the key of a group metadata record (key version 2).
func GroupKey(group string) []byte {
	b := binary.BigEndian.AppendUint16(nil, groupKeyVersion)
	return appendString(b, group)
}

// EncodeOffsetValue encodes v as an OffsetCommitValue of version 3.
func EncodeOffsetValue(v OffsetValue) []byte {
	b := binary.BigEndian.AppendUint16(nil, offsetValueVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(v.Offset))
	b = binary.BigEndian.AppendUint32(b, uint32(v.LeaderEpoch))
	b = appendString(b, v.Metadata)
	return binary.BigEndian.AppendUint64(b, uint64(v.CommitTimestampMs))
}

// EncodeGroupValue encodes v as a GroupMetadataValue of version 3. An empty
// Protocol, Leader or GroupInstanceID is written as a null string, as Kafka
// writes an absent one.
func EncodeGroupValue(v GroupValue) []byte {
	b := binary.BigEndian.AppendUint16(nil, groupValueVersion)
	b = appendString(b, v.ProtocolType)
	b = binary.BigEndian.AppendUint32(b, uint32(v.Generation))
	b = appendNullable(b, v.Protocol)
	b = appendNullable(b, v.Leader)
	b = binary.BigEndian.AppendUint64(b, uint64(v.CurrentStateTimestampMs))
	b = binary.BigEndian.AppendUint32(b, uint32(len(v.Members)))
	for _, m := range v.Members {
		b = appendString(b, m.MemberID)
		b = appendNullable(b, m.GroupInstanceID)
		b = appendString(b, m.ClientID)
		b = appendString(b, m.ClientHost)
		b = binary.BigEndian.AppendUint32(b, uint32(m.RebalanceTimeoutMs))
		b = binary.BigEndian.AppendUint32(b, uint32(m.SessionTimeoutMs))
		b = appendBytes(b, m.Subscription)
		b = appendBytes(b, m.Assignment)
	}
	return b
}

// DecodeKey decodes a __consumer_offsets key. ok is false, with a nil
// error, for a well-formed key of a record type kaenlog does not read
// (version 3 and above); err matches ErrMalformedRecord when the bytes do
// not decode.
func DecodeKey(b []byte) (k Key, ok bool, err error) {
	r := reader{b: b}
	v := r.i16()
	switch {
	case r.err != nil:
		return Key{}, false, r.err
	case v == legacyOffsetKeyV0 || v == offsetKeyVersion:
		k.Group, k.Topic, k.Partition = r.str(), r.str(), r.i32()
	case v == groupKeyVersion:
		k.IsGroup, k.Group = true, r.str()
	case v > groupKeyVersion:
		return Key{}, false, nil
	default:
		return Key{}, false, fmt.Errorf("%w: key version %d", ErrMalformedRecord, v)
	}
	if err := r.done(); err != nil {
		return Key{}, false, err
	}
	return k, true, nil
}

// DecodeOffsetValue decodes an OffsetCommitValue of version 0 to 3.
func DecodeOffsetValue(b []byte) (OffsetValue, error) {
	r := reader{b: b}
	ver := r.version()
	v := OffsetValue{Offset: r.i64(), LeaderEpoch: noLeaderEpoch}
	if ver >= 3 {
		v.LeaderEpoch = r.i32()
	}
	v.Metadata = r.str()
	v.CommitTimestampMs = r.i64()
	if ver == 1 {
		r.i64() // expireTimestamp: KIP-211 dropped per-commit retention
	}
	if err := r.done(); err != nil {
		return OffsetValue{}, err
	}
	if v.Offset < 0 {
		return OffsetValue{}, fmt.Errorf("%w: negative offset %d", ErrMalformedRecord, v.Offset)
	}
	return v, nil
}

// DecodeGroupValue decodes a GroupMetadataValue of version 0 to 3. Every
// count and length is checked against the bytes left before anything is
// allocated for it.
func DecodeGroupValue(b []byte) (GroupValue, error) {
	r := reader{b: b}
	ver := r.version()
	v := GroupValue{ProtocolType: r.str(), Generation: r.i32(), CurrentStateTimestampMs: -1}
	v.Protocol = r.nullable()
	v.Leader = r.nullable()
	if ver >= 2 {
		v.CurrentStateTimestampMs = r.i64()
	}
	n := r.i32()
	if r.err == nil && (n < 0 || int(n) > len(r.b)/minMemberRecordBytes) {
		r.fail("member count %d for %d bytes", n, len(r.b))
	}
	if r.err == nil && n > 0 {
		v.Members = make([]MemberValue, 0, n)
	}
	for i := int32(0); i < n && r.err == nil; i++ {
		m := MemberValue{MemberID: r.str()}
		if ver >= 3 {
			m.GroupInstanceID = r.nullable()
		}
		m.ClientID, m.ClientHost = r.str(), r.str()
		if ver >= 1 {
			m.RebalanceTimeoutMs = r.i32()
		}
		m.SessionTimeoutMs = r.i32()
		if ver == 0 {
			m.RebalanceTimeoutMs = m.SessionTimeoutMs // v0 had one timeout
		}
		m.Subscription, m.Assignment = r.bytes(), r.bytes()
		v.Members = append(v.Members, m)
	}
	if err := r.done(); err != nil {
		return GroupValue{}, err
	}
	return v, nil
}

// DecodeSubscribedTopics reads the topics of a consumer protocol
// subscription (Kafka's ConsumerProtocolSubscription, versions 0-3, which
// all start with an int16 version and an array of topic names). The rest,
// user data and owned partitions, is not read. OffsetDelete needs only the
// topics, as Kafka's ClassicGroup.computeSubscribedTopics does.
func DecodeSubscribedTopics(b []byte) ([]string, error) {
	r := reader{b: b}
	if v := r.i16(); r.err == nil && v < 0 {
		r.fail("subscription version %d", v)
	}
	n := r.i32()
	if r.err == nil && (n < 0 || int(n) > len(r.b)/2) {
		r.fail("topic count %d for %d bytes", n, len(r.b))
	}
	if r.err != nil {
		return nil, r.err
	}
	topics := make([]string, 0, n)
	for i := int32(0); i < n && r.err == nil; i++ {
		topics = append(topics, r.str())
	}
	return topics, r.err
}

func appendString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

func appendNullable(b []byte, s string) []byte {
	if s == "" {
		return binary.BigEndian.AppendUint16(b, math.MaxUint16) // -1: null
	}
	return appendString(b, s)
}

func appendBytes(b, p []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
	return append(b, p...)
}

// reader decodes Kafka's classic encoding; the first failure sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{ErrMalformedRecord}, args...)...)
	}
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.fail("%d bytes wanted, %d left", n, len(r.b))
		return nil
	}
	p := r.b[:n:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) i16() int16 {
	if p := r.take(2); p != nil {
		return int16(binary.BigEndian.Uint16(p))
	}
	return 0
}

func (r *reader) i32() int32 {
	if p := r.take(4); p != nil {
		return int32(binary.BigEndian.Uint32(p))
	}
	return 0
}

func (r *reader) i64() int64 {
	if p := r.take(8); p != nil {
		return int64(binary.BigEndian.Uint64(p))
	}
	return 0
}

// version reads a value's version, refusing any kaenlog does not read.
func (r *reader) version() int16 {
	v := r.i16()
	if r.err == nil && (v < 0 || v > maxReadValueVersion) {
		r.fail("value version %d", v)
	}
	return v
}

func (r *reader) str() string {
	n := r.i16()
	if r.err == nil && n < 0 {
		r.fail("null string where one is required")
	}
	return string(r.take(int(n)))
}

func (r *reader) nullable() string {
	n := r.i16()
	if n == -1 {
		return ""
	}
	return string(r.take(int(n)))
}

func (r *reader) bytes() []byte {
	n := r.i32()
	if r.err == nil && n < 0 {
		return nil // a null bytes field reads as empty
	}
	p := r.take(int(n))
	if len(p) == 0 {
		return nil
	}
	return append([]byte(nil), p...)
}

func (r *reader) done() error {
	if r.err == nil && len(r.b) != 0 {
		r.fail("%d trailing bytes", len(r.b))
	}
	return r.err
}
