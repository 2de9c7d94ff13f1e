// Package kafkatest runs a kaenlog cluster inside a Go test, with a Kafka
// listener on every broker, for the tests of code that talks to Kafka
// (as net/http/httptest does for HTTP, and franz-go's kfake for Kafka):
//
//	c, err := kafkatest.NewCluster(kafkatest.Config{})
//	...
//	defer c.Close()
//	c.CreateTopic("orders", 1)
//	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), ...)
//
// Unlike a fake, it is the real thing: a controller and brokers
// (replica.ControllerNode, replica.Broker, each on its own server.Host)
// replicating over loopback TCP in the test's process, with every rule
// of kaenlog's replication — the ISR, the high watermark, leader epochs,
// truncation, acks=all, min.insync.replicas, idempotent producers. By
// default three brokers, ids 1 to 3; CreateTopic's topics have RF 3 and
// min ISR 2; disks are in memory (vfs.Mem), or under Config.Dir; time is
// the wall clock or Config.Clock.
//
// # Faults
//
// Each fault is a method whose documentation says exactly what happens to
// the data: [Cluster.Stop] (a controlled shutdown, losing nothing),
// [Cluster.Crash] (a power cut: every byte not fsynced is gone),
// [Cluster.Restart] (the same id and disk), [Cluster.Cut] and
// [Cluster.Heal] (a follower's path to its leader),
// [Cluster.AdvanceClock] (one broker's clock jumps, so that as a leader
// it shrinks the ISR past replica.lag.time.max.ms), [Cluster.ElectLeader]
// (the controller's clean or unclean election).
//
// # Waiting
//
// Nothing sleeps. [Cluster.AwaitPartition] (and [Cluster.AwaitLeader],
// [Cluster.AwaitISR], [Cluster.AwaitBrokers]) look again after every
// event of any node and give up after Config.WaitMs on the cluster's
// clock, with an error that says what they waited for and how the
// partition stood.
//
// # What a Kafka client gets
//
// What replica/kafka's listener serves: produce (acks 0, 1, all;
// idempotent), fetch, list offsets, metadata, CreateTopics,
// DeleteTopics, DescribeConfigs and the classic consumer group APIs. Topics are created with CreateTopic or a client's CreateTopics,
// or on first use when Config.Kafka sets AutoCreateTopics. Batches may be compressed
// with any of Kafka's codecs (replica/kafka imports replica/compression),
// so kgo's defaults work. See the replica/kafka package documentation.
package kafkatest
