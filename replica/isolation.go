package replica

import (
	"github.com/kaenlog/kaenlog/log"
)

// IsolationOf maps a fetch's ReplicaID to how far the read may go. A
// follower (id >= 0) reads to the log end, because it must copy records
// before anyone knows whether they are committed; a consumer (any negative
// id, normally wire.ConsumerReplicaID) stops at the high watermark, so it
// only sees committed records. This is the whole difference between a
// follower's fetch and a consumer's; Kafka's FetchIsolation.of makes the
// same split (and a third for READ_COMMITTED, which kaenlog does not have).
func IsolationOf(replicaID int32) log.Isolation {
	if replicaID >= 0 {
		return log.IsolationLogEnd
	}
	return log.IsolationHighWatermark
}
