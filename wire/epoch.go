package wire

// NoEpoch is the leader epoch a request sends when it has none to give:
// FetchPartition.LastFetchedEpoch before the follower has fetched anything,
// or a CurrentLeaderEpoch the sender does not know. It is Kafka's default
// for those fields (-1). Decoders refuse any epoch below it.
const NoEpoch int32 = -1

// EpochEndOffset is a leader epoch and the offset at which it ended — the
// first offset of the next epoch, or the log end offset for the latest
// epoch. It is the one shape of that pair in kaenlog: a fetch's
// DivergingEpoch and an OffsetsForLeaderEpoch answer are both an
// EpochEndOffset. It is always a found pair: "none" is a separate bool next
// to it in memory and (-1, -1) only on the wire.
type EpochEndOffset struct {
	// Epoch is >= 0.
	Epoch int32
	// EndOffset is exclusive: offsets below it belong to Epoch or earlier.
	EndOffset uint64
}

// LeaderAndEpoch names a partition's leader and its epoch, as a
// FetchPartitionResponse's CurrentLeader. Like EpochEndOffset it is always
// a known pair: "unknown" is a bool beside it in memory and (-1, -1) only
// on the wire.
type LeaderAndEpoch struct {
	// LeaderID is the leader's broker id, >= 0.
	LeaderID int32
	// LeaderEpoch is the leader's epoch, >= 0.
	LeaderEpoch int32
}
