package wire

// NoEpoch is the leader epoch a request sends when it has none to give:
// FetchRequest.LastFetchedEpoch before the follower has fetched anything,
// or a CurrentLeaderEpoch the sender does not know. It is Kafka's default
// for those fields (-1). Decoders refuse any epoch below it.
const NoEpoch int32 = -1

// EpochEndOffset is a leader epoch and the offset at which it ended — the
// first offset of the next epoch, or the log end offset for the latest
// epoch. It is always a found pair: "none" is a separate bool next to it in
// memory and (-1, -1) only on the wire.
type EpochEndOffset struct {
	// Epoch is >= 0.
	Epoch int32
	// EndOffset is exclusive: offsets below it belong to Epoch or earlier.
	EndOffset uint64
}
