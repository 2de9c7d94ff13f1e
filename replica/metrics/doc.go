// Package metrics is what a kaenlog node tells an operator, as values:
// families of samples that a node fills in (replica.Broker.Metrics,
// replica.ControllerNode.Metrics, server.Host.Metrics) and [WriteText]
// writes in Prometheus' text exposition format (version 0.0.4), the
// format a /metrics endpoint serves.
//
// kaenlog writes the format itself, in a page of code, rather than
// depend on prometheus/client_golang: the main module keeps its two
// dependencies, and a node's metrics are a snapshot taken under its lock
// (consistent with one another, and costing nothing between scrapes),
// not registered collectors updated on every event.
//
// The names follow Kafka's JMX metrics, in Prometheus' style: Kafka's
// kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions is
// kaenlog_under_replicated_partitions, a counter's name ends in _total,
// and a latency is a histogram in milliseconds. The families each node
// exports are listed where it fills them in.
package metrics
