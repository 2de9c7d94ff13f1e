package kafka

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/replica/topicconfig"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeConfigs (key 32), v0-v4 (Kafka's newest).
//
// Behavior:
//   - a topic resource reports every topic config kaenlog keeps (package
//     replica/topicconfig: retention.ms, retention.bytes, segment.bytes,
//     segment.ms, cleanup.policy, min.compaction.lag.ms,
//     delete.retention.ms, min.insync.replicas, max.message.bytes,
//     unclean.leader.election.enable, message.timestamp.type) as the
//     broker applies it: the topic's own value (its ConfigRecords in the
//     metadata log) as DYNAMIC_TOPIC_CONFIG, else the broker's default
//     (replica.BrokerConfig.TopicDefaults, or its log options for
//     segment.bytes and max.message.bytes) as STATIC_BROKER_CONFIG, else
//     Kafka's default as DEFAULT_CONFIG. A topic without its own
//     min.insync.replicas reports the controller's default it was created
//     with, STATIC_BROKER_CONFIG when it is not Kafka's 1;
//   - a broker resource (this broker's id, or "" for the defaults)
//     reports the listener's and the broker's settings:
//     auto.create.topics.enable, num.partitions,
//     default.replication.factor, each topic config's broker synonym
//     (log.retention.ms, log.segment.bytes, message.max.bytes, ...), and
//     broker.id (read-only); another broker's id is INVALID_REQUEST, as
//     in Kafka (clients send a broker resource to that broker);
//   - IsDefault is set for DEFAULT_CONFIG;
//   - ConfigNames selects configs (an unknown name is left out, as in
//     Kafka); IncludeSynonyms lists each config as its own only synonym;
//     documentation (v3+) is not given;
//   - an unknown topic is UNKNOWN_TOPIC_OR_PARTITION for its resource;
//     other resource types (groups, loggers, client metrics) are
//     INVALID_REQUEST.

func init() {
	regKey(&api{key: describeConfigsKey, name: "DescribeConfigs", min: 0, max: 4, decode: decodeDescribeConfigs, encode: encodeDescribeConfigs, shape: describeConfigsShape})
}

// describeConfigsShape is a DescribeConfigs request's layout, v0-v4
// (kmsg's DescribeConfigsRequest).
func describeConfigsShape(version int16, flexible bool) shape {
	resource := append(shape{fixedBytes(1), str, array(str)}, tagsIf(flexible)...) // ResourceType, ResourceName, ConfigNames (nullable)
	s := shape{array(resource...)}
	if version >= 1 {
		s = append(s, fixedBytes(1)) // IncludeSynonyms
	}
	if version >= 3 {
		s = append(s, fixedBytes(1)) // IncludeDocumentation
	}
	return append(s, tagsIf(flexible)...)
}

// The topics are asked of the broker's image by a Metadata request: it
// answers which exist, and the listener reads their settings from the
// image at Frame, under the node lock.
func decodeDescribeConfigs(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.DescribeConfigsRequest)
	m := &wire.MetadataRequest{CorrelationID: st.corr, Topics: []string{}}
	for _, r := range kr.Resources {
		if r.ResourceType == kmsg.ConfigResourceTypeTopic {
			m.Topics = append(m.Topics, r.ResourceName)
		}
	}
	return m, nil
}

// configEntry is one config as DescribeConfigs reports it.
type configEntry struct {
	name, value string
	source      kmsg.ConfigSource
	typ         kmsg.ConfigType
	readOnly    bool
}

// setOr is the source of a value that is the default when unset.
func setOr(set bool, source kmsg.ConfigSource) kmsg.ConfigSource {
	if set {
		return source
	}
	return kmsg.ConfigSourceDefaultConfig
}

// configType is a topic config's type as DescribeConfigs reports it.
func configType(t topicconfig.Type) kmsg.ConfigType {
	switch t {
	case topicconfig.Int:
		return kmsg.ConfigTypeInt
	case topicconfig.Boolean:
		return kmsg.ConfigTypeBoolean
	case topicconfig.String:
		return kmsg.ConfigTypeString
	case topicconfig.List:
		return kmsg.ConfigTypeList
	}
	return kmsg.ConfigTypeLong
}

// source is a topicconfig.Source as DescribeConfigs reports it.
func source(s topicconfig.Source) kmsg.ConfigSource {
	switch s {
	case topicconfig.Topic:
		return kmsg.ConfigSourceDynamicTopicConfig
	case topicconfig.Broker:
		return kmsg.ConfigSourceStaticBrokerConfig
	}
	return kmsg.ConfigSourceDefaultConfig
}

func (c *Codec) topicConfigs(t controller.Topic) []configEntry {
	defaults := c.b.TopicDefaults()
	var out []configEntry
	for _, d := range topicconfig.Defs() {
		v, src, _ := topicconfig.Value(d.Name, t.Configs, defaults)
		if src != topicconfig.Topic {
			// The controller resolved these at creation: its default.
			switch d.Name {
			case configMinISR:
				v, src = strconv.Itoa(int(t.MinISR)), topicconfig.Broker
				if t.MinISR == 1 {
					src = topicconfig.Default
				}
			case configUncleanLeader:
				v = strconv.FormatBool(t.UncleanLeaderElection)
				if t.UncleanLeaderElection {
					src = topicconfig.Broker
				}
			}
		}
		out = append(out, configEntry{name: d.Name, value: v, source: source(src), typ: configType(d.Type)})
	}
	return out
}

func (c *Codec) brokerConfigs() []configEntry {
	defaults := c.b.TopicDefaults()
	out := []configEntry{
		{name: "broker.id", value: strconv.Itoa(int(c.b.ID())), source: kmsg.ConfigSourceStaticBrokerConfig, typ: kmsg.ConfigTypeInt, readOnly: true},
		{name: "auto.create.topics.enable", value: strconv.FormatBool(c.cfg.AutoCreateTopics), source: setOr(c.cfg.AutoCreateTopics, kmsg.ConfigSourceStaticBrokerConfig), typ: kmsg.ConfigTypeBoolean},
		{name: "num.partitions", value: strconv.Itoa(int(c.defaultPartitions())), source: setOr(c.cfg.DefaultPartitions > 0, kmsg.ConfigSourceStaticBrokerConfig), typ: kmsg.ConfigTypeInt},
		{name: "default.replication.factor", value: strconv.Itoa(int(c.defaultReplicationFactor())), source: setOr(c.cfg.DefaultReplicationFactor > 0, kmsg.ConfigSourceStaticBrokerConfig), typ: kmsg.ConfigTypeInt},
	}
	for _, d := range topicconfig.Defs() {
		if d.Name == configMinISR || d.Name == configUncleanLeader {
			continue // the controller's, not the broker's
		}
		v, src, _ := topicconfig.Value(d.Name, nil, defaults)
		out = append(out, configEntry{name: d.BrokerName, value: v, source: source(src), typ: configType(d.Type), readOnly: true})
	}
	return out
}

func encodeDescribeConfigs(c *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.MetadataResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to a DescribeConfigs", m.APIKey())
	}
	kr := st.kreq.(*kmsg.DescribeConfigsRequest)
	known := map[string]bool{}
	for _, t := range w.Topics {
		known[t.Name] = t.ErrorCode == wire.CodeNone
	}
	resp := kmsg.NewPtrDescribeConfigsResponse()
	for _, r := range kr.Resources {
		rr := kmsg.NewDescribeConfigsResponseResource()
		rr.ResourceType, rr.ResourceName = r.ResourceType, r.ResourceName
		refuse := func(code wire.ErrorCode, format string, args ...any) {
			msg := fmt.Sprintf(format, args...)
			rr.ErrorCode, rr.ErrorMessage = kafkaCode(code), &msg
		}
		var entries []configEntry
		switch r.ResourceType {
		case kmsg.ConfigResourceTypeTopic:
			t, ok := c.b.Image().Topic(r.ResourceName)
			if !known[r.ResourceName] || !ok {
				refuse(wire.CodeUnknownTopicOrPartition, "topic %q does not exist", r.ResourceName)
				break
			}
			entries = c.topicConfigs(t)
		case kmsg.ConfigResourceTypeBroker:
			if r.ResourceName != "" && r.ResourceName != strconv.Itoa(int(c.b.ID())) {
				refuse(wire.CodeInvalidRequest, "broker %d was asked for broker %q's configs", c.b.ID(), r.ResourceName)
				break
			}
			entries = c.brokerConfigs()
		default:
			refuse(wire.CodeInvalidRequest, "resource type %v is not described", r.ResourceType)
		}
		for _, e := range entries {
			if r.ConfigNames != nil && !slices.Contains(r.ConfigNames, e.name) {
				continue
			}
			rc := kmsg.NewDescribeConfigsResponseResourceConfig()
			value := e.value
			rc.Name, rc.Value, rc.ReadOnly, rc.Source, rc.ConfigType = e.name, &value, e.readOnly, e.source, e.typ
			rc.IsDefault = e.source == kmsg.ConfigSourceDefaultConfig
			if kr.IncludeSynonyms {
				syn := kmsg.NewDescribeConfigsResponseResourceConfigConfigSynonym()
				syn.Name, syn.Value, syn.Source = e.name, &value, e.source
				rc.ConfigSynonyms = append(rc.ConfigSynonyms, syn)
			}
			rr.Configs = append(rr.Configs, rc)
		}
		resp.Resources = append(resp.Resources, rr)
	}
	return resp, nil
}
