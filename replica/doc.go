// Package replica is the chapter itself in Go: brokers' copies of one
// partition that replicate by fetch, a high watermark that arrives one round
// late, an ISR that shrinks on the clock it is handed, acks=all against
// min.insync.replicas, and truncation by leader epoch.
//
// A [Replica] is one broker's copy of a partition: a [log.Log] directory, a
// leader-epoch cache beside it, a role, and — while it leads — the ISR state.
// Replicas are addressed by broker id; nothing here assumes there are two.
// [Cluster] is the chapter's harness: broker 1 leads and broker 2 follows,
// joined by a [MemLink] of two byte buffers, driven one round at a time.
//
// # The rules, where they live
//
//   - The two lines the chapter exists to teach are in [OpenClusterWith]:
//     both logs leave eager-high-watermark mode. With one replica the high
//     watermark follows the log end; with two it must come from the smallest
//     LEO in the ISR.
//   - A follower is a consumer that carries its replica id
//     ([Replica.FetchRequest]); the id only changes how far it may read
//     ([wire.IsolationOf]).
//   - The high-watermark rule, both halves, is in one file: the leader takes
//     [isr.AdvanceHW]'s proposal only when it is larger; the follower takes
//     max(own, min(response HW, own LEO)).
//   - The leader learns a follower's LEO from the fetch request and sends
//     its high watermark in the response, so the follower learns a record is
//     committed one round after it received it ([Cluster.FetchOnce]).
//   - acks=all is refused before the append when the ISR is under
//     min.insync.replicas ([Replica.Produce]); whether an accepted write is
//     committed is decided afterwards ([Replica.AckVerdict]).
//   - Elections are clean: [Cluster.FailOver] elects the follower only while
//     it is in the leader's ISR, the only replicas known to hold every
//     committed record ([ErrUncleanElection] otherwise), as Kafka's
//     controller does unless unclean.leader.election.enable is set.
//   - A restarted follower truncates by asking the leader where its latest
//     epoch ends ([Replica.TruncateByLeaderEpoch]), not to its own high
//     watermark. It falls back to its high watermark only when the leader
//     knows no epoch that old, as Kafka does; [TruncateToHighWatermark]
//     shows the old rule and the record it loses.
//
// Nothing here reads a clock or starts a goroutine: time arrives as nowMs,
// and a transport is anything that moves bytes ([Link]).
//
// # What this package does not claim
//
// Two brokers in one process share one kernel, one page cache and one power
// supply: the Cluster shows the protocol of replication, not tolerance of
// failures. Its ISR is a slice held by one leader, not a field of a
// PartitionRecord written by a KRaft controller.
package replica
