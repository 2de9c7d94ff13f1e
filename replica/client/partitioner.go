package client

// Partitioner is how the producer chooses a record's partition.
// The zero value is KeyPartitioner.
type Partitioner uint8

const (
	// KeyPartitioner, the default, puts a record with a key (Key not nil)
	// on the partition Kafka's default partitioner gives it:
	// toPositive(murmur2(key)) % partitions, as the Java client's
	// BuiltInPartitioner.partitionForKey computes it, so that kaenlog's
	// producer and a Java producer put a key on the same partition. The
	// record's Partition is then ignored. A record without a key goes to
	// its Partition.
	KeyPartitioner Partitioner = iota
	// ManualPartitioner puts every record on its Partition, key or not
	// (franz-go's ManualPartitioner): the choice is the caller's.
	ManualPartitioner
)

// String returns "key" or "manual".
func (p Partitioner) String() string {
	if p == ManualPartitioner {
		return "manual"
	}
	return "key"
}

// PartitionForKey returns the partition of key among n partitions (n > 0)
// under Kafka's default partitioner:
// Utils.toPositive(Utils.murmur2(key)) % n.
func PartitionForKey(key []byte, n int32) int32 {
	return int32(murmur2(key)&0x7fffffff) % n
}

// murmur2 is the 32-bit MurmurHash2 of data as Kafka's
// Utils.murmur2 computes it: seed 0x9747b28c, the tail mixed byte by
// byte, little-endian words.
func murmur2(data []byte) uint32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
		r    = 24
	)
	h := uint32(seed) ^ uint32(len(data))
	n := len(data) / 4 * 4
	for i := 0; i < n; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch tail := data[n:]; len(tail) {
	case 3:
		h ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(tail[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
