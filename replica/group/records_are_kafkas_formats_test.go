package group_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kaenlog/kaenlog/replica/group"
)

// The records are Kafka's __consumer_offsets formats byte for byte: the
// expected bytes below are written out field by field from the JSON
// schemas (OffsetCommitKey, OffsetCommitValue v3, GroupMetadataKey,
// GroupMetadataValue v3), not produced by the encoders.
func TestRecordsAreKafkasConsumerOffsetsFormats(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  []byte
		want string
	}{
		{"offset key v1", group.OffsetKey("g", "t", 2), "0001" + "0001" + "67" + "0001" + "74" + "00000002"},
		{"offset value v3", group.EncodeOffsetValue(group.OffsetValue{Offset: 5, LeaderEpoch: 7, Metadata: "m", CommitTimestampMs: 9}),
			"0003" + "0000000000000005" + "00000007" + "0001" + "6d" + "0000000000000009"},
		{"group key v2", group.GroupKey("g"), "0002" + "0001" + "67"},
		{"group value v3", group.EncodeGroupValue(group.GroupValue{ProtocolType: "consumer", Generation: 1, Protocol: "range", Leader: "a",
			CurrentStateTimestampMs: 4, Members: []group.MemberValue{{MemberID: "a", ClientID: "c", ClientHost: "h",
				RebalanceTimeoutMs: 3, SessionTimeoutMs: 2, Subscription: []byte{1}, Assignment: []byte{2}}}}),
			"0003" + "0008" + hex.EncodeToString([]byte("consumer")) + "00000001" + "0005" + hex.EncodeToString([]byte("range")) +
				"0001" + "61" + "0000000000000004" + "00000001" +
				"0001" + "61" + "ffff" + "0001" + "63" + "0001" + "68" + "00000003" + "00000002" + "00000001" + "01" + "00000001" + "02"},
	} {
		if got := hex.EncodeToString(tc.got); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// Each decoder reads what its encoder wrote, and the older versions Kafka
// wrote: OffsetCommitValue v1 carries an expire timestamp kaenlog drops,
// v0 no leader epoch; GroupMetadataValue v0 has one timeout for both.
func TestDecodersReadTheirEncodersAndKafkasOlderVersions(t *testing.T) {
	ov := group.OffsetValue{Offset: 5, LeaderEpoch: 7, Metadata: "m", CommitTimestampMs: 9}
	if got, err := group.DecodeOffsetValue(group.EncodeOffsetValue(ov)); err != nil || got != ov {
		t.Fatalf("offset value round trip: %+v, %v", got, err)
	}
	v1, _ := hex.DecodeString("0001" + "0000000000000005" + "0001" + "6d" + "0000000000000009" + "ffffffffffffffff")
	if got, err := group.DecodeOffsetValue(v1); err != nil || got != (group.OffsetValue{Offset: 5, LeaderEpoch: -1, Metadata: "m", CommitTimestampMs: 9}) {
		t.Fatalf("offset value v1: %+v, %v", got, err)
	}
	gv := group.GroupValue{ProtocolType: "consumer", Generation: 3, Protocol: "range", Leader: "a", CurrentStateTimestampMs: 8,
		Members: []group.MemberValue{{MemberID: "a", GroupInstanceID: "pod", ClientID: "c", ClientHost: "h", RebalanceTimeoutMs: 1, SessionTimeoutMs: 2, Subscription: []byte("s"), Assignment: []byte("x")}}}
	got, err := group.DecodeGroupValue(group.EncodeGroupValue(gv))
	if err != nil || !cmp.Equal(got, gv) {
		t.Fatalf("group value round trip: %v\n%s", err, cmp.Diff(gv, got))
	}
	g0, _ := hex.DecodeString("0000" + "0001" + "63" + "00000001" + "ffff" + "ffff" + "00000001" +
		"0001" + "61" + "0001" + "63" + "0001" + "68" + "00002710" + "00000000" + "00000000")
	if got, err := group.DecodeGroupValue(g0); err != nil || got.Members[0].RebalanceTimeoutMs != 10000 || got.CurrentStateTimestampMs != -1 {
		t.Fatalf("group value v0: %+v, %v", got, err)
	}
	for _, key := range [][]byte{group.OffsetKey("g", "t", 1), group.GroupKey("g")} {
		if k, ok, err := group.DecodeKey(key); err != nil || !ok || k.Group != "g" {
			t.Fatalf("key %x: %+v %v %v", key, k, ok, err)
		}
	}
}

// Every count and length is bounded by the bytes left: a GroupMetadataValue
// announcing two billion members is refused without allocating them.
func TestAGroupValueAnnouncingMoreMembersThanBytesIsRefused(t *testing.T) {
	b, _ := hex.DecodeString("0003" + "0001" + "63" + "00000001" + "ffff" + "ffff" + "0000000000000000" + "7fffffff")
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := group.DecodeGroupValue(b); !errors.Is(err, group.ErrMalformedRecord) {
			t.Fatalf("decoded: %v", err)
		}
	})
	if allocs > 10 { // the error's text, never the members
		t.Fatalf("%v allocations refusing a huge count", allocs)
	}
}

func FuzzDecodeKey(f *testing.F) {
	f.Add(group.OffsetKey("g", "t", 1))
	f.Add(group.GroupKey("g"))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, ok, err := group.DecodeKey(b)
		if err != nil || !ok {
			return
		}
		again := group.GroupKey(k.Group)
		if !k.IsGroup {
			again = group.OffsetKey(k.Group, k.Topic, k.Partition)
		}
		if !bytes.Equal(again[2:], b[2:]) { // version 0 and 1 offset keys share the layout
			t.Fatalf("key %x re-encodes as %x", b, again)
		}
	})
}

func FuzzDecodeOffsetValue(f *testing.F) {
	f.Add(group.EncodeOffsetValue(group.OffsetValue{Offset: 1, LeaderEpoch: 2, Metadata: "m", CommitTimestampMs: 3}))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := group.DecodeOffsetValue(b)
		if err != nil {
			return
		}
		if got, err := group.DecodeOffsetValue(group.EncodeOffsetValue(v)); err != nil || got != v {
			t.Fatalf("%+v does not survive a re-encoding: %+v %v", v, got, err)
		}
	})
}

func FuzzDecodeGroupValue(f *testing.F) {
	f.Add(group.EncodeGroupValue(group.GroupValue{ProtocolType: "consumer", Generation: 1, Protocol: "range", Leader: "a",
		Members: []group.MemberValue{{MemberID: "a", GroupInstanceID: "i", Subscription: []byte("s"), Assignment: []byte("x")}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := group.DecodeGroupValue(b)
		if err != nil {
			return
		}
		if got, err := group.DecodeGroupValue(group.EncodeGroupValue(v)); err != nil || !cmp.Equal(got, v) {
			t.Fatalf("%+v does not survive a re-encoding: %v", v, err)
		}
	})
}

func FuzzDecodeSubscribedTopics(f *testing.F) {
	f.Add(subscription("orders", "payments"))
	f.Fuzz(func(t *testing.T, b []byte) {
		topics, err := group.DecodeSubscribedTopics(b)
		if err == nil && len(topics) > len(b)/2 {
			t.Fatalf("%d topics from %d bytes", len(topics), len(b))
		}
	})
}
