// Package sim is a deterministic simulator that hunts lost commits: a
// seeded stream of steps over an in-memory replica.Cluster of 2 to 5
// brokers and the controller, with Kafka's invariants checked after every
// step. FoundationDB's simulation and TigerBeetle's VOPR are the bar.
//
// # What it drives
//
// Every step is one of: a produce (acks 0, 1 or all, to the leader the
// controller names or, as a client with stale metadata would, to any
// broker; every third acks=all produce to the leader hands 1 to 3
// batches to the idempotent producer, and every eighth of those to a new
// producer, with a new producer id); a fetch round; a consumer's read;
// link faults (loss, duplication, delays that reorder) and cut links
// between any two nodes, the controller included; faults of the
// AlterPartition requests and answers alone, so that the partition state
// a leader's proposal committed reaches it while the request is still
// unanswered, and the answer comes late, twice or never; a broker crash that
// keeps what it wrote, loses what it did not fsync (a power cut) or tears
// its last write; a restart; a controller restart; a clock jump, short or
// past the lag and session bounds; a failed write or fsync on a broker's
// disk; an explicit election, clean, unclean or preferred; a reassignment
// of the partition's replicas (to a broker outside them, or from three to
// two and back, or cancelled while in flight; the fixed mix only, at no
// extra draw, so a seed's other steps stay what they were); with
// Config.Groups, a consumer group's steps too ("Consumer groups" below).
// Everything random is drawn from the seed, so a seed names a run. Half
// the seeds (LongPolls) run the followers as the network runtime does:
// fetching continuously, each fetch parked by its leader until data or a
// new high watermark arrives, or 500 ms pass; the others fetch only on
// fetch-round steps, which lets the steps alone decide when replication
// happens.
//
// # The idempotent producer
//
// The idempotent producer follows the rules of replica/client's (its
// package documentation, "Idempotence"), on the simulator's partition and
// clock, between the steps: its identity from the controller's
// InitProducerId (a new producer, closing the old one, asks for a new
// id); up to 5 batches in flight, all to one broker, acks=all, and at
// most 5 batches from the oldest whose fate is unknown to the newest
// sequenced (the leader's dedupe window);
// a retry resends a batch's bytes unchanged, oldest first, once nothing is
// in flight; what a failed attempt proves decides what may be renumbered
// (no answer, or an answer that may follow the append: maybe written;
// NOT_ENOUGH_REPLICAS: this attempt not written, an earlier one may be;
// OUT_OF_ORDER_SEQUENCE_NUMBER or UNKNOWN_PRODUCER_ID: not in the leader's
// log); a batch not acknowledged within its delivery timeout (30 s) fails,
// and a failed batch that had a sequence leaves a gap, which an epoch bump
// closes, renumbering only batches proved unwritten, after the others were
// resent; after a change of leader nothing goes to the new one until
// everything in flight to the old one came back. A request unanswered
// for 11 s, or a crash of its broker, breaks the connection and fails
// every request on it. The producer's link is perfect — in order, nothing
// lost or doubled, as a TCP connection — since the network's faults would
// lose or reorder one request of several in flight, which a connection
// never does.
//
// # Consumer groups
//
// With Config.Groups, three members of one group consume a topic of six
// partitions through the coordinator the brokers host for it: the leader
// of __consumer_offsets, created with one partition (every fault of its
// leader moves the coordinator), three replicas where there are three
// brokers and min.insync.replicas 2, as the first FindCoordinator creates
// it. The group requests and answers cross the cluster's network like any
// other message (replica.Cluster.SendGroup), lost, delayed, doubled and
// cut. 85% of the steps come from a group mix, the rest from the regular
// one: a member's step (Join, Heartbeat, Commit, FetchOffsets, Leave,
// Pause), fetch rounds, clock jumps, heals, and faults aimed at the
// coordinator — its broker crashed (a power cut one time in four) or cut
// off from another node, a broker restarted; when crashes that were not
// clean shutdowns leave no replica KIP-966 lets lead, once all are back,
// an operator's unclean election of __consumer_offsets.
//
// A member behaves as Kafka's consumer: it finds its coordinator with
// FindCoordinator (again after NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
// COORDINATOR_LOAD_IN_PROGRESS, or a request unanswered for 15 s, longer
// than any delay a link draws and than the coordinator's commit timeout);
// joins again at once after MEMBER_ID_REQUIRED and sends its SyncGroup on
// its join's answer, the leader's assigning the partitions range-style
// (Kafka's RangeAssignor for one topic, by member id); heartbeats every
// 3 s on its own, within a 10 s session; rejoins on REBALANCE_IN_PROGRESS
// or ILLEGAL_GENERATION, and as a new member on UNKNOWN_MEMBER_ID. It has
// at most one request in flight besides its heartbeat, so its commits
// reach the coordinator in the order it sends them. Commit commits, for
// every partition the member owns, an offset above every offset committed
// to that partition before, whoever owned it: the consumers only move
// forward, so an offset can only go back if a commit is lost. Pause stops
// a member past its session; the coordinator removes it, and its next
// requests are fenced. The members never reset an offset.
//
// Two invariants hold the group to what the coordinator promised, each
// checked on the answers every step delivered:
//
//   - CommittedOffsetKept: an offset the coordinator acknowledged — an
//     OffsetCommit answered NONE, or an OffsetFetch answered by the
//     coordinator the controller names (the leader of the partition, at
//     the controller's epoch) — is never answered lower by such an
//     OffsetFetch that reached the coordinator later (an answer is the
//     coordinator's state when the request arrived), across the
//     coordinator's moves and crashes; and
//     every offset such an answer carries is one a record below the
//     partition's high watermark commits, since anything else a crash can
//     take back. A deposed coordinator that has not heard yet answers from
//     its old state, as Kafka's does; its answers are not held to it. An
//     offset is excused when every broker of the ISR that held it when it
//     was acknowledged has lost power since, and an unclean election of
//     __consumer_offsets forgets every offset acknowledged before it (its
//     DataMayBeLost is the operator's reset); both are counted in the
//     coverage report.
//   - OnePartitionOwner: no partition is handed, by SyncGroup answers, to
//     two members of one generation. An unclean election of
//     __consumer_offsets forgets the generations too: the coordinator that
//     lost the group's records counts them again.
//
// Two unsafe forms of the coordinator's rules can be switched on
// (Config.CommitBeforeReplicated: an OffsetCommit answered once its write
// is in the coordinator's log, before the high watermark passes it;
// Config.LoadBeforeHighWatermark: a new coordinator serving what it loaded
// before the high watermark reaches it); the simulator's tests assert
// that it then finds CommittedOffsetKept violated, and that the same steps
// pass with the rules as they are. The switches reach the brokers through
// replica's internal mutation package: replica's own API has none.
//
// # What it checks, after every step
//
//   - From Kafka's TLA+ model (kafka-rules.md §9): TypeOk (every replica's
//     offsets ordered, start <= HW <= LEO), WeakIsr (the members of a
//     leader's own ISR agree with it below its high watermark), StrongIsr
//     (so do the members of the controller's ISR), LeaderInIsr (a leader
//     the controller names is in the ISR), ValidHighWatermark (every member
//     of the controller's ISR holds at least the leader's high watermark).
//   - Acknowledged means kept: every record whose acks=all produce was
//     answered NONE is, at its offset, in the log of every later leader.
//   - Agreement below the high watermark: any two replicas agree on every
//     record below both their high watermarks.
//   - Monotone: a leader's high watermark never decreases within its epoch;
//     leader epochs never decrease.
//   - Sorted caches: every epoch cache is strictly increasing and agrees
//     with the epochs stamped in its log.
//   - Idempotence: no record of the idempotent producer is twice in the
//     leader's log.
//   - ProducerOrder: the records one idempotent producer had acknowledged
//     are in the leader's log in the order they were produced.
//   - Visibility: no consumer ever reads a record at or above the high
//     watermark of the leader that served it, and no record a consumer read
//     is ever missing from a later leader.
//
// Only a broker that is running, not halted, and registered with the
// controller under its current incarnation is held to the replica
// invariants: a crashed broker's files are whatever the crash left, and it
// answers for them only once it has registered again (an unclean
// registration takes it out of every ISR first).
//
// The brokers run with kaenlog's default durability (log.SyncNever): an
// append survives a process crash, not a power cut. A record is excused
// from "acknowledged means kept" only when every replica that held it when
// it was acknowledged has since lost it in a power cut: the promise was
// never that. Every excuse is counted in the coverage report.
//
// # How it behaves
//
// A failure names its seed and its steps; Replay runs the same steps again
// and fails the same way, byte for byte. Shrink cuts the steps to a short
// list that still fails, and Script prints it as Go a test can keep. Coverage
// counts which steps ran and which invariants were checked and exercised, so
// a run that never crashed a leader cannot pass for a proof.
//
// The simulator can be told to run the protocol with a rule switched back to
// its unsafe form — the pre-KIP-101 truncation to the follower's own high
// watermark, automatic unclean leader election, no unclean-shutdown rule
// (KIP-966) — and its own tests assert that it then finds a lost commit.
// So can the idempotent producer's: one that takes NOT_ENOUGH_REPLICAS for
// proof that a batch was never written, one that sends to a new leader
// while batches are in flight to the old one; its tests assert that
// Search finds the record written twice or out of order by itself.
//
// # How it searches
//
// Run draws every seed's steps from one fixed mix, and one mix spreads
// every run over every fault: the shapes a bug needs — a leader cut off
// with batches parked on it while another is elected, a quiet half-minute
// in which the ISR shrinks and a batch's delivery time runs out, then a
// heal just before the next batch's does — are undone by the steps around
// them, and random runs meet them once in hundreds of thousands of steps,
// or never. [Search] hunts otherwise, three ways.
//
//   - Swarm testing (Groce et al., ISSTA 2012; Config.Swarm): each seed
//     keeps a random half of the kinds of step, each with its own weight
//     (1 to 64), its own clock jumps and its own fault shapes, so some
//     seeds do little but partition and wait, others little but crash.
//     The shapes: a broker, mostly the leader, cut off from every other
//     broker and, in some seeds, from the controller, the producer's link
//     kept, sometimes with batches handed over right after, healed after
//     a random time up to 8, 15 or 45 s or at a Heal step; while the
//     idempotent producer has requests in flight, steps that act on them
//     (time passing, more batches, their leader cut off from the
//     controller).
//   - Clock jumps to deadlines: a step may advance the clock to exactly a
//     broker's session expiry at the controller or one of the producer's
//     deadlines (a request's timeout, a batch's delivery timeout, the end
//     of a backoff), mostly the next one, and, when a link is cut, heal
//     right after and fetch, so that the cluster recovers in the short
//     window before the next deadline, where fixed jumps land by chance.
//   - Branching from rare states: Search counts, over its seeds, which
//     events each run reached (the counts of faults and of what the
//     idempotent producer went through, in Coverage). When a run reaches
//     an event at most one seed in 8 has reached so far, 8 branches replay
//     it up to the step that got there (Config.Prefix) and go on for 50
//     steps with draws and a mix of their own (Config.Branch).
//
// A seed's run is 100 steps; every step executed counts against the
// budget, the branches' replayed prefixes included. Everything is drawn
// from the seeds and branches, so [Search] from the same seed finds the same
// run, and [Replay] replays it like any other. TestSearchStrategies
// (-sim.measure) measures the steps Search spends until each unsafe rule's
// violation, against Run's draws; BENCHMARKS.md has the figures.
//
// # What is not simulated
//
// The real network and disks. The network here is a model: messages are
// encoded and decoded, lost, duplicated and delayed, but there are no
// sockets, no partial writes to a socket, no kernel. The disks are a model
// too (log/vfs.Mem): what an fsync makes durable, what a power cut keeps.
// The process fault test of the network runtime covers the real ones.
package sim
