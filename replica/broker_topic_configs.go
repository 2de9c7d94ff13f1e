package replica

import (
	"fmt"
	"maps"
	"strconv"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/topicconfig"
)

// topicDefaults are the broker's defaults of topic configs: TopicDefaults,
// with segment.bytes and max.message.bytes from the broker's log options
// when it sets them and TopicDefaults does not. A name topicconfig does
// not know, or a value out of its range, is ErrInvalidConfig.
func (c BrokerConfig) topicDefaults() (map[string]string, error) {
	out := maps.Clone(c.TopicDefaults)
	if out == nil {
		out = map[string]string{}
	}
	for name, v := range out {
		if err := topicconfig.Validate(name, v); err != nil {
			return nil, fmt.Errorf("replica: broker %d: TopicDefaults: %v: %w", c.ID, err, ErrInvalidConfig)
		}
	}
	if _, ok := out[topicconfig.SegmentBytes]; !ok && c.Replica.Log.SegmentBytes > 0 {
		out[topicconfig.SegmentBytes] = strconv.FormatInt(c.Replica.Log.SegmentBytes, 10)
	}
	if _, ok := out[topicconfig.MaxMessageBytes]; !ok && c.Replica.Log.MaxBatchBytes > 0 {
		out[topicconfig.MaxMessageBytes] = strconv.Itoa(c.Replica.Log.MaxBatchBytes)
	}
	return out, nil
}

// applyTopicConfig gives a hosted replica the configs of its topic that
// act on it directly, when a config change moved them (no partition epoch
// moves with a config): a leader's min.insync.replicas, and the log's
// segment.bytes. The others are read where they are used.
func (b *Broker) applyTopicConfig(r *Replica, topic string) {
	if n, ok := b.image.MinISR(topic); ok && r.Role() == RoleLeader && r.lead.isr != nil && r.lead.isr.MinISR() != int(n) {
		_ = r.lead.isr.SetMinISR(int(n)) // >= 1: the image checked it
	}
	v, ok := b.image.TopicConfig(topic, topicconfig.SegmentBytes)
	if !ok {
		v, ok = b.topicDefaults[topicconfig.SegmentBytes]
	}
	seg := log.DefaultSegmentBytes // Kafka's default too
	if ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			seg = n
		}
	}
	if l := r.Log(); l.SegmentBytes() != seg {
		_ = l.SetSegmentBytes(seg) // in range: validated when set
	}
}

// TopicDefaults returns the broker's defaults of topic configs by their
// Kafka names (a copy): what a topic without its own value takes before
// Kafka's default ([topicconfig.Resolve]).
func (b *Broker) TopicDefaults() map[string]string { return maps.Clone(b.topicDefaults) }

// TopicConfig returns topic's configs as this broker applies them: its own
// (from the metadata image) over the broker's defaults over Kafka's.
func (b *Broker) TopicConfig(topic string) topicconfig.Config {
	t, _ := b.image.Topic(topic)
	return topicconfig.Resolve(t.Configs, b.topicDefaults)
}
