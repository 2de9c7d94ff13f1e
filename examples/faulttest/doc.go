// Package faulttest is kaenlog's process fault test (issue 9, part 5).
//
// TestFaults builds examples/controller and examples/broker, starts a
// controller and three brokers as processes on loopback, creates a topic
// (3 partitions, replication factor 3, min ISR 2), streams records with
// unique values through replica/client's producer at acks=all, and runs a
// long-polling consumer per partition, while a nemesis with a seeded
// random source (-fault.seed replays its choices; the seed is printed)
// SIGKILLs a partition leader, a follower or the controller, or SIGSTOPs a
// broker (sometimes longer than the controller's session timeout) and
// SIGCONTs it, restarting killed processes on the same ports and data
// directories, or asks the controller for a preferred election, which
// moves a live leadership back to the partition's first replica once it
// is in the ISR again, or for a reassignment (from three replicas to two,
// or from two back to three, a broker adding a replica it had deleted).
// Healing gives every partition its three replicas back. It runs 50 faults by default (-faults N for more) and is
// skipped under -short.
//
// At the end it heals everything, waits for every ISR to be full, and
// checks (Check, CompareReplicas):
//   - every acknowledged record is in its partition exactly once, at its
//     acknowledged offset, reading the whole partition from offset 0 with
//     the client's consumer from the final leader;
//   - no two replicas hold different records below their high
//     watermarks: the brokers are stopped cleanly (SIGTERM) and each
//     broker's partition directory is opened with log.Open and read up to
//     its checkpointed high watermark;
//   - no consumer ever saw a record that was later truncated: every
//     (offset, value) a consumer was handed is in the final log there.
//
// It prints a summary line: faults by kind, records acknowledged, lost,
// duplicated.
//
// Idempotence: the branch this test was written on has the client's
// idempotent producer but not the controller's InitProducerID (branch
// idem, which did not merge cleanly), so the producer runs with
// DisableIdempotence. "No loss" is then checked strictly, while a
// duplicate (a retry of a batch whose first attempt was written) is
// counted and reported, not failed. Once idem is merged, flip
// idempotentProducer to true and duplicates fail the test too.
//
// Choices, written down: the brokers run with a 1.5 s session timeout, a
// 150 ms heartbeat and a 1 s replica lag, so a pause-long (1.7–2.5 s)
// fences the paused broker and moves its leaderships; faults do not
// overlap (each is healed — restarted and ready, or continued — before
// the nemesis's next pause), though a restarted broker may still be
// catching up, outside the ISR, when the next fault hits; the producer is
// paced at about 2,000 records a second so a default run (50 faults,
// about a minute on 2 cores) checks some 120,000 records. A record whose
// produce failed is not acknowledged: it may or may not be in the log.
//
// # Power loss
//
// A SIGKILLed process keeps what the kernel holds, so TestFaults proves
// the protocol against process crashes only. TestPowerLoss runs the
// brokers with -simulate-power-loss: every broker file goes through a
// vfs.VolatileCache, which keeps unsynced data in the broker's own memory,
// so a SIGKILL of a broker is a power cut of its machine (file data that
// was not fsynced is gone; names are kept). It runs in both durability
// modes, default (no fsync per append) and -sync-every-append, each
// against its own cluster. Per round (-powerloss.rounds, 1 by default):
//   - independent cuts (-powerloss.cuts, 6 by default): the leader or a
//     follower of a random partition loses power, is restarted, and the
//     next cut waits for every ISR to be full again; then every record
//     acknowledged in the round must be on the leaders (no loss, in
//     either mode);
//   - an all-broker cut: all three brokers lose power at once, with
//     every ISR full;
//   - an ISR-pair cut: one broker is paused (SIGSTOP) until it is fenced
//     and out of every ISR, the other two (every partition's leader and
//     the follower that just got its records) lose power at once, and
//     the paused one is continued only after the elections below.
//
// After each correlated cut every replica that could lead registers as an
// unclean shutdown (KIP-966), so every partition stays leaderless with an
// empty ISR and ELR; the test checks that none gets a leader within 5 s,
// then acts as the operator: an unclean ElectLeaders for each partition
// (which must not elect the paused, fenced broker). After each phase it
// reads every partition from its leader and counts the acknowledged
// records lost since the previous count.
//
// At the end it checks the whole run as TestFaults does. With
// -sync-every-append nothing may be lost, misplaced, duplicated or
// truncated after a consumer saw it. In the default mode the correlated
// cuts must lose acknowledged records (and the consumers' view of them);
// a run that lost none would mean the simulation cut nothing. It prints a
// summary line per mode (faulttest power-loss summary: ...). About 40 s
// for both modes on 2 cores. -powerloss.segment-bytes N gives the brokers
// small segments, so that their logs roll and close and reopen files
// while data in them is unsynced.
//
// TestDurabilityCost (only with -durability.cost D) measures the
// throughput of acks=all produce in both modes on the real file system,
// in alternating windows of length D, and prints the ratio.
package faulttest
