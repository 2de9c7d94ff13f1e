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
//     RecordBatch v2 bytes (CRC-32C, varints), with a sparse index, torn-tail
//     recovery, a high-watermark checkpoint, retention and compaction. Its
//     eager-high-watermark switch is what a second replica turns off.
//   - [github.com/kaenlog/kaenlog/isr]: the in-sync replica rules as pure
//     functions of the values they are handed: [isr.AdvanceHW] (the
//     high-watermark proposal), [isr.State.ShrinkISR] (the only rule that
//     compares a clock with a cutoff) and the acks=all gate.
//   - [github.com/kaenlog/kaenlog/epoch]: the leader-epoch cache and
//     [epoch.EndOffsetForEpoch], the "<=" lookup that makes truncation safe
//     (KIP-101, KIP-279).
//   - [github.com/kaenlog/kaenlog/wire]: length-prefixed frames and the
//     fetch, produce and offsets-for-leader-epoch messages; the only place
//     where an in-memory uint64 offset becomes a wire int64 and where
//     "not found" becomes (-1, -1).
//   - [github.com/kaenlog/kaenlog/replica]: brokers' copies of a partition
//     that replicate by fetch over a byte link, and the two-broker
//     [replica.Cluster] the chapter drives.
//   - [github.com/kaenlog/kaenlog/examples]: one runnable Example per section
//     of the chapter's demo, and the demo program itself in
//     examples/replica-demo.
//
// The protocol core never reads a clock: time arrives as nowMs int64, so every
// scenario is deterministic and can be replayed exactly.
package kaenlog
