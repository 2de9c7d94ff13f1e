// Package kaenlog is the map of a Go library that implements Kafka's
// partition replication protocol faithfully and runnably. It is the Go home of
// kaen-log, the Kafka-shaped broker of a Thai systems course, and follows that
// course's replication chapter ("ผู้ตาม fetch เหมือนผู้บริโภค · high watermark
// ตามมาช้าหนึ่งรอบ": a follower fetches like a consumer, and the high
// watermark arrives one round late).
//
// This root package holds no code. The packages, from the bottom up:
//
//   - [github.com/kaenlog/kaenlog/log]: a durable, segmented log of Kafka
//     RecordBatch v2 bytes (CRC-32C, varints) that never lies about its data:
//     every file operation through a seam ([github.com/kaenlog/kaenlog/log/vfs]),
//     a failed write or fsync never forgotten, recovery that proves the log
//     contiguous and reports what it cut, the leader-epoch cache, the
//     idempotent producers' state (duplicates answered with their original
//     offsets), the high watermark, retention and compaction.
//   - [github.com/kaenlog/kaenlog/epoch]: the leader-epoch cache and
//     [github.com/kaenlog/kaenlog/epoch.EndOffsetForEpoch], the "<=" lookup
//     that makes truncation safe (KIP-101, KIP-279).
//   - [github.com/kaenlog/kaenlog/isr]: the in-sync replica rules as pure
//     functions of the values they are handed:
//     [github.com/kaenlog/kaenlog/isr.AdvanceHW] (the high-watermark
//     proposal), [github.com/kaenlog/kaenlog/isr.State.ShrinkISR] (the only
//     rule that compares a clock with a cutoff), the acks=all gate, and the
//     leader's half of AlterPartition.
//   - [github.com/kaenlog/kaenlog/wire]: kaenlog's messages as Go values,
//     their frames, and one table of error codes; the only place where an
//     in-memory uint64 offset becomes a wire int64 and where "not found"
//     becomes (-1, -1).
//   - [github.com/kaenlog/kaenlog/replica]: the partition, the broker and
//     the in-process cluster as state machines driven by the time they are
//     handed, with [github.com/kaenlog/kaenlog/replica.Cluster] and the
//     chapter's two-broker harness.
//   - [github.com/kaenlog/kaenlog/replica/controller]: the controller that
//     owns the ISR, Kafka's KRaft controller shrunk to what replication
//     needs, a pure state machine over a metadata log.
//   - [github.com/kaenlog/kaenlog/replica/server]: the network runtime, a
//     Host that runs a broker or the controller over TCP on an injected
//     clock.
//   - [github.com/kaenlog/kaenlog/replica/client]: the producer (batches,
//     acks 0/1/all, retries, idempotent by default) and the consumer (an
//     iterator of committed records that long-polls and follows leaders).
//   - [github.com/kaenlog/kaenlog/replica/group]: the classic consumer
//     group coordinator of one __consumer_offsets partition, a pure state
//     machine whose offsets are answered once committed.
//   - [github.com/kaenlog/kaenlog/replica/clock]: the injected clock and
//     the driver that runs every state machine's timed work.
//   - [github.com/kaenlog/kaenlog/replica/sim]: the deterministic
//     simulator that hunts lost commits: seeded faults over the in-process
//     cluster, invariants at every step, shrinking and byte-for-byte
//     replay.
//   - [github.com/kaenlog/kaenlog/examples]: one runnable Example per
//     section of the chapter's demo, and the demos themselves; beside it
//     the commands (controller, broker, cluster, elect), the fault test
//     with real processes (examples/faulttest) and the comparison with
//     franz-go's kfake (examples/kfakebench, a module of its own).
//
// No library package reads the wall clock: time arrives as nowMs int64 or an
// injected clock, so every scenario is deterministic and can be replayed
// exactly.
package kaenlog
