package log

// Isolation bounds how far a read may go. It is the only difference between
// a follower's fetch and a consumer's: the request path, the framing and the
// segment read are the same.
type Isolation uint8

const (
	// IsolationLogEnd lets a read reach the log end offset. Followers read
	// with it, because they must copy records before anyone knows whether
	// those records are committed.
	IsolationLogEnd Isolation = iota
	// IsolationHighWatermark stops a read at the high watermark, so a
	// consumer only ever sees committed records: a batch the high
	// watermark falls inside is held back whole until it is committed.
	IsolationHighWatermark
)

// String returns "LogEnd" or "HighWatermark".
func (i Isolation) String() string {
	switch i {
	case IsolationLogEnd:
		return "LogEnd"
	case IsolationHighWatermark:
		return "HighWatermark"
	}
	return "Isolation(invalid)"
}
