package client

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// The "consumer" protocol type's metadata, Kafka's ConsumerProtocol
// formats at version 0 (ConsumerProtocolSubscription.json,
// ConsumerProtocolAssignment.json), so that a group can mix kaenlog's
// members with Kafka clients' reaching the coordinator through the Kafka
// listener. The coordinator never reads them: the leader does.
//
//	Subscription: Version i16 | Topics [n]{string} | UserData nullable bytes
//	Assignment:   Version i16 | AssignedPartitions [n]{Topic string
//	              | Partitions [n]{i32}} | UserData nullable bytes
//
// Later versions add fields after these (owned partitions, generation,
// rack); a decoder reads version 0's and ignores the rest, as Kafka's
// deserializers read a newer version than they know.

// consumerProtocolType and rangeAssignor are the protocol type and the
// one assignor a GroupConsumer joins with.
const (
	consumerProtocolType = "consumer"
	rangeAssignor        = "range"
)

// errProtocol is a subscription or assignment that does not decode.
var errProtocol = errors.New("client: malformed consumer protocol metadata")

// appendSubscription encodes a subscription to topics.
func appendSubscription(dst []byte, topics []string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(topics)))
	for _, t := range topics {
		dst = appendProtoString(dst, t)
	}
	return binary.BigEndian.AppendUint32(dst, 0xffffffff) // no user data
}

// appendAssignment encodes an assignment of partitions (by topic).
func appendAssignment(dst []byte, parts map[string][]int32) []byte {
	topics := make([]string, 0, len(parts))
	for t := range parts {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	dst = binary.BigEndian.AppendUint16(dst, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(topics)))
	for _, t := range topics {
		dst = appendProtoString(dst, t)
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(parts[t])))
		for _, p := range parts[t] {
			dst = binary.BigEndian.AppendUint32(dst, uint32(p))
		}
	}
	return binary.BigEndian.AppendUint32(dst, 0xffffffff)
}

func appendProtoString(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(s)))
	return append(dst, s...)
}

// protoReader reads the formats above; every count and length is checked
// against the bytes left before anything is allocated for it.
type protoReader struct {
	b   []byte
	err error
}

func (r *protoReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", errProtocol, what)
	}
}

func (r *protoReader) int16() int16 {
	if r.err != nil || len(r.b) < 2 {
		r.fail("truncated")
		return 0
	}
	v := int16(binary.BigEndian.Uint16(r.b))
	r.b = r.b[2:]
	return v
}

func (r *protoReader) int32() int32 {
	if r.err != nil || len(r.b) < 4 {
		r.fail("truncated")
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.b))
	r.b = r.b[4:]
	return v
}

// count reads an array count whose elements take at least minSize bytes.
func (r *protoReader) count(minSize int) int {
	n := r.int32()
	if r.err == nil && (n < 0 || int64(n)*int64(minSize) > int64(len(r.b))) {
		r.fail(fmt.Sprintf("count %d with %d bytes left", n, len(r.b)))
		return 0
	}
	return int(n)
}

func (r *protoReader) str() string {
	n := r.int16()
	if r.err == nil && (n < 0 || int(n) > len(r.b)) {
		r.fail(fmt.Sprintf("string of %d bytes with %d left", n, len(r.b)))
	}
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// version reads the version, which must not be negative.
func (r *protoReader) version() {
	if v := r.int16(); r.err == nil && v < 0 {
		r.fail(fmt.Sprintf("version %d", v))
	}
}

// decodeSubscription returns the topics of a member's subscription.
func decodeSubscription(b []byte) ([]string, error) {
	r := protoReader{b: b}
	r.version()
	n := r.count(2)
	var topics []string
	for range n {
		if t := r.str(); r.err == nil {
			topics = append(topics, t)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return topics, nil
}

// decodeAssignment returns the partitions of an assignment, by topic and
// index; an empty assignment (a member the leader gave nothing) is none.
func decodeAssignment(b []byte) ([]TopicPartition, error) {
	if len(b) == 0 {
		return nil, nil
	}
	r := protoReader{b: b}
	r.version()
	n := r.count(2 + 4)
	var tps []TopicPartition
	for range n {
		t := r.str()
		m := r.count(4)
		for range m {
			if p := r.int32(); r.err == nil {
				if p < 0 {
					r.fail(fmt.Sprintf("partition %d", p))
					break
				}
				tps = append(tps, TopicPartition{Topic: t, Partition: p})
			}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	slices.SortFunc(tps, compareTP)
	return slices.Compact(tps), nil
}

func compareTP(a, b TopicPartition) int {
	return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
}

// rangeMember is a member as the range assignor sees it.
type rangeMember struct {
	id, instance string
	topics       []string
}

// assignRange is Kafka's RangeAssignor: for each topic, its partitions in
// order are split into contiguous ranges over the members subscribed to
// it, in member order (static members by group.instance.id first, then
// dynamic ones by member id, as Kafka's MemberInfo orders them); the
// first partitions%members members get one more. partitions gives each
// topic's count; a topic it lacks (not in the metadata) is assigned to
// nobody.
func assignRange(members []rangeMember, partitions map[string]int32) map[string]map[string][]int32 {
	ms := slices.Clone(members)
	slices.SortFunc(ms, func(a, b rangeMember) int {
		switch {
		case a.instance != "" && b.instance != "":
			return cmp.Or(cmp.Compare(a.instance, b.instance), cmp.Compare(a.id, b.id))
		case a.instance != "":
			return -1
		case b.instance != "":
			return 1
		}
		return cmp.Compare(a.id, b.id)
	})
	out := make(map[string]map[string][]int32, len(ms))
	byTopic := map[string][]string{}
	for _, m := range ms {
		out[m.id] = map[string][]int32{}
		for _, t := range m.topics {
			if !slices.Contains(byTopic[t], m.id) {
				byTopic[t] = append(byTopic[t], m.id)
			}
		}
	}
	for t, ids := range byTopic {
		n := partitions[t]
		per, extra := int(n)/len(ids), int(n)%len(ids)
		next := int32(0)
		for i, id := range ids {
			k := per
			if i < extra {
				k++
			}
			for range k {
				out[id][t] = append(out[id][t], next)
				next++
			}
		}
	}
	return out
}
