package kafka

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeConfigs (key 32), v0-v4 (Kafka's newest).
//
// Behavior:
//   - a topic resource reports the configs the broker applies to it:
//     cleanup.policy (delete: kaenlog has no compaction of topics),
//     min.insync.replicas and unclean.leader.election.enable (the
//     topic's, from the metadata image), segment.bytes and
//     max.message.bytes (the broker's log options, which every topic
//     shares), retention.ms and retention.bytes (-1: the broker deletes
//     no segment by time or size yet, where Kafka's defaults are 7 days
//     and -1);
//   - a broker resource (this broker's id, or "" for the defaults)
//     reports the listener's and the broker's settings:
//     auto.create.topics.enable, num.partitions,
//     default.replication.factor, log.segment.bytes, message.max.bytes,
//     log.retention.ms, log.retention.bytes, log.cleanup.policy, and
//     broker.id (read-only); another broker's id is INVALID_REQUEST, as
//     in Kafka (clients send a broker resource to that broker);
//   - Source and IsDefault: DEFAULT_CONFIG for a value nobody set,
//     STATIC_BROKER_CONFIG for one the broker was configured with,
//     DYNAMIC_TOPIC_CONFIG for a topic's own. The metadata log keeps a
//     topic's resolved min.insync.replicas, not whether it was given, so
//     a value other than Kafka's default 1 (or unclean election on) is
//     reported as the topic's own even when it came from the
//     controller's DefaultMinISR;
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

// logSizes are segment.bytes and max.message.bytes as the broker's logs
// apply them.
func logSizes(opts log.Options) (segment, maxBatch configEntry) {
	seg, batch := opts.SegmentBytes, int64(opts.MaxBatchBytes)
	if seg <= 0 {
		seg = log.DefaultSegmentBytes
	}
	if batch <= 0 {
		batch = log.DefaultMaxBatchBytes
	}
	return configEntry{value: strconv.FormatInt(seg, 10), source: setOr(opts.SegmentBytes > 0, kmsg.ConfigSourceStaticBrokerConfig), typ: kmsg.ConfigTypeInt},
		configEntry{value: strconv.FormatInt(batch, 10), source: setOr(opts.MaxBatchBytes > 0, kmsg.ConfigSourceStaticBrokerConfig), typ: kmsg.ConfigTypeInt}
}

func (c *Codec) topicConfigs(minISR int32, unclean bool) []configEntry {
	seg, batch := logSizes(c.b.LogOptions())
	seg.name, batch.name = "segment.bytes", "max.message.bytes"
	return []configEntry{
		{name: "cleanup.policy", value: "delete", source: kmsg.ConfigSourceDefaultConfig, typ: kmsg.ConfigTypeList},
		{name: configMinISR, value: strconv.Itoa(int(minISR)), source: setOr(minISR != 1, kmsg.ConfigSourceDynamicTopicConfig), typ: kmsg.ConfigTypeInt},
		{name: configUncleanLeader, value: strconv.FormatBool(unclean), source: setOr(unclean, kmsg.ConfigSourceDynamicTopicConfig), typ: kmsg.ConfigTypeBoolean},
		{name: "retention.ms", value: "-1", source: kmsg.ConfigSourceDefaultConfig, typ: kmsg.ConfigTypeLong},
		{name: "retention.bytes", value: "-1", source: kmsg.ConfigSourceDefaultConfig, typ: kmsg.ConfigTypeLong},
		seg, batch,
	}
}

func (c *Codec) brokerConfigs() []configEntry {
	seg, batch := logSizes(c.b.LogOptions())
	seg.name, batch.name = "log.segment.bytes", "message.max.bytes"
	return []configEntry{
		{name: "broker.id", value: strconv.Itoa(int(c.b.ID())), source: kmsg.ConfigSourceStaticBrokerConfig, typ: kmsg.ConfigTypeInt, readOnly: true},
		{name: "auto.create.topics.enable", value: strconv.FormatBool(c.cfg.AutoCreateTopics), source: setOr(c.cfg.AutoCreateTopics, kmsg.ConfigSourceStaticBrokerConfig), typ: kmsg.ConfigTypeBoolean},
		{name: "num.partitions", value: strconv.Itoa(int(c.defaultPartitions())), source: setOr(c.cfg.DefaultPartitions > 0, kmsg.ConfigSourceStaticBrokerConfig), typ: kmsg.ConfigTypeInt},
		{name: "default.replication.factor", value: strconv.Itoa(int(c.defaultReplicationFactor())), source: setOr(c.cfg.DefaultReplicationFactor > 0, kmsg.ConfigSourceStaticBrokerConfig), typ: kmsg.ConfigTypeInt},
		seg, batch,
		{name: "log.retention.ms", value: "-1", source: kmsg.ConfigSourceDefaultConfig, typ: kmsg.ConfigTypeLong},
		{name: "log.retention.bytes", value: "-1", source: kmsg.ConfigSourceDefaultConfig, typ: kmsg.ConfigTypeLong},
		{name: "log.cleanup.policy", value: "delete", source: kmsg.ConfigSourceDefaultConfig, typ: kmsg.ConfigTypeList},
	}
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
			entries = c.topicConfigs(t.MinISR, t.UncleanLeaderElection)
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
