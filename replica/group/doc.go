// Package group is kaenlog's group coordinator for Kafka's classic consumer
// group protocol: the groups of one __consumer_offsets partition and their
// committed offsets, as a pure state machine in the style of etcd's raft.
// Requests come in as kaenlog's own types (JoinGroupRequest, ...), not a
// listener's: the coordinator is kaenlog's, and a Kafka listener or any
// other protocol translates to and from them. It reads no clock and starts
// no goroutine: every entry point takes nowMs, answers that wait come out
// of [Coordinator.Ready] with the writes it needs, and the host calls
// [Coordinator.Tick] at [Coordinator.NextDeadlineMs].
//
// # Where a group lives
//
// A group's state is records in the compacted internal topic
// __consumer_offsets (Kafka's: 50 partitions, replication factor 3,
// min.insync.replicas 2, written with acks=all). The coordinator of a group
// is the leader of partition [PartitionFor](group, 50), Kafka's
// Utils.abs(groupId.hashCode()) % groupMetadataTopicPartitionCount with
// Java's String.hashCode ([JavaStringHashCode]); FindCoordinator answers
// with that leader. A broker that becomes the leader calls
// [Coordinator.BeginLoad], replays the partition with [Coordinator.Load]
// (the last value of a key wins, a tombstone deletes it) and calls
// [Coordinator.Loaded]; until then every request is answered
// COORDINATOR_LOAD_IN_PROGRESS. One that loses the leadership calls
// [Coordinator.Unload] and answers NOT_COORDINATOR, as one that never led
// does.
//
// # Writes and answers
//
// Each change the coordinator must persist is a [Write] of [Record]s in
// Kafka's formats (OffsetCommitKey v1 / OffsetCommitValue v3,
// GroupMetadataKey v2 / GroupMetadataValue v3, documented in records.go).
// The host appends each write, reports its last offset with
// [Coordinator.Appended] (or its failure with [Coordinator.AppendFailed])
// and the partition's high watermark with [Coordinator.Committed]. An
// OffsetCommit is answered only once its records are committed (the high
// watermark passed them), and only then does OffsetFetch see the offsets:
// an acknowledged commit survives the coordinator's failover. The leader's
// SyncGroup assignment, a static member's new id, DeleteGroups' and
// OffsetDelete's tombstones are answered the same way. A failed write is
// answered with the error Kafka's GroupMetadataManager maps it to
// (NOT_LEADER_OR_FOLLOWER becomes NOT_COORDINATOR, NOT_ENOUGH_REPLICAS or
// REQUEST_TIMED_OUT COORDINATOR_NOT_AVAILABLE, a batch too large
// INVALID_COMMIT_OFFSET_SIZE for offsets), never with success. A write
// that reached the log and then failed (acks=all gave up waiting for the
// ISR) is answered with its error at once, yet its offsets apply once the
// high watermark passes it, as the next load would replay them (Kafka's
// coordinator runtime keeps a timed-out write's state); DeleteGroups and
// OffsetDelete tombstone offsets still waiting to commit too. No record
// the loader could not read is ever written (Kafka's record strings hold
// at most 32767 bytes; a flexible request's strings may be longer): a
// commit for a topic no topic can be named is UNKNOWN_TOPIC_OR_PARTITION
// for that partition, any other such write fails UNKNOWN_SERVER_ERROR, as
// Kafka's record serializer fails, and member ids keep within the bound.
// Heartbeat,
// LeaveGroup, OffsetFetch, ListGroups and DescribeGroups are answered at
// once, by their return value.
//
// # The classic group
//
// A group is Empty, PreparingRebalance, CompletingRebalance, Stable or Dead
// (Kafka's ClassicGroupState). The rules, from Kafka's
// GroupMetadataManager.classicGroup* and ClassicGroup (apache/kafka
// group-coordinator):
//
//   - A dynamic member's first JoinGroup without a member id, from a client
//     that requires it (Kafka: JoinGroup v4+, KIP-394), is answered
//     MEMBER_ID_REQUIRED with a new id (client id + "-" + a UUID-shaped
//     suffix), remembered as pending for a session timeout; its next join
//     with that id is the real one.
//   - A join starts a rebalance from Empty, CompletingRebalance (whose
//     waiting SyncGroups then answer REBALANCE_IN_PROGRESS) or Stable.
//     From Empty it waits group.initial.rebalance.delay.ms, and again while
//     members keep arriving, up to the rebalance timeout; otherwise it
//     completes once every member and no pending member has joined, or
//     when the longest rebalance timeout of the members passes, removing
//     those that did not join again.
//   - The first member to join leads; a leader that leaves or did not join
//     again is replaced by the next member in join order. The leader's
//     JoinGroup answer lists the members with their metadata for the
//     selected protocol: among the protocols every member supports, the one
//     most members prefer (Kafka breaks ties in hash-map order, kaenlog by
//     the first member's preference). A member with no protocol in common,
//     or another protocol type, is refused INCONSISTENT_GROUP_PROTOCOL.
//   - A member joining again in Stable with unchanged metadata gets the
//     current generation back; the leader, or a member with new metadata,
//     starts a rebalance.
//   - SyncGroup: followers wait for the leader's; the leader's assignment,
//     opaque bytes per member, is written, and once committed each member
//     gets exactly its bytes and the group is Stable. A member that sends
//     no SyncGroup within the rebalance timeout is removed.
//   - Generations fence: SyncGroup, Heartbeat and OffsetCommit with another
//     generation are ILLEGAL_GENERATION; a member id the group lacks, or
//     a group.instance.id it maps to no member, is UNKNOWN_MEMBER_ID (a
//     pending member's join naming one is UNKNOWN_SERVER_ERROR, Kafka's
//     IllegalStateException); a heartbeat while preparing a rebalance is
//     REBALANCE_IN_PROGRESS, and so is a commit of a member that has joined
//     but not synced.
//   - A member that sends no heartbeat within its session timeout is
//     removed and the group rebalances. A member waiting in JoinGroup or
//     SyncGroup is kept (it cannot heartbeat), except a new member, whose
//     first join may wait [NewMemberJoinTimeoutMs].
//   - Static membership (KIP-345): a member with a group.instance.id joins
//     without MEMBER_ID_REQUIRED. Joining again with its instance id and no
//     member id gives it a new member id and fences the old one
//     (FENCED_INSTANCE_ID); in a Stable group with unchanged metadata it
//     keeps the generation and its assignment without a rebalance, and a
//     leader is told to skip the assignment (KIP-814).
//   - LeaveGroup takes a batch (v3+), naming members by id or by instance
//     id, each with its own result.
//   - OffsetCommit with generation -1 and no member id commits for a group
//     outside group management, accepted while the group is Empty (or has
//     no state: a "simple" group is created); metadata longer than
//     offset.metadata.max.bytes is OFFSET_METADATA_TOO_LARGE for its
//     partition. A commit carries the offset, its leader epoch (KIP-320) and
//     metadata; a member's commit also counts as its heartbeat.
//   - An empty group id is INVALID_GROUP_ID for JoinGroup, SyncGroup,
//     Heartbeat, LeaveGroup, OffsetCommit and OffsetDelete, before the
//     coordinator is looked at (Kafka's GroupCoordinatorService);
//     OffsetFetch answers it, for backwards compatibility.
//   - OffsetFetch of a partition, or a group, with no committed offset
//     answers -1 with no error.
//   - DeleteGroups deletes only an Empty group (NON_EMPTY_GROUP otherwise,
//     GROUP_ID_NOT_FOUND for none), by tombstones for its offsets and
//     metadata. OffsetDelete (KIP-496) deletes an Empty group's offsets,
//     and a consumer group's offsets of topics none of its members
//     subscribes to (GROUP_SUBSCRIBED_TO_TOPIC for the others); another
//     group with members is NON_EMPTY_GROUP.
//   - A deleted topic's offsets are tombstoned in every group
//     ([Coordinator.TopicsDeleted], Kafka's onPartitionsDeleted, which the
//     host calls when its metadata drops the topic or creates it again):
//     offsets are keyed by topic name, and a recreated topic must not
//     resume at the old one's.
//   - DescribeGroups of a group with no state answers Dead with no error;
//     members' metadata and assignments are given in Stable only.
//
// # Where kaenlog differs
//
// KIP-848's consumer group protocol is not implemented: a listener does
// not advertise ConsumerGroupHeartbeat (API key 68), so a client that asks
// for it is answered UNSUPPORTED_VERSION and, like Kafka's clients with
// group.protocol=classic, uses JoinGroup. OffsetCommit to a group with no
// state and a generation is ILLEGAL_GENERATION, Kafka's answer before
// OffsetCommit v9 (v9+ says GROUP_ID_NOT_FOUND). Transactional offset
// commits (TxnOffsetCommit) and offset expiry (offsets.retention.minutes)
// are not implemented; without them OffsetFetch never answers
// UNSTABLE_OFFSET_COMMIT. A JoinGroup or SyncGroup that replaces one of the
// same member still waiting (a client that retried on another connection)
// releases the older with REBALANCE_IN_PROGRESS, where Kafka drops it
// unanswered: every request gets one answer. Kafka's member ids carry
// random UUIDs; kaenlog's come from [Config.MemberIDSeed], which the host
// varies per load.
package group
