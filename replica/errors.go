package replica

import "errors"

var (
	// ErrNotLeader is returned when a leader-only operation (produce,
	// serving a fetch, ShrinkISR, an acks verdict) is asked of a replica
	// that is not the partition's leader.
	ErrNotLeader = errors.New("kaenlog/replica: not the leader")
	// ErrNotFollower is returned when a follower-only operation (applying a
	// fetch response, truncating the log by any rule) is asked of a replica
	// that is not a follower.
	ErrNotFollower = errors.New("kaenlog/replica: not a follower")
	// ErrStaleEpoch is returned by BecomeLeader and BecomeFollower when the
	// epoch given is older than one this replica already knows: leadership
	// never goes back in time.
	ErrStaleEpoch = errors.New("kaenlog/replica: stale leader epoch")
	// ErrCorrelation is returned when a response's correlation id does not
	// match the request it should answer: the link is out of step.
	ErrCorrelation = errors.New("kaenlog/replica: response does not answer the request")
	// ErrUnexpectedMessage is returned when a frame carries a message of a
	// kind the receiving side does not serve.
	ErrUnexpectedMessage = errors.New("kaenlog/replica: unexpected message")
	// ErrClosed is returned by every operation on a replica or cluster after
	// Close.
	ErrClosed = errors.New("kaenlog/replica: closed")
	// ErrInvalidAcks is returned by Produce for an acks value other than
	// wire.AcksAll, wire.AcksLeader or wire.AcksNone.
	ErrInvalidAcks = errors.New("kaenlog/replica: invalid acks")
	// ErrUncleanElection is returned by Cluster.FailOver when the follower
	// is not known to be in the leader's ISR: it was removed by the time
	// rule, or the leader's ISR state was lost with a restart. Such a
	// follower may lack committed records, and electing it could lose them;
	// Kafka's controller elects only ISR members (unclean.leader.election.enable
	// is false by default). Nothing is changed.
	ErrUncleanElection = errors.New("kaenlog/replica: follower is not in the ISR; electing it could lose committed records")
)
