package isr

import "strconv"

// Verdict is the acks=all answer for one produce request.
type Verdict uint8

const (
	// NotYet: the high watermark has not reached the required offset; keep
	// waiting (the request stays parked).
	NotYet Verdict = iota
	// Committed: the record is below the high watermark and the ISR still
	// has at least MinISR members; answer success.
	Committed
	// NotEnoughReplicasAfterAppend: the record is committed, but the ISR
	// shrank below MinISR after it was appended; answer Kafka's error 20
	// (retriable, so a producer without idempotence may write it twice).
	NotEnoughReplicasAfterAppend
)

// String returns the constant's name ("NotYet", "Committed",
// "NotEnoughReplicasAfterAppend"), or "Verdict(n)" for other values.
func (v Verdict) String() string {
	switch v {
	case NotYet:
		return "NotYet"
	case Committed:
		return "Committed"
	case NotEnoughReplicasAfterAppend:
		return "NotEnoughReplicasAfterAppend"
	}
	return "Verdict(" + strconv.Itoa(int(v)) + ")"
}

// Gate is a snapshot of what the acks=all decision needs: the leader's high
// watermark, the ISR size and min.insync.replicas. State.Gate builds one.
type Gate struct {
	HighWatermark uint64 // the leader's exclusive high watermark
	ISRSize       int    // current ISR size, leader included
	MinISR        int    // min.insync.replicas
}

// Verdict decides an acks=all request waiting for requiredOffset, in the
// chapter's order (IsrGate::verdict, Kafka's checkEnoughReplicasReachOffset):
// first, HighWatermark < requiredOffset means NotYet — even when the ISR is
// already under MinISR; only then does MinISR <= ISRSize decide between
// Committed and NotEnoughReplicasAfterAppend.
//
// requiredOffset is exclusive like the high watermark: a record at offset o
// is committed once HighWatermark >= o+1, so pass the offset AFTER the last
// record of the append (base offset + record count), as Kafka passes
// lastOffset+1.
//
// This is the check AFTER append (error 20). The check BEFORE append (error
// 19, NOT_ENOUGH_REPLICAS) is State.UnderMinISR, asked before the write.
func (g Gate) Verdict(requiredOffset uint64) Verdict {
	if g.HighWatermark < requiredOffset {
		return NotYet
	}
	if g.MinISR <= g.ISRSize {
		return Committed
	}
	return NotEnoughReplicasAfterAppend
}
