// Package controller is the controller that owns the ISR: Kafka's KRaft
// controller shrunk to what replication needs. Brokers register and
// heartbeat, partition leaders propose ISR changes, and the controller
// fences brokers, elects leaders and keeps KIP-966's eligible leader
// replicas. It is a pure, deterministic state machine: requests in,
// responses out, time only as each call's nowMs; no goroutines, no clock
// reads, no network.
//
// A single [Controller] stands in for a KRaft quorum. Its state is a
// metadata log in a [Store]: every decision is a batch of records appended
// to the store and applied only after the append returned (committed), and
// [Open] rebuilds the state by replaying the store. A replicated Store (an
// existing consensus system) can replace the single node without the
// controller changing. Brokers follow the same log: they read it with
// [Controller.ReadMetadata] (a fetch of [MetadataTopic] partition 0) and
// apply it to their own [Image], the same type the controller keeps.
//
// This package does not import package replica; replica imports it.
//
// # Handlers
//
// [Controller.RegisterBroker], [Controller.Heartbeat],
// [Controller.AlterPartition], [Controller.CreateTopics],
// [Controller.DeleteTopics], [Controller.CreatePartitions],
// [Controller.AlterPartitionReassignments], [Controller.ElectLeaders] and
// [Controller.InitProducerID] take a wire
// request and nowMs and return the wire response; [Controller.Metadata]
// and [Controller.ListPartitionReassignments] take no time. Every handler returns
// a response alone, never an error: a refusal is the response's ErrorCode.
// Go errors appear only where there is no response ([Open],
// [Controller.ReadMetadata], [Controller.Failed], [Image.Apply],
// [DecodeRecord]); each matches one of this package's sentinels, which wrap
// the wire sentinel whose code they carry ([ErrBadRecord] and [ErrInvariant]
// carry CORRUPT_MESSAGE, [ErrFailed] NOT_CONTROLLER, [ErrInvalidConfig]
// INVALID_REQUEST), so wire.CodeOf gives the code to send.
//
// A driver calls [Controller.Tick] at [Controller.NextTickMs].
//
// # The rules
//
// Brokers. A registration starts fenced and gets a broker epoch: the offset
// of its RegisterBrokerRecord, unique and increasing, as in KRaft. The
// broker is unfenced by its first heartbeat whose MetadataOffset (the end of
// the metadata it has applied) is past that record. A new IncarnationID is a
// restart and gets a new epoch; the same one again is a retry and gets the
// same epoch back, writing nothing. One broker id is one broker: a new
// IncarnationID while the id's session is live is another process with the
// same id, refused with DUPLICATE_BROKER_REGISTRATION, writing nothing and
// leaving the live broker's session and ISR places alone (Kafka's rule; see
// [Controller.RegisterBroker]). A broker restarted after a crash is
// refused the same way until its old session expires, then accepted. A
// registration naming another cluster id than Config.ClusterID is refused
// with INCONSISTENT_CLUSTER_ID. A heartbeat or AlterPartition carrying
// another epoch than the registration's is refused with STALE_BROKER_EPOCH.
// An active broker is registered, unfenced and not in controlled shutdown;
// only active brokers are elected, placed, or accepted into an ISR.
//
// Sessions. An unfenced broker whose last heartbeat is more than
// SessionTimeoutMs old (valid while now <= last + timeout) is fenced by Tick:
// one BrokerRegistrationChangeRecord, then its removal from every ISR
// ([isr.WithoutLostSession]), with a new leader wherever it led — the
// controller's half of "two judges", the
// leader's being the lag timer. Stale brokers are fenced oldest first, one
// batch each. A session is live from the registration or heartbeat that
// renewed it until it expires, or until the controller ends it by fencing
// the broker for expiry or by letting it shut down; a fenced broker that
// heartbeats keeps its session. Sessions are not in the log: when the
// controller opens, every unfenced broker starts a fresh session at nowMs,
// and a fenced one has none until it heartbeats.
//
// Partitions. A partition is (topic, index) with a replica assignment: given
// explicitly, or round-robin over the active brokers in id order, partition
// p of a topic created after k partitions starting at broker (k+p) mod n.
// It starts with the active replicas as its ISR, the first of them as
// leader, leader epoch 0 and partition epoch 0. Every change adds one to
// the partition epoch; a leader change, to no leader included, adds one to
// the leader epoch; an ISR change alone does not (KRaft since 3.6).
// CreatePartitions adds partitions to a topic the same way, numbered after
// its own, with the replication factor of its partition 0, up to a count
// that must be an increase (INVALID_PARTITIONS otherwise). Partitions are
// never removed; only a reassignment changes a partition's assignment.
//
// AlterPartition. A leader proposes an ISR under the leader and partition
// epochs it holds. The checks run in Kafka's order (see
// [Controller.AlterPartition]); a duplicate of an applied proposal carries
// an old partition epoch and gets INVALID_UPDATE_VERSION, so retries are
// safe. Additions come only this way: a replica rejoins an ISR only when
// its leader proposes it.
//
// Elections (KRaft's PartitionChangeBuilder.electAnyLeader). Keep the
// current leader if it is still in the ISR and active; else elect the first
// replica in assignment order that is active and in the ISR, or, only when
// the ISR is empty, in the ELR; an ELR member elected becomes the ISR alone
// and leaves the ELR. Otherwise the partition has no leader. An unclean
// election happens only when the topic enables UncleanLeaderElection (for
// the controller's own elections) or an operator sends ElectLeaders with
// Unclean for one leaderless partition: it elects the first active replica,
// sets the ISR to it alone, marks the partition RECOVERING and clears ELR
// and LastKnownELR; ElectLeaders answers DataMayBeLost. A RECOVERING leader
// keeps its ISR to itself until its AlterPartition says RECOVERED.
//
// Reassignment (KIP-455). [Controller.AlterPartitionReassignments] gives
// a partition a target assignment, whose length is the new replication
// factor. The replicas become the target's followed by those leaving;
// AddingReplicas are the target's that were not replicas, RemovingReplicas
// those not in the target. Brokers added create their replicas and fetch as
// followers; they join the ISR only as any replica does, by their leader's
// AlterPartition. Every partition change carries the reassignment, and the
// first one after which every added replica is in the ISR, with an ISR
// member left once the removed ones go, completes it in the same record:
// the replicas become the target, the removed ones leave the ISR, ELR and
// last known ELR, and a removed leader hands over as a clean election would
// over the target. Brokers no longer listed stop and delete their
// replicas. A target given while another is in flight starts from the
// replicas as they are; a cancellation reverts, the added replicas leaving
// the assignment and the ISR. The state is in the metadata log
// (PartitionChangeRecord's reassignment fields), so a restarted controller
// carries on; [Controller.ListPartitionReassignments] lists what is in
// flight.
//
// Preferred leaders. A partition's preferred replica is the first of its
// assignment; a partition led by another broker, or by none, is
// imbalanced. A preferred election elects the preferred replica if it is
// active and in the ISR (or, the ISR empty, in the ELR), even over a valid
// leader; otherwise it keeps a valid leader, or elects as a clean election
// would. Two things run it (KRaft's Election.PREFERRED): ElectLeaders with
// Preferred, answered ELECTION_NOT_NEEDED when the preferred replica
// already leads and PREFERRED_LEADER_NOT_AVAILABLE when the election
// changes nothing; and the periodic check (auto.leader.rebalance.enable,
// off with [Config].DisableAutoLeaderRebalance). The check is scheduled
// whenever a write leaves a partition imbalanced and none is due,
// LeaderImbalanceCheckIntervalMs later (leader.imbalance.check.interval.seconds,
// 300 s); when due, [Controller.Tick] runs a preferred election of every
// imbalanced partition in one batch of at most [MaxElectionsPerImbalance]
// changes, runs again at once if it stopped at that bound, and otherwise
// schedules itself again while a partition stays imbalanced. The schedule
// is not in the log: [Open] schedules it afresh.
//
// ELR (KIP-966, on unless [Config].DisableELR). While the ISR is under the
// topic's min ISR (capped at the replication factor, [isr.EffectiveMinISR])
// the high watermark
// does not move, so a replica that was in the ISR when it fell under min
// ISR holds every committed record. At every change: if the new ISR meets
// min ISR, ELR := ∅; otherwise ELR := (old ISR ∪ old ELR) − new ISR −
// brokers that restarted uncleanly, in assignment order. With ELR the ISR
// may become empty; without it the last ISR member stays, leaderless, and
// leads again when it comes back. LastKnownELR records the last leader the
// first time the ISR becomes empty, and is cleared once the partition has a
// leader or its ISR meets min ISR.
//
// Unclean shutdown (KIP-966). A registration whose PreviousBrokerEpoch is
// not the broker's last epoch, or that says LostData (its log recovery cut
// flushed data), removes the broker from every ISR and ELR, electing new
// leaders where it led. It becomes eligible again only by catching up and
// rejoining an ISR through AlterPartition. This, and leaders taking their
// ISR from the controller, close the two losses of issue 8 ("re-election
// brings stragglers back", "lost tails stay in the ISR"). A simulator may
// switch the rule off ([Config].DisableUncleanShutdownRule) to show the loss.
//
// Controlled shutdown. A heartbeat with WantShutDown from a broker that
// leads nothing fences it at once and answers ShouldShutDown. From a leader
// it starts a controlled shutdown: the broker is marked so, leaves every ISR
// and every leadership; a partition nobody else can lead is left leaderless
// (with ELR the broker moves to its ELR). ShouldShutDown is answered once
// it leads nothing and every active broker's MetadataOffset has passed those
// records; the broker is then fenced. Its next registration with
// PreviousBrokerEpoch equal to its last epoch is clean and keeps its ISR
// and ELR places.
//
// Producer ids. kaenlog's clients ask the controller for metadata, so they
// ask it for producer ids too (Kafka's producers ask a broker, whose
// transaction coordinator takes blocks from the controller). Every
// InitProducerID gets a new id with epoch 0, as Kafka's coordinator gives a
// producer without a transactional id; the request's fields are not
// consulted, and nothing but a failed controller (NOT_CONTROLLER) or ids
// exhausted at math.MaxInt64 (UNKNOWN_SERVER_ERROR, as KRaft) is refused.
// Ids come from blocks of [ProducerIDBlockSize] (1000, Kafka's), each
// allocated by one ProducerIDsRecord carrying the block's end, so most
// calls write nothing. The end only goes up, and a controller opened again
// starts at the next block: an id is never handed out twice, though the
// rest of a block in use at a restart is skipped. The broker and epoch
// fields of KRaft's record are written as -1: the controller allocates for
// its own clients.
//
// Failure. A store Append that fails (or appends elsewhere than the
// controller's end offset) fails the controller: nothing of that operation
// is applied, every later call answers NOT_CONTROLLER, and only [Open] on
// the store clears it.
//
// # The metadata log
//
// The store holds Kafka RecordBatch v2 batches (package log's codec), one
// batch per controller operation, written atomically; its timestamps are
// the operation's nowMs, its producer fields -1. Each Kafka record's key is
// null and its value one metadata record:
//
//	type u8 | version u8 (0) | body
//
// Integers are big-endian and fixed-width; a string is a u16 length and its
// bytes; an id list is a u16 count and that many i32; a bool is one byte, 0
// or 1; a tri-state ([BoolChange]) is one i8, -1, 0 or 1. The types are
// Kafka's metadata apiKeys:
//
//	0  RegisterBrokerRecord            BrokerID i32 | BrokerEpoch i64 |
//	                                   IncarnationID [16]byte | Fenced bool | Endpoint str |
//	                                   [KafkaEndpoint str, only when not empty]
//	2  TopicRecord                     Name str | MinISR i32 | UncleanLeaderElection bool
//	3  PartitionRecord                 Topic str | Partition i32 | Replicas ids | ISR ids |
//	                                   ELR ids | LastKnownELR ids | Leader i32 |
//	                                   LeaderEpoch i32 | PartitionEpoch i32 | LeaderRecoveryState i8
//	4  ConfigRecord                    ResourceType i8 | ResourceName str | Name str |
//	                                   Delete bool | [Value str, only without Delete]
//	5  PartitionChangeRecord           as PartitionRecord without Replicas, then, only
//	                                   while a reassignment is in flight or completes:
//	                                   Replicas ids (empty: unchanged) | AddingReplicas ids |
//	                                   RemovingReplicas ids
//	9  RemoveTopicRecord               Name str
//	15 ProducerIDsRecord               BrokerID i32 | BrokerEpoch i64 | NextProducerID i64
//	17 BrokerRegistrationChangeRecord  BrokerID i32 | BrokerEpoch i64 |
//	                                   Fenced i8 | InControlledShutdown i8
//
// [DecodeRecord] checks every count against the bytes left before
// allocating, refuses trailing bytes and values outside a field's range, and
// never panics; the encoding is canonical (decode then encode gives the same
// bytes). [Image.Apply] then checks the record against the image's
// invariants ([Image.Check]). A topic's own configs are its ConfigRecords
// (validated by package replica/topicconfig when applied: a value the
// brokers could not apply is refused); its TopicRecord carries the
// controller's defaults at creation (MinISR: Config.DefaultMinISR), which
// a deleted config falls back to, so a changed DefaultMinISR applies to
// topics created after it (Kafka's applies to every topic without its own
// value). Two simplifications against KRaft, said once here: one
// BrokerRegistrationChangeRecord serves for fencing,
// unfencing and controlled shutdown (KRaft also has Fence/UnfenceBrokerRecord),
// and a PartitionChangeRecord carries the whole new state with its epochs
// written out (KRaft's carries the changed fields and derives the epochs on
// replay), so that replay needs no rule.
//
// # Where kaenlog differs from Kafka
//
//   - No balanced recovery. Kafka 4.0 elects the single LastKnownELR member
//     (the last leader) as an unclean election when ISR and ELR are both
//     empty, even with unclean.leader.election.enable off. kaenlog does not:
//     such a partition waits for an ELR member or an explicit unclean
//     election. LastKnownELR is recorded but only informational.
//   - A session also ends when the controller lets a broker shut down, so
//     a cleanly stopped broker may restart at once; after a controller
//     restart a fenced broker has no session until it heartbeats.
//   - Clean-shutdown detection follows KIP-966 (PreviousBrokerEpoch), plus
//     LostData; the Kafka snapshot this was read from (trunk, Oct 2024)
//     treats every new incarnation as unclean.
//   - A retried registration writes nothing (Kafka rewrites the record with
//     the same epoch).
//   - ElectLeaders has a third kind besides Kafka's PREFERRED and UNCLEAN:
//     neither set is a clean election that keeps a valid leader. An
//     unclean request on a led partition answers NONE with the leader
//     (Kafka: ELECTION_NOT_NEEDED), so that it stays what kaenlog's
//     operators have scripted.
//   - The periodic check ignores leader.imbalance.per.broker.percentage,
//     as KRaft does (only the ZooKeeper controller read it): every
//     imbalanced partition whose preferred replica can lead is moved.
//   - One partition per AlterPartition and ElectLeaders request, one topic
//     per CreateTopics and CreatePartitions; an assignment CreatePartitions
//     refuses is INVALID_REQUEST (Kafka: INVALID_REPLICA_ASSIGNMENT);
//     topics are named, not identified by topic ids: a topic's identity
//     is the offset of its TopicRecord ([Topic.CreatedOffset]), so a name
//     deleted and created again is a new topic.
//   - No broker unregistration. A reassignment's target must name
//     registered brokers (fenced ones included, as KRaft); a cancellation
//     that would leave the ISR empty is refused, where KRaft reverts it
//     uncleanly if the topic allows unclean elections; a refused target
//     is INVALID_REQUEST (Kafka: INVALID_REPLICA_ASSIGNMENT). Reassignment
//     moves replicas between brokers, never between a broker's log
//     directories (kaenlog has one).
//     A deleted topic's RemoveTopicRecord removes it at once; there is no
//     "deleting" state (Kafka's KRaft controller has none either).
package controller
