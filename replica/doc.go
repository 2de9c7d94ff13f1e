// Package replica is Kafka's partition replication as state machines: a
// partition's replica, a broker hosting many of them, the controller on the
// network, and an in-process cluster that drives them all, deterministically,
// on one clock.
//
// # The pieces
//
//   - [Replica] is one broker's copy of one partition: its log (which owns
//     the leader-epoch cache), its role and epochs, and while it leads the ISR
//     bookkeeping, the ISR change in flight to the controller and the
//     acks=all produces parked until committed. Requests and responses go in
//     as Go values with the time; answers, produce outcomes and ISR
//     proposals come out. It never reads a clock, starts a goroutine or
//     touches a network.
//   - [Broker] hosts replicas. It registers with the controller and
//     heartbeats, follows the controller's metadata log by fetching it (as
//     KRaft brokers do), takes every partition's role from it (and, once
//     the controller says its registration is gone, leads nothing until it
//     is registered again: another process may hold its id), serves
//     produce, fetch, offsets-for-leader-epoch and list-offsets requests, and
//     as a follower fetches from each leader one request at a time, batching
//     its partitions. A fetch that finds nothing parks until data (for a
//     consumer, a new high watermark) or its MaxWaitMs (Kafka's
//     DelayedFetch). On its clock it checkpoints every log's high
//     watermark (every 5 s) and recovery point (every 60 s), fsyncs only
//     if FlushIntervalMs asks (Kafka's default leaves durability to
//     replication), and halts when a log fails. It hosts a group
//     coordinator (package [github.com/kaenlog/kaenlog/replica/group]) for
//     each partition of [OffsetsTopic] it leads, loading the partition
//     when it takes the leadership and writing with acks=all
//     (broker_groups.go); a listener hands it clients' group requests as
//     [GroupRequest]s.
//   - [ControllerNode] puts the controller (package
//     [github.com/kaenlog/kaenlog/replica/controller]) on the network, and
//     parks brokers' fetches of the metadata log until there is news.
//   - [Network] moves envelopes ([Envelope]) between nodes as wire bytes, on a
//     [clock.Manual], with seeded loss, duplication, delay and cuts.
//     [Cluster] is 1 to 7 brokers and the controller on one Network,
//     driven by the caller: fetch rounds, produces, clock advances, crashes
//     (with or without losing what was not fsynced), restarts; its
//     clients' group requests ([Cluster.SendGroup]) cross the Network as
//     values.
//     [ChapterCluster] is the chapter's harness on top: brokers 1 and 2,
//     partition orders-0, one round at a time ([OpenChapterCluster]).
//
// Brokers and the controller are each a [Node]: envelopes in ([Node.Receive]),
// envelopes out ([Node.Outbox]), timed work when [Node.NextTickMs] arrives,
// run by a [clock.Driver]. The same nodes run in the Cluster, in the
// simulator and behind a network runtime; only the transport and the clock
// differ.
//
// # Files
//
// The package holds three things, and its files are grouped by prefix so
// that a file list reads as its table of contents. (They cannot be
// subpackages: the Cluster drives Brokers, which host Replicas, and all
// three keep the names their design gives them.)
//
// The partition state machine, [Replica]:
//   - replica.go: the replica, its options and roles, and the partition
//     state the controller hands it;
//   - leader.go: leading: produce, serving fetches, OffsetsForLeaderEpoch
//     and ListOffsets, the ISR's time and expansion rules, Tick;
//   - follower.go: following: the next fetch, applying its response, the
//     epoch questions;
//   - highwatermark.go: the high watermark, both halves;
//   - truncate.go: the truncation rules of a new follower;
//   - purgatory.go: acks=all produces parked until committed;
//   - alterpartition.go: the leader's AlterPartition client;
//   - producer_expiration.go, isolation.go, errors.go: expired producers,
//     what a fetcher may read, the refusals.
//
// The broker, [Broker], a file per kind of work:
//   - broker.go: configuration, opening, the envelopes in and out,
//     housekeeping;
//   - broker_produce.go, broker_fetch_handler.go, broker_offsets.go,
//     broker_metadata.go: the requests it serves (Produce; Fetch, parked
//     as Kafka's DelayedFetch; ListOffsets and OffsetsForLeaderEpoch;
//     Metadata, and what it forwards to the controller);
//   - broker_replica_fetcher.go: the fetches it sends as a follower
//     (Kafka's ReplicaFetcherThread);
//   - broker_topics.go: replicas of deleted topics, and the creation each
//     partition directory records;
//   - broker_groups.go: the group coordinators it hosts;
//     broker_groups_mutations.go the unsafe forms of their rules the
//     simulator switches on (internal: a BrokerConfig has no field for
//     them).
//
// The network's nodes: node.go ([Node], [Addr], [Envelope]) and
// node_controller.go ([ControllerNode], the controller as a Node).
//
// The in-process test world, [Cluster]: cluster.go (brokers, the
// controller and the clock), cluster_idempotence.go (producer ids and
// idempotent batches), cluster_groups.go (its clients' group requests),
// cluster_network.go ([Network]; cluster_network_values.go the group
// messages it carries as values) and cluster_chapter.go
// ([ChapterCluster]).
//
// # The rules, where they live
//
// Roles come from the controller ([Replica.BecomeLeader],
// [Replica.BecomeFollower]). A new leader's ISR is the controller's, never
// "every follower"; the epoch cache gains (epoch, LEO) before the first
// write; a state older than one applied, or a change of leader that does
// not raise the leader epoch, is refused ([ErrStaleEpoch]). The chapter's
// two lines (stop_eager_high_watermark) are unconditional: a replica's log
// never moves its own high watermark.
//
// The high watermark, both halves, is in highwatermark.go: the leader takes
// the smallest LEO of the maximal ISR, only forward, and nothing while the
// committed ISR is under min.insync.replicas (KIP-966's strict min ISR); the
// follower takes max(own, min(response's, own LEO)). The leader learns a
// follower's LEO from the fetch request and recomputes before it reads, so
// the response carries the high watermark that very fetch moved — the
// chapter's order; Kafka sends the one from before the fetch.
//
// A fetch is fenced by epoch before role ([Replica.HandleFetch]): an older
// CurrentLeaderEpoch is FENCED_LEADER_EPOCH, a newer one
// UNKNOWN_LEADER_EPOCH, whatever the replica's role. A follower's last
// fetched epoch is checked before its offset: a follower whose epoch ended
// earlier on the leader gets a DivergingEpoch and truncates
// ([TruncateOnFetch], Kafka's rule since 2.8); [TruncateByLeaderEpoch] asks
// OffsetsForLeaderEpoch first, as the chapter tells it;
// [TruncateToHighWatermark] is the pre-KIP-101 rule, kept to show the loss.
// Answers that arrive after the replica moved on are dropped, not errors.
//
// The ISR changes only through the controller (alterpartition.go): the
// leader's time rule ([Replica.CheckISR], every replica.lag.time.max.ms/2
// from [Replica.Tick]) and the expansion rule (a follower whose LEO reached
// the high watermark and the start of the leader's epoch) propose a new ISR
// with AlterPartition, one request in flight per partition, as Kafka's
// AlterPartitionManager: a partition state from the controller ends the
// proposal but not the request, which is resent until answered, and
// nothing new is sent before its answer, which is matched to it by its
// epochs and ISR ([Replica.ApplyAlterPartition]). The controller commits
// it, and the leader applies the committed ISR. A follower joining counts at once
// (maximal ISR), a follower leaving only once committed. A proposal names
// each follower's broker epoch as its last fetch carried it, fixed when
// proposed (KIP-903): a resent proposal cannot add a later incarnation of
// a broker that caught up, then lost its tail and registered again.
//
// acks ([Replica.Produce]): acks=all under min.insync.replicas is refused
// before the append (NOT_ENOUGH_REPLICAS); an accepted acks=all write is
// parked and ends with NONE once the high watermark passes it,
// NOT_ENOUGH_REPLICAS_AFTER_APPEND if the committed ISR falls under
// min.insync.replicas first (Kafka 4.0 waits for the timeout instead),
// REQUEST_TIMED_OUT at its deadline, or NOT_LEADER_OR_FOLLOWER if the
// replica stops leading. While an acks=all write is parked, a [Broker]
// keeps its request's records (the transport keeps a request until it is
// answered, see [Node]) and sends a follower fetching them those bytes, as
// the log stored them, instead of reading them back from the file, when a
// read would return exactly them (Kafka's leader serves such a fetch from
// the page cache). acks=0 gets no response at all; a [Broker] that
// refuses one closes the connection instead ([Envelope].Close), as Kafka's
// does, so that the producer refreshes its metadata.
//
// Idempotent producers ([Replica.Produce]): the log checks a producer's
// batch against the producer state it keeps (package log, "Producer
// state"), and the replica answers its refusals with Kafka's
// INVALID_PRODUCER_EPOCH and OUT_OF_ORDER_SEQUENCE_NUMBER. A retry of a
// batch the log holds is not written again but answered NONE with the
// original batch's offsets; with acks=all it completes when the high
// watermark passes the original batch, at once if it already has. So a
// retry after REQUEST_TIMED_OUT or NOT_ENOUGH_REPLICAS_AFTER_APPEND never
// lands twice, and a follower that becomes the leader recognises the
// retries its old leader would have: followers take the producer state
// from the batches they copy. Every replica forgets expired producers from
// [Replica.Tick], every Options.ProducerExpirationCheckMs. Producer ids
// come from the controller ([Cluster.InitProducerID], [ProducerBatch]).
//
// A follower that falls behind the leader's log start truncates fully and
// starts there; its log start follows the leader's. A broker whose logs lost
// committed or flushed data, or that stopped without its clean-shutdown
// marker, registers as unclean, and the controller keeps it out of every
// ISR until it has caught up (KIP-966).
//
// # Topic configs on a running broker
//
// A topic's configs (package replica/topicconfig, Kafka's names and
// ranges) are its own values in the metadata log over the broker's
// defaults ([BrokerConfig.TopicDefaults]) over Kafka's. Every broker reads
// them from its metadata image when it uses them, so a change made
// through IncrementalAlterConfigs applies, with no restart, as soon as
// the broker has fetched it:
//
//   - retention.ms and retention.bytes, under cleanup.policy delete: at
//     every retention check ([BrokerConfig.LogRetentionCheckIntervalMs],
//     Kafka's log.retention.check.interval.ms, on the broker's clock) every
//     hosted partition, led or followed, deletes its oldest closed segments
//     while one is older than retention.ms (by its newest record's
//     timestamp) or the partition would still hold retention.bytes without
//     it (log.Log.DeleteRetainedSegments; -1 disables a bound). Only
//     segments wholly below the replica's high watermark go, so nothing
//     uncommitted is deleted. The log start moves up to the first segment
//     kept, on every replica (a follower also takes its leader's log start
//     from each fetch answer), and a fetch below it is OFFSET_OUT_OF_RANGE.
//   - cleanup.policy compact: the cleaner compacts one partition per
//     retention check, the compacted partitions taking turns, and only one
//     whose high watermark moved since it was last compacted
//     (log.Log.Compact: the last record of every key is kept, offsets never
//     move, the log start stays). __consumer_offsets is created compacted.
//   - segment.bytes: every replica's log rolls its active segment at the
//     topic's size from the next append on (log.Log.SetSegmentBytes).
//   - max.message.bytes: a leader refuses a produce holding a larger batch
//     with MESSAGE_TOO_LARGE.
//   - min.insync.replicas and unclean.leader.election.enable: the
//     controller and the leader read the topic's value at each decision.
//
// Where kaenlog differs from Kafka: retention.ms 0 and retention.bytes 0
// are taken as 1 (the log reads 0 as no bound; Kafka deletes every closed
// segment); the cleaner honours neither min.compaction.lag.ms nor
// delete.retention.ms (a tombstone is kept for ever, a record may be
// compacted away once its segment is closed and committed), and compacts
// a whole partition at a time rather than up to Kafka's byte rate
// (log.cleaner.io.max.bytes.per.second); segment.ms and
// message.timestamp.type are kept and reported but not yet applied
// (segments roll by size only, timestamps are the producer's);
// max.message.bytes cannot raise the broker's own
// log.Options.MaxBatchBytes; a change of min.insync.replicas does not
// recompute a partition's ELR until its next change (Kafka's controller
// recomputes it at once).
//
// # Errors
//
// A refusal is a Go error that matches both this package's sentinel (if it
// has one: [ErrNotLeader], [ErrStaleEpoch], ...) and the wire error it is
// answered with, so errors.Is finds either and wire.CodeOf gives the code.
// Nothing returns a success-shaped value beside an error code.
//
// # What this package does not claim
//
// Everything here runs in one process: the Cluster shows the protocol and
// finds the bugs a deterministic simulation can find, not tolerance of real
// machine failures. The controller is a single node standing in for a KRaft
// quorum.
package replica
