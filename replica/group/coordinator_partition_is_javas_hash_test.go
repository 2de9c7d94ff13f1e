package group_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica/group"
)

// Kafka's coordinator of a group is the leader of __consumer_offsets
// partition Utils.abs(groupId.hashCode()) % 50. The hashes are Java's:
// "hello" and "polygenelubricants" (Integer.MIN_VALUE, which Utils.abs
// maps to 0) are the classic known values, "Aa"/"BB" the classic
// collision; the rest were computed by a separate UTF-16 emulation of
// String.hashCode (Python), including a character outside the BMP that
// Java hashes as a surrogate pair.
func TestTheCoordinatorPartitionIsJavasHashCodeModN(t *testing.T) {
	for _, tc := range []struct {
		group     string
		hash      int32
		partition int32
	}{
		{"", 0, 0},
		{"hello", 99162322, 22},
		{"polygenelubricants", -2147483648, 0},
		{"Aa", 2112, 12},
		{"BB", 2112, 12},
		{"😀", 1772899, 49},
		{"console-consumer-12345", 158455506, 6},
		{"my-group", -1906497762, 12},
		{"kaenlog-ß-组", 24790510, 10},
	} {
		if got := group.JavaStringHashCode(tc.group); got != tc.hash {
			t.Errorf("JavaStringHashCode(%q) = %d, want %d", tc.group, got, tc.hash)
		}
		if got := group.PartitionFor(tc.group, 50); got != tc.partition {
			t.Errorf("PartitionFor(%q, 50) = %d, want %d", tc.group, got, tc.partition)
		}
	}
}
