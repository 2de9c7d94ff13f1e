package replica

import (
	"fmt"
	"strconv"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/replica/topicconfig"
	"github.com/kaenlog/kaenlog/wire"
)

// DefaultLogRetentionCheckIntervalMs is how often a broker applies its
// topics' retention and runs its cleaner when
// BrokerConfig.LogRetentionCheckIntervalMs is 0: Kafka's
// log.retention.check.interval.ms default, 5 minutes.
const DefaultLogRetentionCheckIntervalMs = 300_000

// The rules of the broker's log cleaning are in the package doc
// ("Topic configs on a running broker").

// retentionCheckMs is the broker's retention check interval.
func (c BrokerConfig) retentionCheckMs() int64 {
	return housekeepingMs(c.LogRetentionCheckIntervalMs, DefaultLogRetentionCheckIntervalMs)
}

// cleanLogs runs the retention check when it is due.
func (b *Broker) cleanLogs(nowMs int64) {
	if nowMs < b.nextRetentionMs {
		return
	}
	b.nextRetentionMs = clock.Deadline(nowMs, b.cfg.retentionCheckMs())
	for tp, m := range b.cleaned {
		if b.parts[tp] != m.r {
			delete(b.cleaned, tp) // no longer hosted, or opened again
		}
	}
	var compact []hostedReplica
	for _, h := range b.hosted {
		cfg := b.TopicConfig(h.tp.Topic)
		if cfg.Delete {
			p := log.RetentionPolicy{RetentionMs: bound(cfg.RetentionMs), RetentionBytes: bound(cfg.RetentionBytes)}
			// A failure is the log's failed state, which checkLogs reads.
			_, _ = h.r.Log().DeleteRetainedSegments(p, nowMs)
		}
		if cfg.Compact && b.dirty(h) {
			compact = append(compact, h)
		}
	}
	if len(compact) == 0 {
		return
	}
	h := compact[b.cleanerTurn%uint64(len(compact))]
	b.cleanerTurn++
	if _, err := h.r.Log().Compact(); err == nil {
		b.cleaned[h.tp] = cleanMark{r: h.r, upTo: h.r.Log().HighWatermark()}
	}
}

// bound is a retention bound as log.RetentionPolicy takes it: -1 (none)
// as 0, 0 as 1.
func bound(v int64) int64 {
	switch {
	case v < 0:
		return 0
	case v == 0:
		return 1
	}
	return v
}

// cleanMark is how far a partition was compacted: its replica (a replica
// opened again is compacted again) and the high watermark then.
type cleanMark struct {
	r    *Replica
	upTo uint64
}

// dirty reports whether a compacted topic's partition may have records
// to compact: its high watermark moved since it was last compacted.
func (b *Broker) dirty(h hostedReplica) bool {
	if b.cleaned == nil {
		b.cleaned = map[TopicPartition]cleanMark{}
	}
	m, ok := b.cleaned[h.tp]
	return !ok || m.r != h.r || h.r.Log().HighWatermark() != m.upTo
}

// checkMaxMessageBytes refuses a produce whose records hold a batch larger
// than the topic's max.message.bytes (MESSAGE_TOO_LARGE, Kafka's
// RecordBatchTooLargeException). The log's own MaxBatchBytes still bounds
// every batch: a topic cannot raise it. Framing the log refuses anyway
// (a batch cut short) is left to the log's validation.
func (b *Broker) checkMaxMessageBytes(topic string, records []byte) error {
	// Read without resolving every config: this is on every produce.
	v, ok := b.image.TopicConfig(topic, topicconfig.MaxMessageBytes)
	if !ok {
		v, ok = b.topicDefaults[topicconfig.MaxMessageBytes]
	}
	if !ok {
		return nil // Kafka's default is the log's: the log checks it
	}
	limit, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return nil // validated when set: not reached
	}
	for len(records) >= log.BatchHeaderSize {
		n := int64(12) + int64(int32(uint32(records[8])<<24|uint32(records[9])<<16|uint32(records[10])<<8|uint32(records[11])))
		if n > limit {
			return fmt.Errorf("replica: a record batch of %d bytes, topic %s's max.message.bytes is %d: %w", n, topic, limit, wire.ErrMessageTooLarge)
		}
		if n <= 12 || n > int64(len(records)) {
			return nil
		}
		records = records[n:]
	}
	return nil
}
