// Package topicconfig is the table of the topic configs kaenlog keeps, by
// Kafka's names, with Kafka's defaults and the ranges Kafka's LogConfig
// validates them with: retention.ms, retention.bytes, segment.bytes,
// segment.ms, cleanup.policy (delete, compact, or both), min.compaction.lag.ms,
// delete.retention.ms, min.insync.replicas, max.message.bytes,
// unclean.leader.election.enable and message.timestamp.type.
//
// The controller validates a topic's own values with [Validate] when the
// topic is created and when [Alter] changes one (Kafka's
// IncrementalAlterConfigs: SET, DELETE, and APPEND and SUBTRACT for the
// list cleanup.policy), and keeps them in the metadata log (package
// replica/controller's ConfigRecord). A broker resolves each topic's
// configs with [Resolve]: the topic's own value, else the broker's default
// (Kafka's static broker config, log.retention.ms for retention.ms), else
// Kafka's; [Value] says which, as DescribeConfigs reports it.
//
// Where kaenlog differs from Kafka: segment.bytes' lower bound is Kafka
// 3's 14 bytes (Kafka 4 raised it to 1 MiB); an empty cleanup.policy is
// refused (Kafka 4.1 accepts it as "no cleanup"); the configs Kafka has
// beyond these (compression.type, flush.*, index.interval.bytes, ...) are
// refused as unknown, INVALID_CONFIG, rather than accepted and ignored.
package topicconfig
