//go:build !adminapis

package main

import "github.com/kaenlog/kaenlog/replica/kafka"

// autoCreate reports whether the brokers create a topic a client names
// and no one created. Until replica/kafka's Config has AutoCreateTopics
// (build with -tags adminapis where it does), they do not.
const autoCreate = false

// kafkaConfig is every broker's Kafka listener configuration.
func kafkaConfig(rf int16) kafka.Config { return kafka.Config{} }
