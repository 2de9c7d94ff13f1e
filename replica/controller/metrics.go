package controller

import "github.com/kaenlog/kaenlog/replica/metrics"

// Metrics appends the controller's metrics to dst, a snapshot of its
// image (Kafka's kafka.controller:type=KafkaController metrics):
//
//   - kaenlog_active_controller_count: 1, or 0 once its store failed
//     (ActiveControllerCount; kaenlog has one controller);
//   - kaenlog_offline_partitions_count: partitions with no leader
//     (OfflinePartitionsCount);
//   - kaenlog_preferred_replica_imbalance_count: partitions led by
//     another replica than the first of their assignment
//     (PreferredReplicaImbalanceCount);
//   - kaenlog_fenced_broker_count, kaenlog_active_broker_count: the
//     registered brokers fenced and not (FencedBrokerCount,
//     ActiveBrokerCount);
//   - kaenlog_global_topic_count, kaenlog_global_partition_count
//     (GlobalTopicCount, GlobalPartitionCount);
//   - kaenlog_metadata_log_end_offset: the end of the metadata log the
//     image is built from.
func (c *Controller) Metrics(dst []metrics.Family) []metrics.Family {
	img := c.image // read, not kept: no clone
	active := 1.0
	if c.Failed() != nil {
		active = 0
	}
	var offline, imbalanced, fenced, brokers int
	parts := img.Partitions()
	for _, p := range parts {
		switch {
		case p.Leader == NoLeader:
			offline++
		case len(p.Replicas) > 0 && p.Leader != p.Replicas[0]:
			imbalanced++
		}
	}
	for _, b := range img.Brokers() {
		brokers++
		if b.Fenced {
			fenced++
		}
	}
	return append(dst,
		metrics.GaugeOf("kaenlog_active_controller_count", "1 on the active controller, 0 once its metadata log failed.", active),
		metrics.GaugeOf("kaenlog_offline_partitions_count", "Partitions without a leader.", float64(offline)),
		metrics.GaugeOf("kaenlog_preferred_replica_imbalance_count", "Partitions led by another replica than the first of their assignment.", float64(imbalanced)),
		metrics.GaugeOf("kaenlog_fenced_broker_count", "Registered brokers the controller fences.", float64(fenced)),
		metrics.GaugeOf("kaenlog_active_broker_count", "Registered brokers not fenced.", float64(brokers-fenced)),
		metrics.GaugeOf("kaenlog_global_topic_count", "Topics in the cluster.", float64(len(img.TopicNames()))),
		metrics.GaugeOf("kaenlog_global_partition_count", "Partitions in the cluster.", float64(len(parts))),
		metrics.GaugeOf("kaenlog_metadata_log_end_offset", "The end of the metadata log the controller's image is built from.", float64(img.EndOffset())),
	)
}
