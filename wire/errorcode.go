package wire

import (
	"errors"
	"fmt"
	"math"
)

// ErrorCode is kaenlog's own error number, carried in responses. The numbers
// are kaenlog's, not Kafka's: NOT_ENOUGH_REPLICAS is 2 here and 19 in
// Kafka's Errors.java. Every code has a row in one table that gives its
// Kafka name, its Kafka number and whether Kafka calls it retriable; the
// package documentation prints that table, and ErrorCode's methods and
// Error's read it. No Kafka number is ever put on the wire.
//
// A response may carry a code the table does not list (a newer peer). That
// is not malformed: decoders keep the number, String prints it, and Err maps
// it to an error matching ErrUnknownServerError that CodeOf turns back into
// the same number.
type ErrorCode int16

// The codes. Each constant says when kaenlog sends it; its Kafka name,
// Kafka number and retriable flag are in errorTable, printed in the package
// documentation. The numbers never change: they are on the wire.
const (
	// CodeUnknownServerError is the code of an error the table has no
	// other entry for: CodeOf returns it for any such error, so the wire
	// never carries an error as CodeNone.
	CodeUnknownServerError ErrorCode = -1

	// CodeNone means the request succeeded.
	CodeNone ErrorCode = 0

	// CodeOffsetOutOfRange is returned to a fetch whose FetchOffset is
	// below the log start offset or above the log end offset.
	CodeOffsetOutOfRange ErrorCode = 1

	// CodeNotEnoughReplicas is returned to an acks=all produce when the ISR
	// is smaller than min.insync.replicas. It is checked before the append,
	// so nothing was written.
	CodeNotEnoughReplicas ErrorCode = 2

	// CodeNotEnoughReplicasAfterAppend is returned to an acks=all produce
	// whose records were appended but the ISR shrank below
	// min.insync.replicas before they were committed. A producer that sends
	// them again may write them twice unless it is idempotent.
	CodeNotEnoughReplicasAfterAppend ErrorCode = 3

	// CodeNotLeaderOrFollower is returned when a produce or fetch reaches a
	// broker that is not the partition's leader.
	CodeNotLeaderOrFollower ErrorCode = 4

	// CodeFencedLeaderEpoch is returned when the request's
	// CurrentLeaderEpoch is older than the broker's: the sender's metadata
	// is stale.
	CodeFencedLeaderEpoch ErrorCode = 5

	// CodeUnknownLeaderEpoch is returned when the request's
	// CurrentLeaderEpoch is newer than the broker's: the broker has not
	// caught up yet.
	CodeUnknownLeaderEpoch ErrorCode = 6

	// CodeCorruptMessage is returned when produced or fetched record
	// batches fail their CRC or do not parse.
	CodeCorruptMessage ErrorCode = 7

	// CodeUnknownReplica is no longer sent: a kaenlog leader answers a
	// fetch from a broker id outside the partition's replicas as Kafka's
	// does, NOT_LEADER_OR_FOLLOWER, or UNKNOWN_LEADER_EPOCH when the fetch
	// carries an epoch. It meant that once, and its row stays because the
	// number was on the wire: an older peer may still send it, it still
	// decodes to ErrUnknownReplica, and 8 is never given to another error.
	// Kafka has no counterpart.
	CodeUnknownReplica ErrorCode = 8

	// CodeRequestTimedOut is returned to an acks=all produce whose records
	// were not committed within its TimeoutMs.
	CodeRequestTimedOut ErrorCode = 9

	// CodeInvalidRequiredAcks is returned to a produce whose Acks is not
	// AcksAll, AcksLeader or AcksNone; the wire carries any int16, as
	// Kafka's does, and the broker refuses it.
	CodeInvalidRequiredAcks ErrorCode = 10

	// CodeInvalidRequest is returned when a request does not decode (its
	// error matches ErrMalformed).
	CodeInvalidRequest ErrorCode = 11

	// CodeMessageTooLarge is returned to a produce whose record batch is
	// larger than the broker's maximum batch size (Kafka's
	// message.max.bytes), which keeps every accepted batch small enough for
	// one fetch response.
	CodeMessageTooLarge ErrorCode = 12

	// CodeInvalidRecord is returned to a produce whose batch passes its CRC
	// but whose records do not validate: a record count that disagrees with
	// the header, no records, or a control batch from a producer.
	CodeInvalidRecord ErrorCode = 13

	// CodeUnsupportedCompressionType is returned to a produce whose batch is
	// compressed with a codec the broker does not support.
	CodeUnsupportedCompressionType ErrorCode = 14

	// CodeKafkaStorageError is returned when the partition's log has failed
	// (a write, fsync, truncate or rename in its directory returned an
	// error) and refuses every request until it is reopened.
	CodeKafkaStorageError ErrorCode = 15

	// CodeUnknownTopicOrPartition is returned when the broker hosts no
	// replica of the partition a request names.
	CodeUnknownTopicOrPartition ErrorCode = 16

	// CodeLeaderNotAvailable is returned when the partition has no leader,
	// for example while an election is in progress.
	CodeLeaderNotAvailable ErrorCode = 17

	// CodeStaleBrokerEpoch is returned by the controller to a request whose
	// broker epoch is older than the sender's current registration: the
	// broker restarted after sending it.
	CodeStaleBrokerEpoch ErrorCode = 18

	// CodeInvalidUpdateVersion is returned by the controller to an
	// AlterPartition proposed under a partition epoch that is no longer
	// current.
	CodeInvalidUpdateVersion ErrorCode = 19

	// CodeNewLeaderElected is returned by the controller to an
	// AlterPartition that it applied, but whose partition changed leader in
	// the same update.
	CodeNewLeaderElected ErrorCode = 20

	// CodeIneligibleReplica is returned by the controller to an
	// AlterPartition whose proposed ISR contains a replica that may not
	// join it (fenced, shutting down, or not eligible under KIP-966).
	CodeIneligibleReplica ErrorCode = 21

	// CodeOperationNotAttempted is returned for the part of a request the
	// broker or controller did not attempt because another part of it
	// failed.
	CodeOperationNotAttempted ErrorCode = 22

	// CodeEligibleLeadersNotAvailable is returned when no replica is
	// eligible to lead the partition (neither the ISR nor KIP-966's ELR has
	// a live member) and unclean election is not enabled.
	CodeEligibleLeadersNotAvailable ErrorCode = 23

	// CodeTopicAlreadyExists is returned by the controller to a request to
	// create a topic that exists.
	CodeTopicAlreadyExists ErrorCode = 24

	// CodeInvalidReplicationFactor is returned by the controller to a topic
	// creation whose replication factor is below 1 or above the number of
	// registered brokers.
	CodeInvalidReplicationFactor ErrorCode = 25

	// CodeInvalidPartitions is returned by the controller to a topic
	// creation whose partition count is below 1.
	CodeInvalidPartitions ErrorCode = 26

	// CodeNotController is returned by a broker that is not the controller
	// to a request meant for the controller.
	CodeNotController ErrorCode = 27

	// CodeBrokerIDNotRegistered is returned by the controller to a request
	// from a broker id that has no registration.
	CodeBrokerIDNotRegistered ErrorCode = 28

	// CodeOutOfOrderSequenceNumber is returned to an idempotent producer
	// whose batch's sequence number skips past the next one expected.
	CodeOutOfOrderSequenceNumber ErrorCode = 29

	// CodeDuplicateSequenceNumber is returned to an idempotent producer
	// whose batch's sequence number was already written.
	CodeDuplicateSequenceNumber ErrorCode = 30

	// CodeInvalidProducerEpoch is returned to a producer whose producer
	// epoch is older than the one the broker knows for its producer id.
	CodeInvalidProducerEpoch ErrorCode = 31

	// CodeUnknownProducerID is returned to an idempotent producer whose
	// producer id the broker has no state for, for example because
	// retention removed all of its records.
	CodeUnknownProducerID ErrorCode = 32

	// CodeInvalidTopicException is returned to a request that names a topic
	// that is not valid (an empty or too long name, or a character outside
	// Kafka's [a-zA-Z0-9._-]).
	CodeInvalidTopicException ErrorCode = 33

	// CodeUnsupportedVersion is returned to a request whose header carries
	// a message version this broker does not speak. CodeOf gives it for the
	// decoding error PeekHeader and the decoders return in that case.
	CodeUnsupportedVersion ErrorCode = 34

	// CodeNetworkException means the connection broke before the response
	// arrived. Like Kafka's client, a kaenlog client makes it up locally;
	// a broker has no reason to send it.
	CodeNetworkException ErrorCode = 35

	// CodeOffsetNotAvailable is returned to a consumer's ListOffsets for
	// the log end while the leader's high watermark lags the start of its
	// leader epoch (KIP-207): the previous leader may already have given
	// out a larger one.
	CodeOffsetNotAvailable ErrorCode = 36

	// CodeDuplicateBrokerRegistration is returned by the controller to a
	// registration for a broker id whose session is live under another
	// incarnation: another process runs with that id. Nothing is written
	// and the live broker is not disturbed. A restarted broker whose old
	// session has not expired yet is refused the same way until it does.
	CodeDuplicateBrokerRegistration ErrorCode = 37

	// CodeInconsistentClusterID is returned by the controller to a
	// registration that names another cluster id than the controller's:
	// the broker's data directory belongs to another cluster.
	CodeInconsistentClusterID ErrorCode = 38

	// CodeCoordinatorLoadInProgress is returned by a group coordinator that has become the
	// leader of its __consumer_offsets partition but has not finished
	// replaying it: the group's state is not known yet.
	CodeCoordinatorLoadInProgress ErrorCode = 39

	// CodeCoordinatorNotAvailable is returned when a group's coordinator cannot answer:
	// the group was just removed, or the write of its record failed for a
	// reason the client should retry after finding the coordinator again.
	CodeCoordinatorNotAvailable ErrorCode = 40

	// CodeNotCoordinator is returned by a broker that does not lead the
	// __consumer_offsets partition of the group a request names.
	CodeNotCoordinator ErrorCode = 41

	// CodeIllegalGeneration is returned to a SyncGroup, Heartbeat or OffsetCommit
	// whose generation id is not the group's current one: the member was
	// fenced by a rebalance it did not take part in.
	CodeIllegalGeneration ErrorCode = 42

	// CodeInconsistentGroupProtocol is returned to a JoinGroup whose protocol type or
	// protocols share nothing with the group's, or that names none.
	CodeInconsistentGroupProtocol ErrorCode = 43

	// CodeInvalidGroupID is returned to a group request whose group id is empty.
	CodeInvalidGroupID ErrorCode = 44

	// CodeUnknownMemberID is returned when a request names a member id the
	// group does not have (it left, or was removed by a timeout).
	CodeUnknownMemberID ErrorCode = 45

	// CodeInvalidSessionTimeout is returned to a JoinGroup whose session timeout is
	// outside the coordinator's group.min/max.session.timeout.ms.
	CodeInvalidSessionTimeout ErrorCode = 46

	// CodeRebalanceInProgress is returned while the group rebalances: to a
	// Heartbeat or SyncGroup the member must answer by joining again.
	CodeRebalanceInProgress ErrorCode = 47

	// CodeInvalidCommitOffsetSize is returned to an OffsetCommit whose records were
	// refused as too large by the __consumer_offsets partition.
	CodeInvalidCommitOffsetSize ErrorCode = 48

	// CodeOffsetMetadataTooLarge is returned for a committed partition whose metadata
	// string is longer than the coordinator accepts
	// (offset.metadata.max.bytes).
	CodeOffsetMetadataTooLarge ErrorCode = 49

	// CodeNonEmptyGroup is returned to a DeleteGroups or OffsetDelete for a group
	// that still has members.
	CodeNonEmptyGroup ErrorCode = 50

	// CodeGroupIDNotFound is returned to a DeleteGroups or OffsetDelete for a group
	// the coordinator has no state for.
	CodeGroupIDNotFound ErrorCode = 51

	// CodeMemberIDRequired is returned to a first JoinGroup without a member id
	// (KIP-394): the response carries the id the member joins with next.
	CodeMemberIDRequired ErrorCode = 52

	// CodeGroupMaxSizeReached is returned to a JoinGroup that would take the group
	// past group.max.size members.
	CodeGroupMaxSizeReached ErrorCode = 53

	// CodeFencedInstanceID is returned to a static member (KIP-345) whose
	// group.instance.id is now held by another member id.
	CodeFencedInstanceID ErrorCode = 54

	// CodeGroupSubscribedToTopic is returned by OffsetDelete for a partition of a topic
	// the group's members are subscribed to.
	CodeGroupSubscribedToTopic ErrorCode = 55
	// CodeInvalidConfig is returned to a CreateTopics that sets a topic
	// config kaenlog does not apply, or sets one to a value it cannot
	// take (a min.insync.replicas that is not a positive number).
	CodeInvalidConfig ErrorCode = 56
	// CodeElectionNotNeeded is returned by ElectLeaders when the election
	// would change nothing: a preferred election where the preferred
	// replica already leads, or an unclean one on a led partition.
	CodeElectionNotNeeded ErrorCode = 57
	// CodePreferredLeaderNotAvailable is returned by a preferred
	// ElectLeaders when the preferred replica cannot lead: it is not in
	// the ISR, or fenced, or shutting down.
	CodePreferredLeaderNotAvailable ErrorCode = 58
	// CodeNoReassignmentInProgress is returned to a cancellation of a
	// partition's reassignment when none is in flight.
	CodeNoReassignmentInProgress ErrorCode = 59
)

// Error is the type of every code's sentinel error (ErrNotEnoughReplicas,
// ...): a row of kaenlog's error table. There is one *Error per code, so
// errors.Is matches a sentinel however deeply it is wrapped, and
// errors.As recovers the row with its code, Kafka counterpart and
// retriable flag. (For the code to send, use CodeOf: it also keeps the
// number of a code the table does not list, whose error unwraps to
// ErrUnknownServerError.)
//
// The fields are unexported because the sentinels are shared package
// variables whose numbers go on the wire: they can be read, never changed.
// An Error made outside this package (the zero value) is no code's
// sentinel, and CodeOf gives CodeUnknownServerError for it.
type Error struct {
	code      ErrorCode
	name      string
	kafka     int16 // Kafka's number, or noKafkaCode
	retriable bool
	desc      string
}

// noKafkaCode marks a kaenlog code with no Kafka counterpart.
const noKafkaCode int16 = math.MinInt16

// Error returns "wire: NAME: description", for example
// "wire: NOT_ENOUGH_REPLICAS: ISR below min.insync.replicas, checked before append",
// so logs can be searched for Kafka's name.
func (e *Error) Error() string { return "wire: " + e.name + ": " + e.desc }

// Code returns kaenlog's number for the error, the one put on the wire.
func (e *Error) Code() ErrorCode { return e.code }

// Name returns the Kafka-style name, for example "NOT_ENOUGH_REPLICAS".
func (e *Error) Name() string { return e.name }

// KafkaCode returns the number of the error's Kafka counterpart in Kafka's
// Errors.java, with ok == false when Kafka has none (ErrUnknownReplica).
func (e *Error) KafkaCode() (code int16, ok bool) {
	if e.kafka == noKafkaCode {
		return 0, false
	}
	return e.kafka, true
}

// Retriable reports whether Kafka calls the error retriable: the exception
// Errors.java maps it to extends RetriableException, so the same request
// may succeed when sent again later (after a backoff, a metadata refresh or
// an election). A request refused with a non-retriable error will be
// refused again unless it changes.
func (e *Error) Retriable() bool { return e.retriable }

// Description returns a one-line explanation of the error, the part of
// Error's text after the name.
func (e *Error) Description() string { return e.desc }

// errorTable is the single source of kaenlog's error codes: one row per
// code, in code order from CodeUnknownServerError (-1) with no gaps, so a
// code's row is errorTable[code+1]. The sentinels point into it; String,
// KafkaCode, Retriable, Err and CodeOf read it; a test checks the
// constants, the sentinels and the package documentation against it.
//
// Kafka's numbers and retriable flags are those of Kafka's
// clients/src/main/java/org/apache/kafka/common/protocol/Errors.java and
// the exception classes it names (apache/kafka trunk, 4.0.0-SNAPSHOT,
// commit 1eb7644349cb): a code is retriable when its exception extends
// RetriableException, directly or through InvalidMetadataException.
var errorTable = [...]Error{
	{CodeUnknownServerError, "UNKNOWN_SERVER_ERROR", -1, false, "unexpected broker error"},
	{CodeNone, "NONE", 0, false, "no error"},
	{CodeOffsetOutOfRange, "OFFSET_OUT_OF_RANGE", 1, false, "fetch offset outside the log"},
	{CodeNotEnoughReplicas, "NOT_ENOUGH_REPLICAS", 19, true, "ISR below min.insync.replicas, checked before append"},
	{CodeNotEnoughReplicasAfterAppend, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", 20, true, "written, but ISR shrank below min.insync.replicas"},
	{CodeNotLeaderOrFollower, "NOT_LEADER_OR_FOLLOWER", 6, true, "broker is not the partition leader"},
	{CodeFencedLeaderEpoch, "FENCED_LEADER_EPOCH", 74, true, "request epoch older than the broker's"},
	{CodeUnknownLeaderEpoch, "UNKNOWN_LEADER_EPOCH", 75, true, "request epoch newer than the broker's"},
	{CodeCorruptMessage, "CORRUPT_MESSAGE", 2, true, "record batches failed validation"},
	// kaenlog's own. Retriable because Kafka answers the same fetch with
	// retriable codes (NOT_LEADER_OR_FOLLOWER, UNKNOWN_LEADER_EPOCH): the
	// leader may not have learned yet of a reassignment that added the
	// replica, so the follower backs off and asks again.
	{CodeUnknownReplica, "UNKNOWN_REPLICA", noKafkaCode, true, "replica id is not assigned to the partition"},
	{CodeRequestTimedOut, "REQUEST_TIMED_OUT", 7, true, "not committed within the timeout"},
	{CodeInvalidRequiredAcks, "INVALID_REQUIRED_ACKS", 21, false, "acks must be -1, 0 or 1"},
	{CodeInvalidRequest, "INVALID_REQUEST", 42, false, "request did not decode"},
	{CodeMessageTooLarge, "MESSAGE_TOO_LARGE", 10, false, "record batch larger than the broker accepts"},
	{CodeInvalidRecord, "INVALID_RECORD", 87, false, "records failed the broker's validation"},
	{CodeUnsupportedCompressionType, "UNSUPPORTED_COMPRESSION_TYPE", 76, false, "compression codec not supported"},
	{CodeKafkaStorageError, "KAFKA_STORAGE_ERROR", 56, true, "the partition's log directory failed"},
	{CodeUnknownTopicOrPartition, "UNKNOWN_TOPIC_OR_PARTITION", 3, true, "broker does not host the partition"},
	{CodeLeaderNotAvailable, "LEADER_NOT_AVAILABLE", 5, true, "partition has no leader"},
	{CodeStaleBrokerEpoch, "STALE_BROKER_EPOCH", 77, false, "broker epoch older than the registration"},
	{CodeInvalidUpdateVersion, "INVALID_UPDATE_VERSION", 95, false, "partition epoch is stale"},
	{CodeNewLeaderElected, "NEW_LEADER_ELECTED", 108, false, "ISR change applied, but the leader changed"},
	{CodeIneligibleReplica, "INELIGIBLE_REPLICA", 107, false, "proposed ISR has an ineligible replica"},
	{CodeOperationNotAttempted, "OPERATION_NOT_ATTEMPTED", 55, false, "not attempted: another part of the request failed"},
	{CodeEligibleLeadersNotAvailable, "ELIGIBLE_LEADERS_NOT_AVAILABLE", 83, true, "no replica is eligible to lead"},
	{CodeTopicAlreadyExists, "TOPIC_ALREADY_EXISTS", 36, false, "topic exists"},
	{CodeInvalidReplicationFactor, "INVALID_REPLICATION_FACTOR", 38, false, "replication factor below 1 or above the broker count"},
	{CodeInvalidPartitions, "INVALID_PARTITIONS", 37, false, "partition count below 1"},
	{CodeNotController, "NOT_CONTROLLER", 41, true, "broker is not the controller"},
	{CodeBrokerIDNotRegistered, "BROKER_ID_NOT_REGISTERED", 102, false, "broker id has no registration"},
	{CodeOutOfOrderSequenceNumber, "OUT_OF_ORDER_SEQUENCE_NUMBER", 45, false, "producer sequence number out of order"},
	{CodeDuplicateSequenceNumber, "DUPLICATE_SEQUENCE_NUMBER", 46, false, "producer sequence number already written"},
	{CodeInvalidProducerEpoch, "INVALID_PRODUCER_EPOCH", 47, false, "producer epoch is stale"},
	{CodeUnknownProducerID, "UNKNOWN_PRODUCER_ID", 59, false, "no state for the producer id"},
	{CodeInvalidTopicException, "INVALID_TOPIC_EXCEPTION", 17, false, "invalid topic name"},
	{CodeUnsupportedVersion, "UNSUPPORTED_VERSION", 35, false, "message version not supported"},
	{CodeNetworkException, "NETWORK_EXCEPTION", 13, true, "connection closed before the response"},
	{CodeOffsetNotAvailable, "OFFSET_NOT_AVAILABLE", 78, true, "new leader's high watermark not caught up yet"},
	{CodeDuplicateBrokerRegistration, "DUPLICATE_BROKER_REGISTRATION", 101, false, "another incarnation of the broker id has a live session"},
	{CodeInconsistentClusterID, "INCONSISTENT_CLUSTER_ID", 104, false, "cluster id differs from the controller's"},
	{CodeCoordinatorLoadInProgress, "COORDINATOR_LOAD_IN_PROGRESS", 14, true, "group coordinator still loading its partition"},
	{CodeCoordinatorNotAvailable, "COORDINATOR_NOT_AVAILABLE", 15, true, "group coordinator not available"},
	{CodeNotCoordinator, "NOT_COORDINATOR", 16, true, "broker is not the group's coordinator"},
	{CodeIllegalGeneration, "ILLEGAL_GENERATION", 22, false, "group generation is not the current one"},
	{CodeInconsistentGroupProtocol, "INCONSISTENT_GROUP_PROTOCOL", 23, false, "member's protocols incompatible with the group's"},
	{CodeInvalidGroupID, "INVALID_GROUP_ID", 24, false, "invalid group id"},
	{CodeUnknownMemberID, "UNKNOWN_MEMBER_ID", 25, false, "coordinator does not know the member"},
	{CodeInvalidSessionTimeout, "INVALID_SESSION_TIMEOUT", 26, false, "session timeout outside the coordinator's bounds"},
	{CodeRebalanceInProgress, "REBALANCE_IN_PROGRESS", 27, false, "group is rebalancing, rejoin needed"},
	{CodeInvalidCommitOffsetSize, "INVALID_COMMIT_OFFSET_SIZE", 28, false, "offset commit too large to write"},
	{CodeOffsetMetadataTooLarge, "OFFSET_METADATA_TOO_LARGE", 12, false, "offset metadata longer than the coordinator accepts"},
	{CodeNonEmptyGroup, "NON_EMPTY_GROUP", 68, false, "group has members"},
	{CodeGroupIDNotFound, "GROUP_ID_NOT_FOUND", 69, false, "group does not exist"},
	{CodeMemberIDRequired, "MEMBER_ID_REQUIRED", 79, false, "member must join again with the member id given"},
	{CodeGroupMaxSizeReached, "GROUP_MAX_SIZE_REACHED", 81, false, "group has reached its maximum size"},
	{CodeFencedInstanceID, "FENCED_INSTANCE_ID", 82, false, "static member replaced by another member id"},
	{CodeGroupSubscribedToTopic, "GROUP_SUBSCRIBED_TO_TOPIC", 86, false, "group is subscribed to the topic"},
	{CodeInvalidConfig, "INVALID_CONFIG", 40, false, "a config kaenlog does not apply, or an invalid value"},
	{CodeElectionNotNeeded, "ELECTION_NOT_NEEDED", 84, true, "the election would change nothing"},
	{CodePreferredLeaderNotAvailable, "PREFERRED_LEADER_NOT_AVAILABLE", 80, true, "the preferred replica cannot lead"},
	{CodeNoReassignmentInProgress, "NO_REASSIGNMENT_IN_PROGRESS", 85, false, "no reassignment of the partition is in flight"},
}

// row returns c's row, or nil for a code the table does not list.
func row(c ErrorCode) *Error {
	i := int(c) - int(CodeUnknownServerError)
	if i < 0 || i >= len(errorTable) {
		return nil
	}
	return &errorTable[i]
}

// The sentinel errors, one per code except CodeNone, each pointing at its
// row of the table: ErrorCode.Err returns them and CodeOf maps them back.
// Package-specific errors (from log, isr, epoch) cross the wire by being
// wrapped with one of these, for example
// fmt.Errorf("%w: %w", wire.ErrOffsetOutOfRange, err).
var (
	// ErrUnknownServerError is CodeUnknownServerError's error. Err also
	// returns an error matching it for a code missing from the table.
	ErrUnknownServerError = row(CodeUnknownServerError)
	// ErrOffsetOutOfRange is CodeOffsetOutOfRange's error.
	ErrOffsetOutOfRange = row(CodeOffsetOutOfRange)
	// ErrNotEnoughReplicas is CodeNotEnoughReplicas's error.
	ErrNotEnoughReplicas = row(CodeNotEnoughReplicas)
	// ErrNotEnoughReplicasAfterAppend is CodeNotEnoughReplicasAfterAppend's error.
	ErrNotEnoughReplicasAfterAppend = row(CodeNotEnoughReplicasAfterAppend)
	// ErrNotLeaderOrFollower is CodeNotLeaderOrFollower's error.
	ErrNotLeaderOrFollower = row(CodeNotLeaderOrFollower)
	// ErrFencedLeaderEpoch is CodeFencedLeaderEpoch's error.
	ErrFencedLeaderEpoch = row(CodeFencedLeaderEpoch)
	// ErrUnknownLeaderEpoch is CodeUnknownLeaderEpoch's error.
	ErrUnknownLeaderEpoch = row(CodeUnknownLeaderEpoch)
	// ErrCorruptMessage is CodeCorruptMessage's error.
	ErrCorruptMessage = row(CodeCorruptMessage)
	// ErrUnknownReplica is CodeUnknownReplica's error.
	ErrUnknownReplica = row(CodeUnknownReplica)
	// ErrRequestTimedOut is CodeRequestTimedOut's error.
	ErrRequestTimedOut = row(CodeRequestTimedOut)
	// ErrInvalidRequiredAcks is CodeInvalidRequiredAcks's error.
	ErrInvalidRequiredAcks = row(CodeInvalidRequiredAcks)
	// ErrInvalidRequest is CodeInvalidRequest's error: the peer could not
	// decode our request. (Our own decoding failures match ErrMalformed.)
	ErrInvalidRequest = row(CodeInvalidRequest)
	// ErrMessageTooLarge is CodeMessageTooLarge's error.
	ErrMessageTooLarge = row(CodeMessageTooLarge)
	// ErrInvalidRecord is CodeInvalidRecord's error.
	ErrInvalidRecord = row(CodeInvalidRecord)
	// ErrUnsupportedCompressionType is CodeUnsupportedCompressionType's error.
	ErrUnsupportedCompressionType = row(CodeUnsupportedCompressionType)
	// ErrKafkaStorageError is CodeKafkaStorageError's error.
	ErrKafkaStorageError = row(CodeKafkaStorageError)
	// ErrUnknownTopicOrPartition is CodeUnknownTopicOrPartition's error.
	ErrUnknownTopicOrPartition = row(CodeUnknownTopicOrPartition)
	// ErrLeaderNotAvailable is CodeLeaderNotAvailable's error.
	ErrLeaderNotAvailable = row(CodeLeaderNotAvailable)
	// ErrStaleBrokerEpoch is CodeStaleBrokerEpoch's error.
	ErrStaleBrokerEpoch = row(CodeStaleBrokerEpoch)
	// ErrInvalidUpdateVersion is CodeInvalidUpdateVersion's error.
	ErrInvalidUpdateVersion = row(CodeInvalidUpdateVersion)
	// ErrNewLeaderElected is CodeNewLeaderElected's error.
	ErrNewLeaderElected = row(CodeNewLeaderElected)
	// ErrIneligibleReplica is CodeIneligibleReplica's error.
	ErrIneligibleReplica = row(CodeIneligibleReplica)
	// ErrOperationNotAttempted is CodeOperationNotAttempted's error.
	ErrOperationNotAttempted = row(CodeOperationNotAttempted)
	// ErrEligibleLeadersNotAvailable is CodeEligibleLeadersNotAvailable's error.
	ErrEligibleLeadersNotAvailable = row(CodeEligibleLeadersNotAvailable)
	// ErrTopicAlreadyExists is CodeTopicAlreadyExists's error.
	ErrTopicAlreadyExists = row(CodeTopicAlreadyExists)
	// ErrInvalidReplicationFactor is CodeInvalidReplicationFactor's error.
	ErrInvalidReplicationFactor = row(CodeInvalidReplicationFactor)
	// ErrInvalidPartitions is CodeInvalidPartitions's error.
	ErrInvalidPartitions = row(CodeInvalidPartitions)
	// ErrNotController is CodeNotController's error.
	ErrNotController = row(CodeNotController)
	// ErrBrokerIDNotRegistered is CodeBrokerIDNotRegistered's error.
	ErrBrokerIDNotRegistered = row(CodeBrokerIDNotRegistered)
	// ErrOutOfOrderSequenceNumber is CodeOutOfOrderSequenceNumber's error.
	ErrOutOfOrderSequenceNumber = row(CodeOutOfOrderSequenceNumber)
	// ErrDuplicateSequenceNumber is CodeDuplicateSequenceNumber's error.
	ErrDuplicateSequenceNumber = row(CodeDuplicateSequenceNumber)
	// ErrInvalidProducerEpoch is CodeInvalidProducerEpoch's error.
	ErrInvalidProducerEpoch = row(CodeInvalidProducerEpoch)
	// ErrUnknownProducerID is CodeUnknownProducerID's error.
	ErrUnknownProducerID = row(CodeUnknownProducerID)
	// ErrInvalidTopicException is CodeInvalidTopicException's error.
	ErrInvalidTopicException = row(CodeInvalidTopicException)
	// ErrUnsupportedVersion is CodeUnsupportedVersion's error. PeekHeader
	// and the decoders also return an error matching it, and ErrMalformed,
	// when a header's version is not 0, the only version kaenlog speaks;
	// so a peer's refusal and our own use one name, and CodeOf answers our
	// own with CodeUnsupportedVersion.
	ErrUnsupportedVersion = row(CodeUnsupportedVersion)
	// ErrNetworkException is CodeNetworkException's error.
	ErrNetworkException = row(CodeNetworkException)
	// ErrOffsetNotAvailable is CodeOffsetNotAvailable's error.
	ErrOffsetNotAvailable = row(CodeOffsetNotAvailable)
	// ErrDuplicateBrokerRegistration is CodeDuplicateBrokerRegistration's error.
	ErrDuplicateBrokerRegistration = row(CodeDuplicateBrokerRegistration)
	// ErrInconsistentClusterID is CodeInconsistentClusterID's error.
	ErrInconsistentClusterID = row(CodeInconsistentClusterID)
	// ErrCoordinatorLoadInProgress is CodeCoordinatorLoadInProgress's error.
	ErrCoordinatorLoadInProgress = row(CodeCoordinatorLoadInProgress)
	// ErrCoordinatorNotAvailable is CodeCoordinatorNotAvailable's error.
	ErrCoordinatorNotAvailable = row(CodeCoordinatorNotAvailable)
	// ErrNotCoordinator is CodeNotCoordinator's error.
	ErrNotCoordinator = row(CodeNotCoordinator)
	// ErrIllegalGeneration is CodeIllegalGeneration's error.
	ErrIllegalGeneration = row(CodeIllegalGeneration)
	// ErrInconsistentGroupProtocol is CodeInconsistentGroupProtocol's error.
	ErrInconsistentGroupProtocol = row(CodeInconsistentGroupProtocol)
	// ErrInvalidGroupID is CodeInvalidGroupID's error.
	ErrInvalidGroupID = row(CodeInvalidGroupID)
	// ErrUnknownMemberID is CodeUnknownMemberID's error.
	ErrUnknownMemberID = row(CodeUnknownMemberID)
	// ErrInvalidSessionTimeout is CodeInvalidSessionTimeout's error.
	ErrInvalidSessionTimeout = row(CodeInvalidSessionTimeout)
	// ErrRebalanceInProgress is CodeRebalanceInProgress's error.
	ErrRebalanceInProgress = row(CodeRebalanceInProgress)
	// ErrInvalidCommitOffsetSize is CodeInvalidCommitOffsetSize's error.
	ErrInvalidCommitOffsetSize = row(CodeInvalidCommitOffsetSize)
	// ErrOffsetMetadataTooLarge is CodeOffsetMetadataTooLarge's error.
	ErrOffsetMetadataTooLarge = row(CodeOffsetMetadataTooLarge)
	// ErrNonEmptyGroup is CodeNonEmptyGroup's error.
	ErrNonEmptyGroup = row(CodeNonEmptyGroup)
	// ErrGroupIDNotFound is CodeGroupIDNotFound's error.
	ErrGroupIDNotFound = row(CodeGroupIDNotFound)
	// ErrMemberIDRequired is CodeMemberIDRequired's error.
	ErrMemberIDRequired = row(CodeMemberIDRequired)
	// ErrGroupMaxSizeReached is CodeGroupMaxSizeReached's error.
	ErrGroupMaxSizeReached = row(CodeGroupMaxSizeReached)
	// ErrFencedInstanceID is CodeFencedInstanceID's error.
	ErrFencedInstanceID = row(CodeFencedInstanceID)
	// ErrGroupSubscribedToTopic is CodeGroupSubscribedToTopic's error.
	ErrGroupSubscribedToTopic = row(CodeGroupSubscribedToTopic)
	// ErrInvalidConfig is CodeInvalidConfig's error.
	ErrInvalidConfig = row(CodeInvalidConfig)
	// ErrElectionNotNeeded is CodeElectionNotNeeded's error.
	ErrElectionNotNeeded = row(CodeElectionNotNeeded)
	// ErrPreferredLeaderNotAvailable is CodePreferredLeaderNotAvailable's error.
	ErrPreferredLeaderNotAvailable = row(CodePreferredLeaderNotAvailable)
	// ErrNoReassignmentInProgress is CodeNoReassignmentInProgress's error.
	ErrNoReassignmentInProgress = row(CodeNoReassignmentInProgress)
)

// String returns the Kafka-style name ("NONE", "NOT_ENOUGH_REPLICAS", ...),
// or "ErrorCode(n)" for a code not in the table.
func (c ErrorCode) String() string {
	if e := row(c); e != nil {
		return e.name
	}
	return fmt.Sprintf("ErrorCode(%d)", int16(c))
}

// KafkaCode returns the number of c's Kafka counterpart in Kafka's
// Errors.java (NOT_ENOUGH_REPLICAS is kaenlog's 2 and Kafka's 19), with
// ok == false for a code Kafka has no counterpart for (CodeUnknownReplica)
// or that the table does not list. The number is for reading the two
// tables side by side; kaenlog never puts it on the wire.
func (c ErrorCode) KafkaCode() (code int16, ok bool) {
	if e := row(c); e != nil {
		return e.KafkaCode()
	}
	return 0, false
}

// Retriable reports whether Kafka calls c retriable (see Error.Retriable).
// It is false for CodeNone and for a code the table does not list, which
// Err treats as UNKNOWN_SERVER_ERROR.
func (c ErrorCode) Retriable() bool {
	if e := row(c); e != nil {
		return e.retriable
	}
	return false
}

// unknownCodeError is what Err returns for a code missing from the table. It
// keeps the number so CodeOf can send it on unchanged.
type unknownCodeError struct{ code ErrorCode }

func (e *unknownCodeError) Error() string {
	return fmt.Sprintf("wire: unknown error code %d", int16(e.code))
}

func (e *unknownCodeError) Unwrap() error { return ErrUnknownServerError }

// Err turns a code received on the wire into an error: nil for CodeNone,
// the code's sentinel (ErrNotEnoughReplicas, ...) for a listed code, and for
// any other code an error that matches ErrUnknownServerError and keeps the
// number. CodeOf(c.Err()) == c for every c.
func (c ErrorCode) Err() error {
	if c == CodeNone {
		return nil
	}
	if e := row(c); e != nil {
		return e
	}
	return &unknownCodeError{code: c}
}

// CodeOf turns an error into the code to put on the wire, the inverse of
// ErrorCode.Err. nil gives CodeNone. Otherwise the sentinel with the lowest
// code that errors.Is matches wins, so wrapped errors keep their code (a
// decoding error for a version kaenlog does not speak matches
// ErrUnsupportedVersion and gives CodeUnsupportedVersion). Next comes
// ErrUnknownServerError, which an error from ErrorCode.Err for an unlisted
// code also matches: that error gives its own code back. Then any other
// error matching ErrMalformed (a request that did not decode) gives
// CodeInvalidRequest, and anything else gives CodeUnknownServerError, never
// CodeNone. CodeOf does not allocate unless err carries an unlisted code.
func CodeOf(err error) ErrorCode {
	if err == nil {
		return CodeNone
	}
	if e, ok := err.(*Error); ok && row(e.code) == e {
		// A bare sentinel: *Error wraps nothing, so errors.Is would match
		// it and only it.
		return e.code
	}
	for i := range errorTable {
		e := &errorTable[i]
		if e.code > CodeNone && errors.Is(err, e) {
			return e.code
		}
	}
	if errors.Is(err, ErrUnknownServerError) {
		// Only now, because errors.As makes u escape: the common case,
		// a wrapped sentinel, stays free of allocations.
		var u *unknownCodeError
		if errors.As(err, &u) {
			return u.code
		}
		return CodeUnknownServerError
	}
	if errors.Is(err, ErrMalformed) {
		return CodeInvalidRequest
	}
	return CodeUnknownServerError
}

// IsRetriable reports whether the code CodeOf(err) would put on the wire is
// one Kafka calls retriable: true for an error wrapping
// ErrNotEnoughReplicas or ErrNotLeaderOrFollower, false for nil, for
// ErrInvalidRequiredAcks, and for anything CodeOf maps to
// CodeUnknownServerError. It classifies codes only: whether a broken
// connection (ErrShortFrame, a reset) is worth a retry is the caller's
// decision.
func IsRetriable(err error) bool {
	return err != nil && CodeOf(err).Retriable()
}
