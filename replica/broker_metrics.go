package replica

import (
	"slices"
	"strconv"

	"github.com/kaenlog/kaenlog/replica/metrics"
)

// This file is what a broker tells an operator (Metrics): Kafka's
// ReplicaManager and Log metrics, as a snapshot of the broker's state.

// Metrics appends the broker's metrics to dst, a snapshot taken now (the
// caller holds the broker, as for any other call):
//
//   - kaenlog_broker_fenced: 1 while the broker is unregistered or fenced;
//   - kaenlog_partition_count, kaenlog_leader_count: the replicas it hosts
//     and leads (Kafka's PartitionCount, LeaderCount);
//   - kaenlog_under_replicated_partitions: partitions it leads whose ISR
//     is smaller than their replicas (UnderReplicatedPartitions);
//   - kaenlog_under_min_isr_partition_count and
//     kaenlog_at_min_isr_partition_count: partitions it leads whose ISR
//     is below, or at, their min.insync.replicas, counted as acks=all
//     counts it (at most the replication factor, isr.EffectiveMinISR), so
//     an under-min-ISR partition is one refusing acks=all produces;
//   - kaenlog_isr_shrinks_total, kaenlog_isr_expands_total: the committed
//     ISR changes of the partitions it leads, seen in one leader epoch,
//     whoever asked for them (the leader, or the controller for a lost
//     session) (IsrShrinksPerSec, IsrExpandsPerSec, as counts);
//   - per partition, labelled topic and partition: kaenlog_log_size_bytes,
//     kaenlog_log_start_offset, kaenlog_log_end_offset and
//     kaenlog_high_watermark (Kafka's Log Size, LogStartOffset,
//     LogEndOffset; the HW as its leader or follower knows it);
//   - kaenlog_replica_lag_records, labelled topic, partition and replica:
//     on the leader, how many records each follower's log end is behind
//     the leader's, as the follower's last fetch told it.
func (b *Broker) Metrics(dst []metrics.Family) []metrics.Family {
	var leaders, under, underMin, atMin int
	var size, start, end, hw, lag []metrics.Sample
	for _, h := range b.hosted {
		r := h.r
		labels := []metrics.Label{{Name: "topic", Value: h.tp.Topic}, {Name: "partition", Value: strconv.Itoa(int(h.tp.Partition))}}
		if n, err := r.Log().SizeBytes(); err == nil {
			size = append(size, metrics.Sample{Labels: labels, Value: float64(n)})
		}
		start = append(start, metrics.Sample{Labels: labels, Value: float64(r.Log().StartOffset())})
		end = append(end, metrics.Sample{Labels: labels, Value: float64(r.LEO())})
		hw = append(hw, metrics.Sample{Labels: labels, Value: float64(r.HighWatermark())})
		st := r.ISRState()
		if st == nil {
			continue
		}
		leaders++
		isr := st.ISR()
		if len(isr) < len(st.Replicas()) {
			under++
		}
		switch {
		case st.UnderMinISR():
			underMin++
		case len(isr) == st.EffectiveMinISR():
			atMin++
		}
		leo := r.LEO()
		for _, id := range st.Replicas() {
			if id == b.cfg.ID {
				continue
			}
			if f, ok := st.FollowerLEO(id); ok {
				behind := uint64(0)
				if leo > f {
					behind = leo - f
				}
				lag = append(lag, metrics.Sample{Labels: append(slices.Clip(labels), metrics.Label{Name: "replica", Value: strconv.Itoa(int(id))}), Value: float64(behind)})
			}
		}
	}
	fenced := 0.0
	if b.Fenced() {
		fenced = 1
	}
	return append(dst,
		metrics.GaugeOf("kaenlog_broker_fenced", "1 while the broker is not registered or is fenced by the controller.", fenced),
		metrics.GaugeOf("kaenlog_partition_count", "Partitions this broker hosts a replica of.", float64(len(b.hosted))),
		metrics.GaugeOf("kaenlog_leader_count", "Partitions this broker leads.", float64(leaders)),
		metrics.GaugeOf("kaenlog_under_replicated_partitions", "Partitions this broker leads whose ISR is smaller than their replicas.", float64(under)),
		metrics.GaugeOf("kaenlog_under_min_isr_partition_count", "Partitions this broker leads whose ISR is below min.insync.replicas: acks=all produces are refused.", float64(underMin)),
		metrics.GaugeOf("kaenlog_at_min_isr_partition_count", "Partitions this broker leads whose ISR is exactly min.insync.replicas.", float64(atMin)),
		metrics.CounterOf("kaenlog_isr_shrinks_total", "Committed ISR shrinks of partitions this broker leads.", float64(b.isrShrinks)),
		metrics.CounterOf("kaenlog_isr_expands_total", "Committed ISR expansions of partitions this broker leads.", float64(b.isrExpands)),
		metrics.Family{Name: "kaenlog_log_size_bytes", Help: "Bytes of record batches in the partition's log segments.", Kind: metrics.Gauge, Samples: size},
		metrics.Family{Name: "kaenlog_log_start_offset", Help: "The partition's log start offset on this broker.", Kind: metrics.Gauge, Samples: start},
		metrics.Family{Name: "kaenlog_log_end_offset", Help: "The partition's log end offset on this broker.", Kind: metrics.Gauge, Samples: end},
		metrics.Family{Name: "kaenlog_high_watermark", Help: "The partition's high watermark as this broker knows it.", Kind: metrics.Gauge, Samples: hw},
		metrics.Family{Name: "kaenlog_replica_lag_records", Help: "On the leader: records a follower's log end is behind the leader's.", Kind: metrics.Gauge, Samples: lag},
	)
}

// committedISR is the ISR r commits as the leader in leaderEpoch, or nil
// if it does not lead in it: what countISRChange compares with.
func committedISR(r *Replica, leaderEpoch int32) []int32 {
	if st := r.ISRState(); st != nil && r.LeaderEpoch() == leaderEpoch {
		return st.ISR()
	}
	return nil
}

// countISRChange counts the ISR change r committed since its ISR was
// before (nil: it did not lead in this leader epoch, so nothing is
// counted): members removed are a shrink, members added an expansion
// (both, for a change that does both). It is called after the two
// things that commit an ISR on a leader: the controller's answer to its
// AlterPartition, and a partition state from the metadata image in the
// same leader epoch (the controller removing a lost session).
func (b *Broker) countISRChange(before []int32, r *Replica) {
	st := r.ISRState()
	if before == nil || st == nil {
		return
	}
	after := st.ISR()
	if slices.ContainsFunc(before, func(id int32) bool { return !slices.Contains(after, id) }) {
		b.isrShrinks++
	}
	if slices.ContainsFunc(after, func(id int32) bool { return !slices.Contains(before, id) }) {
		b.isrExpands++
	}
}
