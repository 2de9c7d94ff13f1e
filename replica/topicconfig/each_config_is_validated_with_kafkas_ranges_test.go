package topicconfig

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

func TestEachConfigIsValidatedWithKafkasRanges(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		ok          bool
	}{
		{RetentionMs, "-1", true}, {RetentionMs, "0", true}, {RetentionMs, "-2", false}, {RetentionMs, "7d", false},
		{RetentionBytes, "-1", true}, {RetentionBytes, "-2", false},
		{SegmentBytes, "14", true}, {SegmentBytes, "13", false}, {SegmentBytes, "2147483648", false},
		{SegmentMs, "1", true}, {SegmentMs, "0", false},
		{CleanupPolicy, "delete", true}, {CleanupPolicy, "compact,delete", true}, {CleanupPolicy, " compact , delete ", true},
		{CleanupPolicy, "", false}, {CleanupPolicy, "shred", false},
		{MinCompactionLagMs, "0", true}, {MinCompactionLagMs, "-1", false},
		{DeleteRetentionMs, "0", true}, {DeleteRetentionMs, "-1", false},
		{MinInsyncReplicas, "1", true}, {MinInsyncReplicas, "0", false},
		{MaxMessageBytes, "0", true}, {MaxMessageBytes, "-1", false},
		{UncleanLeaderElection, "true", true}, {UncleanLeaderElection, "TRUE", false},
		{MessageTimestampType, "LogAppendTime", true}, {MessageTimestampType, "logappendtime", false},
		{"compression.type", "zstd", false},
	} {
		err := Validate(tc.name, tc.value)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, wire.ErrInvalidConfig)) {
			t.Errorf("Validate(%s, %q) = %v, want ok %t (refusals INVALID_CONFIG)", tc.name, tc.value, err, tc.ok)
		}
	}
	for _, d := range Defs() {
		if err := d.Validate(d.Default); err != nil {
			t.Errorf("Kafka's default of %s is refused: %v", d.Name, err)
		}
	}
}

func TestAlterAppendsAndSubtractsListItemsAndRefusesThemElsewhere(t *testing.T) {
	for _, tc := range []struct {
		name           string
		op             AlterOp
		value, current string
		want           string
		deleted        bool
		err            error
	}{
		{CleanupPolicy, OpAppend, "compact", "delete", "delete,compact", false, nil},
		{CleanupPolicy, OpAppend, "delete", "delete", "delete", false, nil},
		{CleanupPolicy, OpSubtract, "delete", "delete,compact", "compact", false, nil},
		{CleanupPolicy, OpSubtract, "delete", "delete", "", false, wire.ErrInvalidConfig},
		{RetentionMs, OpAppend, "1", "2", "", false, wire.ErrInvalidConfig},
		{RetentionMs, OpSet, "60000", "1", "60000", false, nil},
		{RetentionMs, OpDelete, "", "1", "", true, nil},
		{RetentionMs, 9, "1", "1", "", false, wire.ErrInvalidRequest},
	} {
		got, deleted, err := Alter(tc.name, tc.op, tc.value, tc.current)
		if got != tc.want || deleted != tc.deleted || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("Alter(%s, %d, %q, %q) = %q, %t, %v; want %q, %t, %v", tc.name, tc.op, tc.value, tc.current, got, deleted, err, tc.want, tc.deleted, tc.err)
		}
	}
}

func TestResolveTakesTheTopicsOwnOverTheBrokersOverKafkas(t *testing.T) {
	c := Resolve(map[string]string{RetentionMs: "1000"}, map[string]string{RetentionMs: "5", RetentionBytes: "4096", CleanupPolicy: "compact,delete"})
	if c.RetentionMs != 1000 || c.RetentionBytes != 4096 || !c.Compact || !c.Delete || c.SegmentBytes != 1<<30 || c.MinInsyncReplicas != 1 {
		t.Fatalf("Resolve = %+v", c)
	}
	if _, src, _ := Value(RetentionBytes, nil, map[string]string{RetentionBytes: "1"}); src != Broker {
		t.Fatalf("a broker default's source is %v, want Broker", src)
	}
}
