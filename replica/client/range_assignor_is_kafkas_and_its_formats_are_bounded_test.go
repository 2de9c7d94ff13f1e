package client

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Kafka's RangeAssignor: per topic, contiguous ranges in member order,
// the first partitions%members members one more; static members first,
// by instance id; a member not subscribed to a topic gets none of it.
func TestTheRangeAssignorSplitsEachTopicAsKafkasDoes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []rangeMember
		counts  map[string]int32
		want    map[string]map[string][]int32
	}{
		{"three members, seven partitions",
			[]rangeMember{{id: "c", topics: []string{"t"}}, {id: "a", topics: []string{"t"}}, {id: "b", topics: []string{"t"}}},
			map[string]int32{"t": 7},
			map[string]map[string][]int32{"a": {"t": {0, 1, 2}}, "b": {"t": {3, 4}}, "c": {"t": {5, 6}}}},
		{"more members than partitions",
			[]rangeMember{{id: "a", topics: []string{"t"}}, {id: "b", topics: []string{"t"}}},
			map[string]int32{"t": 1},
			map[string]map[string][]int32{"a": {"t": {0}}, "b": {}}},
		{"static members first, by instance id",
			[]rangeMember{{id: "a", topics: []string{"t"}}, {id: "z", instance: "host-1", topics: []string{"t"}}, {id: "m", instance: "host-0", topics: []string{"t"}}},
			map[string]int32{"t": 3},
			map[string]map[string][]int32{"m": {"t": {0}}, "z": {"t": {1}}, "a": {"t": {2}}}},
		{"each topic over its own subscribers; a topic the metadata lacks over nobody",
			[]rangeMember{{id: "a", topics: []string{"t", "u", "gone"}}, {id: "b", topics: []string{"t"}}},
			map[string]int32{"t": 2, "u": 2},
			map[string]map[string][]int32{"a": {"t": {0}, "u": {0, 1}}, "b": {"t": {1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, assignRange(tc.members, tc.counts)); diff != "" {
				t.Fatalf("assignment (-want +got):\n%s", diff)
			}
		})
	}
}

// A subscription and an assignment decode to what was encoded, and the
// assignment comes out sorted.
func TestConsumerProtocolFormatsRoundTrip(t *testing.T) {
	topics := []string{"a", "orders"}
	got, err := decodeSubscription(appendSubscription(nil, topics))
	if err != nil || !slices.Equal(got, topics) {
		t.Fatalf("subscription: %v, %v", got, err)
	}
	parts, err := decodeAssignment(appendAssignment(nil, map[string][]int32{"orders": {2, 0}, "a": {1}}))
	want := []TopicPartition{{"a", 1}, {"orders", 0}, {"orders", 2}}
	if err != nil || !slices.Equal(parts, want) {
		t.Fatalf("assignment: %v, %v; want %v", parts, err, want)
	}
	if parts, err := decodeAssignment(nil); err != nil || parts != nil {
		t.Fatalf("empty assignment: %v, %v; want none", parts, err)
	}
	// Kafka's version 0 bytes, as its ConsumerProtocol writes them: a
	// newer version's trailing fields are ignored.
	kafka := []byte{0, 3, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 1, 0, 0, 0, 4, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}
	if parts, err := decodeAssignment(kafka); err != nil || !slices.Equal(parts, []TopicPartition{{"t", 4}}) {
		t.Fatalf("a version 3 assignment: %v, %v", parts, err)
	}
}

// Every count and length is checked against the bytes left before
// anything is allocated for it.
func TestConsumerProtocolCountsAreBoundedBeforeTheyAllocate(t *testing.T) {
	for _, b := range [][]byte{
		{0, 0, 0x7f, 0xff, 0xff, 0xff},                                    // 2^31-1 topics in no bytes
		{0, 0, 0xff, 0xff, 0xff, 0xff},                                    // -1 topics
		{0, 0, 0, 0, 0, 1, 0x7f, 0xff},                                    // a 32767-byte name in no bytes
		{0xff, 0xff, 0, 0, 0, 0},                                          // version -1
		{0, 0, 0, 0, 0, 1, 0, 1, 't', 0x40, 0, 0, 0},                      // 2^30 partitions in no bytes
		{0, 0, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}, // partition -1
	} {
		if _, err := decodeAssignment(b); !errors.Is(err, errProtocol) {
			t.Errorf("assignment % x: err = %v, want errProtocol", b, err)
		}
	}
	if _, err := decodeSubscription([]byte{0, 0, 0x7f, 0xff, 0xff, 0xff}); !errors.Is(err, errProtocol) {
		t.Errorf("subscription of 2^31-1 topics: err = %v", err)
	}
}

// FuzzDecodeSubscription: no panic; what decodes encodes to a
// subscription that decodes the same.
func FuzzDecodeSubscription(f *testing.F) {
	f.Add(appendSubscription(nil, []string{"a", "orders"}))
	f.Add([]byte{0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		topics, err := decodeSubscription(b)
		if err != nil {
			if !errors.Is(err, errProtocol) {
				t.Fatalf("err = %v, want errProtocol", err)
			}
			return
		}
		again, err := decodeSubscription(appendSubscription(nil, topics))
		if err != nil || !slices.Equal(again, topics) {
			t.Fatalf("re-decoded %v, %v; want %v", again, err, topics)
		}
	})
}

// FuzzDecodeAssignment: no panic; what decodes encodes to an assignment
// that decodes the same.
func FuzzDecodeAssignment(f *testing.F) {
	f.Add(appendAssignment(nil, map[string][]int32{"orders": {0, 2}, "a": {1}}))
	f.Add([]byte{0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		parts, err := decodeAssignment(b)
		if err != nil {
			if !errors.Is(err, errProtocol) {
				t.Fatalf("err = %v, want errProtocol", err)
			}
			return
		}
		byTopic := map[string][]int32{}
		for _, tp := range parts {
			byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partition)
		}
		again, err := decodeAssignment(appendAssignment(nil, byTopic))
		if len(parts) == 0 && len(again) == 0 && err == nil {
			return
		}
		if err != nil || !slices.Equal(again, parts) {
			t.Fatalf("re-decoded %v, %v; want %v", again, err, parts)
		}
	})
}
