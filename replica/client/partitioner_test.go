package client

import "testing"

// Kafka's UtilsTest.testMurmur2 (clients/src/test/java/org/apache/kafka/
// common/utils/UtilsTest.java); franz-go's partitioner_test.go checks the
// same vectors.
func TestMurmur2IsKafkas(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int32
	}{
		{"21", -973932308},
		{"foobar", -790332482},
		{"a-little-bit-long-string", -985981536},
		{"a-little-bit-longer-string", -1486304829},
		{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971},
		{"abc", 479470107},
	} {
		if got := int32(murmur2([]byte(c.in))); got != c.want {
			t.Errorf("murmur2(%q) = %d, want %d (Kafka's Utils.murmur2)", c.in, got, c.want)
		}
	}
}

// A key's partition is Utils.toPositive(Utils.murmur2(key)) % n: the sign
// bit masked off, not the absolute value.
func TestAKeysPartitionIsKafkasDefaultPartitioners(t *testing.T) {
	for _, c := range []struct {
		key  string
		n    int32
		want int32
	}{
		{"21", 3, (-973932308 & 0x7fffffff) % 3},
		{"foobar", 10, (-790332482 & 0x7fffffff) % 10},
		{"abc", 7, 479470107 % 7},
		{"a-little-bit-longer-string", 1, 0},
	} {
		if got := PartitionForKey([]byte(c.key), c.n); got != c.want {
			t.Errorf("PartitionForKey(%q, %d) = %d, want %d", c.key, c.n, got, c.want)
		}
	}
	// The empty key is a key (Kafka hashes a non-null key of 0 bytes).
	if got, want := PartitionForKey([]byte{}, 1000), int32(murmur2(nil)&0x7fffffff)%1000; got != want {
		t.Errorf("PartitionForKey(empty, 1000) = %d, want %d", got, want)
	}
}
