//go:build adminapis

package main

import "github.com/kaenlog/kaenlog/replica/kafka"

// autoCreate reports whether the brokers create a topic a client names
// and no one created (auto.create.topics.enable).
const autoCreate = true

// kafkaConfig is every broker's Kafka listener configuration: topics are
// created on first use with one partition and replication factor rf.
func kafkaConfig(rf int16) kafka.Config {
	return kafka.Config{AutoCreateTopics: true, DefaultPartitions: 1, DefaultReplicationFactor: rf}
}
