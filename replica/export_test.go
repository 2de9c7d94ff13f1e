package replica

// ProduceKeeping is Produce as a broker calls it: a parked produce keeps
// its batches for followers' fetches.
func (r *Replica) ProduceKeeping(ref uint64, batches []byte, acks int16, timeoutMs int32, nowMs int64) (ProduceResult, bool, error) {
	return r.produce(ref, batches, acks, timeoutMs, nowMs, true)
}

// HandleFetchAppended is HandleFetch as a broker calls it: a follower may
// be sent a parked produce's kept batches.
var HandleFetchAppended = (*Replica).handleFetchAppended

// HandleFetch is the method value of HandleFetch, to pick one of the two.
var HandleFetch = (*Replica).HandleFetch

// AutoCreateHeld returns how many auto-creations the broker holds state
// for: in flight, and refusals kept for the next Metadata request.
func (b *Broker) AutoCreateHeld() (inFlight, refusals int) {
	return len(b.autoCreating), len(b.autoCreateFailed)
}

// MaxAutoCreateHeld bounds AutoCreateHeld's counts.
const MaxAutoCreateHeld = maxAutoCreateHeld
