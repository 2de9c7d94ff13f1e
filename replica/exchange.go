package replica

import (
	"fmt"
	"io"

	"github.com/kaenlog/kaenlog/wire"
)

// This file moves messages across a Link as wire frames: request → encode →
// frame → decode on one side, response → encode → frame → decode on the
// other. No Go value crosses the link, only bytes.

// exchangeBuffers are one replica's reusable buffers: encoded messages,
// frames read, and records read from the log.
type exchangeBuffers struct {
	msg     []byte // an encoded message before framing
	frame   []byte // the payload of the last frame read
	records []byte // records read from the log for a fetch response
}

// send encodes m with encode and writes it as one frame.
func (r *Replica) send(w io.Writer, encode func([]byte) ([]byte, error)) error {
	var err error
	r.io.msg, err = encode(r.io.msg[:0])
	if err != nil {
		return fmt.Errorf("kaenlog/replica: broker %d: encode: %w", r.id, err)
	}
	if err := wire.WriteFrame(w, r.io.msg); err != nil {
		return fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
	}
	return nil
}

// receive reads one frame into the replica's frame buffer.
func (r *Replica) receive(rd io.Reader) ([]byte, error) {
	payload, err := wire.ReadFrame(rd, r.io.frame[:0], wire.DefaultMaxFrameSize)
	if err != nil {
		return nil, fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
	}
	r.io.frame = payload
	return payload, nil
}

// ServeOne reads one request frame from rw, handles it as the leader at time
// nowMs, and writes the response frame to rw. It serves fetch, produce and
// offsets-for-leader-epoch requests; a malformed frame is an error (the
// connection is unusable), a refused request is a response with an error
// code. A TCP server would call it in a loop, one goroutine per connection,
// under the lock that serializes the partition.
func (r *Replica) ServeOne(rw io.ReadWriter, nowMs int64) error {
	if r.closed {
		return ErrClosed
	}
	payload, err := r.receive(rw)
	if err != nil {
		return err
	}
	key, _, err := wire.PeekHeader(payload)
	if err != nil {
		return fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
	}
	switch key {
	case wire.APIFetch:
		req, err := wire.DecodeFetchRequest(payload)
		if err != nil {
			return fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
		}
		resp, records, err := r.HandleFetch(&req, r.io.records, nowMs)
		r.io.records = records
		if err != nil {
			return err
		}
		return r.send(rw, resp.AppendTo)
	case wire.APIOffsetsForLeaderEpoch:
		req, err := wire.DecodeOffsetsForLeaderEpochRequest(payload)
		if err != nil {
			return fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
		}
		resp, err := r.HandleOffsetsForLeaderEpoch(&req)
		if err != nil {
			return err
		}
		return r.send(rw, resp.AppendTo)
	case wire.APIProduce:
		req, err := wire.DecodeProduceRequest(payload)
		if err != nil {
			return fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
		}
		resp := wire.ProduceResponse{CorrelationID: req.CorrelationID}
		base, code, err := r.Produce(req.Records, req.Acks, nowMs)
		if err != nil && code == wire.CodeNone {
			return err
		}
		resp.ErrorCode = code
		if code == wire.CodeNone {
			resp.BaseOffset, resp.HasBaseOffset = base, true
		}
		return r.send(rw, resp.AppendTo)
	}
	return fmt.Errorf("%w: broker %d cannot serve %v", ErrUnexpectedMessage, r.id, key)
}

// Fetch sends this follower's next fetch over rw, lets serve answer it (for
// a socket, serve does nothing: the leader's process answers), reads the
// response and applies it. It returns the decoded response (its Records
// alias the replica's frame buffer until the next exchange) and the number
// of records shipped.
func (r *Replica) Fetch(rw io.ReadWriter, correlationID int32, serve func() error) (wire.FetchResponse, int, error) {
	if r.closed {
		return wire.FetchResponse{}, 0, ErrClosed
	}
	if r.role != RoleFollower {
		return wire.FetchResponse{}, 0, ErrNotFollower // nothing sent: the link stays in step
	}
	req := r.FetchRequest(correlationID)
	if err := r.send(rw, req.AppendTo); err != nil {
		return wire.FetchResponse{}, 0, err
	}
	if err := serve(); err != nil {
		return wire.FetchResponse{}, 0, err
	}
	payload, err := r.receive(rw)
	if err != nil {
		return wire.FetchResponse{}, 0, err
	}
	resp, err := wire.DecodeFetchResponse(payload)
	if err != nil {
		return resp, 0, fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
	}
	if resp.CorrelationID != correlationID {
		return resp, 0, fmt.Errorf("%w: sent %d, got %d", ErrCorrelation, correlationID, resp.CorrelationID)
	}
	shipped, err := r.ApplyFetch(&resp)
	return resp, shipped, err
}

// AskEndOffset sends an offsets-for-leader-epoch request for epoch e over
// rw, lets serve answer it, and returns the leader's answer: its largest
// epoch <= e and where that epoch ends, or found == false.
func (r *Replica) AskEndOffset(rw io.ReadWriter, correlationID int32, e int32, serve func() error) (leaderEpoch int32, endOffset uint64, found bool, err error) {
	if r.closed {
		return 0, 0, false, ErrClosed
	}
	if r.role != RoleFollower {
		return 0, 0, false, ErrNotFollower // nothing sent: the link stays in step
	}
	req := wire.OffsetsForLeaderEpochRequest{
		CorrelationID:      correlationID,
		ReplicaID:          r.id,
		CurrentLeaderEpoch: r.leaderEpoch,
		LeaderEpoch:        e,
	}
	if err := r.send(rw, req.AppendTo); err != nil {
		return 0, 0, false, err
	}
	if err := serve(); err != nil {
		return 0, 0, false, err
	}
	payload, err := r.receive(rw)
	if err != nil {
		return 0, 0, false, err
	}
	resp, err := wire.DecodeOffsetsForLeaderEpochResponse(payload)
	if err != nil {
		return 0, 0, false, fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
	}
	if resp.CorrelationID != correlationID {
		return 0, 0, false, fmt.Errorf("%w: sent %d, got %d", ErrCorrelation, correlationID, resp.CorrelationID)
	}
	if resp.ErrorCode != wire.CodeNone {
		return 0, 0, false, fmt.Errorf("kaenlog/replica: broker %d: offsets for epoch %d refused: %w", r.id, e, resp.ErrorCode.Err())
	}
	return resp.Epoch, resp.EndOffset, resp.Found, nil
}

// TruncateByLeaderEpoch applies KIP-101's rule over rw: ask the leader where
// this follower's latest epoch ends, cut to min(own LEO, the answer), and
// repeat with the new latest epoch until the logs agree (KIP-279). A
// follower with no epoch yet has nothing to check. It returns the first
// answer, for reporting.
func (r *Replica) TruncateByLeaderEpoch(rw io.ReadWriter, nextCorrelation func() int32, serve func() error) (EpochAnswer, error) {
	if r.closed {
		return EpochAnswer{}, ErrClosed
	}
	if r.role != RoleFollower {
		return EpochAnswer{}, ErrNotFollower
	}
	var first EpochAnswer
	// Each round removes at least one epoch entry or finishes, so the loop
	// ends within the number of entries.
	for round := 0; ; round++ {
		asked, ok := r.log.LatestEpoch()
		if !ok {
			return first, nil
		}
		e, end, found, err := r.AskEndOffset(rw, nextCorrelation(), asked, serve)
		if err != nil {
			return first, err
		}
		if round == 0 {
			first = EpochAnswer{Asked: asked, Epoch: e, EndOffset: end, Found: found}
		}
		done, err := r.truncateToLeader(e, end, found)
		if err != nil || done {
			return first, err
		}
	}
}

// EpochAnswer is a leader's answer to "where does epoch Asked end?": the
// largest epoch it knows that is <= Asked and that epoch's end offset, or
// Found == false.
type EpochAnswer struct {
	Asked     int32  // the follower's latest epoch, the one it asked about
	Epoch     int32  // the leader's largest epoch <= Asked; zero unless Found
	EndOffset uint64 // where Epoch ends on the leader's log; zero unless Found
	Found     bool   // false: the leader knows no epoch <= Asked
}
