package group

// The requests and responses of the coordinator: kaenlog's own types, one
// pair per classic group API, with Kafka's field names. A listener
// translates its protocol's messages into these and back; nothing here is
// tied to one encoding. A response's Err is nil or matches one of wire's
// group errors (wire.ErrUnknownMemberID, ...); wire.CodeOf gives its code.

// Response is an answer the coordinator hands out through [Ready]: the
// answers of JoinGroup, SyncGroup, OffsetCommit, DeleteGroups and
// OffsetDelete, which may wait for other members or for a write. Its
// RequestRef is the Ref of the request it answers.
type Response interface {
	RequestRef() uint64
}

// Protocol is one protocol a joining member supports, with its metadata
// (for the "consumer" protocol type: a ConsumerProtocolSubscription).
type Protocol struct {
	// Name is the protocol's name, an assignor such as "range".
	Name string
	// Metadata is the member's metadata for it, opaque to the coordinator.
	Metadata []byte
}

// JoinGroupRequest asks to join a group (Kafka's JoinGroup, key 11).
type JoinGroupRequest struct {
	// Ref identifies the request in its [JoinGroupResponse].
	Ref uint64
	// Group is the group id.
	Group string
	// SessionTimeoutMs is how long the member may go without a heartbeat.
	SessionTimeoutMs int32
	// RebalanceTimeoutMs is how long the coordinator waits for the member
	// to join again once a rebalance starts (Kafka's JoinGroup v0 has
	// none: a listener sets it to SessionTimeoutMs).
	RebalanceTimeoutMs int32
	// MemberID is the member's id, "" on its first join.
	MemberID string
	// GroupInstanceID is a static member's group.instance.id (KIP-345),
	// "" for a dynamic member.
	GroupInstanceID string
	// ProtocolType is the members' protocol type, such as "consumer".
	ProtocolType string
	// Protocols are the protocols the member supports, preferred first.
	Protocols []Protocol
	// ClientID is the client's client.id; a new member id starts with it.
	ClientID string
	// ClientHost is the client's address, kept for DescribeGroups.
	ClientHost string
	// RequireKnownMemberID makes a dynamic member's first join answer
	// MEMBER_ID_REQUIRED with its id (KIP-394). Kafka requires it from
	// JoinGroup version 4 on.
	RequireKnownMemberID bool
}

// JoinMember is a member as the leader's JoinGroup response lists it.
type JoinMember struct {
	// MemberID is the member's id.
	MemberID string
	// GroupInstanceID is its group.instance.id, "" for a dynamic member.
	GroupInstanceID string
	// Metadata is its metadata for the selected protocol.
	Metadata []byte
}

// JoinGroupResponse answers a JoinGroupRequest.
type JoinGroupResponse struct {
	// Ref is the request's Ref.
	Ref uint64
	// Err is nil, or why the join was refused.
	Err error
	// Generation is the generation the member joined, -1 on an error.
	Generation int32
	// ProtocolType is the group's protocol type.
	ProtocolType string
	// Protocol is the selected protocol.
	Protocol string
	// Leader is the leader's member id.
	Leader string
	// SkipAssignment tells a static leader that joined again in a stable
	// group not to assign (KIP-814): the group keeps its assignment.
	SkipAssignment bool
	// MemberID is the member's id: the one to join with next after
	// MEMBER_ID_REQUIRED.
	MemberID string
	// Members lists every member, for the leader only.
	Members []JoinMember
}

// RequestRef returns r.Ref.
func (r JoinGroupResponse) RequestRef() uint64 { return r.Ref }

// Assignment is the leader's assignment for one member, opaque bytes.
type Assignment struct {
	// MemberID is the member the assignment is for.
	MemberID string
	// Assignment is what the leader assigned it.
	Assignment []byte
}

// SyncGroupRequest ends a member's part of a rebalance (Kafka's SyncGroup,
// key 14); the leader's carries the assignment.
type SyncGroupRequest struct {
	// Ref identifies the request in its [SyncGroupResponse].
	Ref uint64
	// Group is the group id.
	Group string
	// Generation is the generation the member joined.
	Generation int32
	// MemberID is the member's id.
	MemberID string
	// GroupInstanceID is a static member's group.instance.id, or "".
	GroupInstanceID string
	// ProtocolType, when not "", must be the group's (SyncGroup v5+).
	ProtocolType string
	// Protocol, when not "", must be the selected protocol (v5+).
	Protocol string
	// Assignments is the leader's assignment; followers send none.
	Assignments []Assignment
}

// SyncGroupResponse answers a SyncGroupRequest.
type SyncGroupResponse struct {
	// Ref is the request's Ref.
	Ref uint64
	// Err is nil, or why the member has no assignment.
	Err error
	// ProtocolType is the group's protocol type.
	ProtocolType string
	// Protocol is the selected protocol.
	Protocol string
	// Assignment is the leader's bytes for this member.
	Assignment []byte
}

// RequestRef returns r.Ref.
func (r SyncGroupResponse) RequestRef() uint64 { return r.Ref }

// HeartbeatRequest keeps a member's session alive (Kafka's Heartbeat, key
// 12). It is answered at once.
type HeartbeatRequest struct {
	// Group is the group id.
	Group string
	// Generation is the member's generation.
	Generation int32
	// MemberID is the member's id.
	MemberID string
	// GroupInstanceID is a static member's group.instance.id, or "".
	GroupInstanceID string
}

// LeavingMember names one member of a LeaveGroupRequest: by member id, or
// (a static member, LeaveGroup v3+) by group.instance.id alone.
type LeavingMember struct {
	// MemberID is the member's id, or "" to name it by instance id.
	MemberID string
	// GroupInstanceID is a static member's group.instance.id, or "".
	GroupInstanceID string
}

// LeaveGroupRequest removes members from a group (Kafka's LeaveGroup, key
// 13; v3+ carries a batch). It is answered at once.
type LeaveGroupRequest struct {
	// Group is the group id.
	Group string
	// Members are the members leaving.
	Members []LeavingMember
}

// LeftMember is one member's result in a LeaveGroupResponse.
type LeftMember struct {
	// MemberID is the member id as the request named it.
	MemberID string
	// GroupInstanceID is the instance id as the request named it.
	GroupInstanceID string
	// Err is nil, or why this member was not removed.
	Err error
}

// LeaveGroupResponse answers a LeaveGroupRequest.
type LeaveGroupResponse struct {
	// Err is the error of the whole request (coordinator errors).
	Err error
	// Members are the per-member results, in request order.
	Members []LeftMember
}

// TopicPartition names a partition of a topic.
type TopicPartition struct {
	// Topic is the topic's name.
	Topic string
	// Partition is the partition's index.
	Partition int32
}

// CommitPartition is one partition's offset in an OffsetCommitRequest.
type CommitPartition struct {
	// Topic is the topic's name.
	Topic string
	// Partition is the partition's index.
	Partition int32
	// Offset is the offset committed: the next one to consume.
	Offset int64
	// LeaderEpoch is the leader epoch of the record before Offset
	// (KIP-320), or -1.
	LeaderEpoch int32
	// Metadata is kept with the offset, opaque.
	Metadata string
}

// OffsetCommitRequest commits a group's offsets (Kafka's OffsetCommit, key
// 8). Generation -1 with no member id is a commit outside group management
// (an admin or a consumer that assigns itself), accepted while the group
// is Empty.
type OffsetCommitRequest struct {
	// Ref identifies the request in its [OffsetCommitResponse].
	Ref uint64
	// Group is the group id.
	Group string
	// Generation is the committer's generation, or -1.
	Generation int32
	// MemberID is the committer's member id, or "".
	MemberID string
	// GroupInstanceID is a static member's group.instance.id, or "".
	GroupInstanceID string
	// Partitions are the offsets to commit.
	Partitions []CommitPartition
}

// PartitionResult is one partition's result.
type PartitionResult struct {
	// Topic is the topic's name.
	Topic string
	// Partition is the partition's index.
	Partition int32
	// Err is nil, or why the partition's operation failed.
	Err error
}

// OffsetCommitResponse answers an OffsetCommitRequest once every offset
// it accepted is committed in __consumer_offsets (or its write failed). A
// refusal of the whole request is repeated on every partition, as in
// Kafka's response.
type OffsetCommitResponse struct {
	// Ref is the request's Ref.
	Ref uint64
	// Partitions are the per-partition results, in request order.
	Partitions []PartitionResult
}

// RequestRef returns r.Ref.
func (r OffsetCommitResponse) RequestRef() uint64 { return r.Ref }

// OffsetFetchRequest reads a group's committed offsets (Kafka's
// OffsetFetch, key 9). It is answered at once.
type OffsetFetchRequest struct {
	// Group is the group id.
	Group string
	// Partitions are the partitions to read; nil reads all the group has.
	Partitions []TopicPartition
}

// FetchedOffset is one partition's committed offset.
type FetchedOffset struct {
	// Topic is the topic's name.
	Topic string
	// Partition is the partition's index.
	Partition int32
	// Offset is the committed offset, or -1 when the group has none.
	Offset int64
	// LeaderEpoch is the committed leader epoch, or -1.
	LeaderEpoch int32
	// Metadata is the committed metadata, "" when none.
	Metadata string
}

// OffsetFetchResponse answers an OffsetFetchRequest.
type OffsetFetchResponse struct {
	// Err is nil, or the coordinator's refusal.
	Err error
	// Partitions are the offsets, in request order (or topic, partition
	// order for a request for all).
	Partitions []FetchedOffset
}

// ListGroupsRequest lists the coordinator's groups (Kafka's ListGroups,
// key 16). It is answered at once.
type ListGroupsRequest struct {
	// States keeps only groups in one of these states (v4+); nil keeps all.
	States []State
	// Types keeps only groups of one of these protocol types; nil keeps
	// all. (Kafka's v5 filter is by group type, "classic" or "consumer";
	// every group here is classic.)
	Types []string
}

// ListedGroup is one group of a ListGroupsResponse.
type ListedGroup struct {
	// Group is the group id.
	Group string
	// ProtocolType is the group's protocol type.
	ProtocolType string
	// State is the group's state.
	State State
}

// ListGroupsResponse answers a ListGroupsRequest.
type ListGroupsResponse struct {
	// Err is nil, or the coordinator's refusal.
	Err error
	// Groups are the groups, by id.
	Groups []ListedGroup
}

// DescribedMember is one member of a DescribedGroup.
type DescribedMember struct {
	// MemberID is the member's id.
	MemberID string
	// GroupInstanceID is its group.instance.id, or "".
	GroupInstanceID string
	// ClientID is its client.id.
	ClientID string
	// ClientHost is its address.
	ClientHost string
	// Metadata is its metadata for the selected protocol (Stable only).
	Metadata []byte
	// Assignment is its assignment (Stable only).
	Assignment []byte
}

// DescribedGroup is one group of DescribeGroups' answer (Kafka's
// DescribeGroups, key 15).
type DescribedGroup struct {
	// Group is the group id.
	Group string
	// Err is nil, or the coordinator's refusal.
	Err error
	// State is the group's state; a group with no state is Dead.
	State State
	// ProtocolType is the group's protocol type.
	ProtocolType string
	// Protocol is the selected protocol (Stable only).
	Protocol string
	// Members are the group's members, in join order.
	Members []DescribedMember
}

// DeleteGroupsRequest deletes Empty groups and their offsets (Kafka's
// DeleteGroups, key 42).
type DeleteGroupsRequest struct {
	// Ref identifies the request in its [DeleteGroupsResponse].
	Ref uint64
	// Groups are the group ids.
	Groups []string
}

// GroupResult is one group's result in a DeleteGroupsResponse.
type GroupResult struct {
	// Group is the group id.
	Group string
	// Err is nil, or why the group was not deleted.
	Err error
}

// DeleteGroupsResponse answers a DeleteGroupsRequest once the tombstones
// of the deleted groups are committed.
type DeleteGroupsResponse struct {
	// Ref is the request's Ref.
	Ref uint64
	// Results are the per-group results, in request order.
	Results []GroupResult
}

// RequestRef returns r.Ref.
func (r DeleteGroupsResponse) RequestRef() uint64 { return r.Ref }

// OffsetDeleteRequest deletes a group's offsets of partitions its members
// are not subscribed to (Kafka's OffsetDelete, key 47, KIP-496).
type OffsetDeleteRequest struct {
	// Ref identifies the request in its [OffsetDeleteResponse].
	Ref uint64
	// Group is the group id.
	Group string
	// Partitions are the partitions whose offsets to delete.
	Partitions []TopicPartition
}

// OffsetDeleteResponse answers an OffsetDeleteRequest once its tombstones
// are committed.
type OffsetDeleteResponse struct {
	// Ref is the request's Ref.
	Ref uint64
	// Err is the error of the whole request.
	Err error
	// Partitions are the per-partition results, in request order.
	Partitions []PartitionResult
}

// RequestRef returns r.Ref.
func (r OffsetDeleteResponse) RequestRef() uint64 { return r.Ref }

// Record is one record the coordinator writes to its __consumer_offsets
// partition, or one [Coordinator.Load] replays. A nil Value is a
// tombstone.
type Record struct {
	// Key is the record's key (see the package documentation's formats).
	Key []byte
	// Value is its value, nil for a tombstone.
	Value []byte
}

// Write is a batch of records the host appends to the partition, with
// acks=all, in Seq order. It reports the append's last offset through
// [Coordinator.Appended], or its failure through
// [Coordinator.AppendFailed], and the partition's high watermark through
// [Coordinator.Committed].
type Write struct {
	// Seq numbers the write; writes come out in increasing Seq.
	Seq uint64
	// Records are the records to append, in order.
	Records []Record
}

// Ready is what the coordinator has for its host: writes to append and
// answers to send. [Coordinator.Ready] drains it.
type Ready struct {
	// Writes are the writes to append, in Seq order.
	Writes []Write
	// Responses are the answers released since the last Ready.
	Responses []Response
}
