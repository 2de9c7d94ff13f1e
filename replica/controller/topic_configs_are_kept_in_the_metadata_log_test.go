package controller

import (
	"maps"
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// A topic's own configs are ConfigRecords in the metadata log: set at
// creation, changed by IncrementalAlterConfigs (SET, DELETE, APPEND and
// SUBTRACT for cleanup.policy), each resource all or nothing, validated by
// Kafka's ranges, and replayed by a restarted controller. A default the
// controller resolves (DefaultMinISR) is not the topic's own.
func TestTopicConfigsAreKeptInTheMetadataLogAndAlteredIncrementally(t *testing.T) {
	h := newHarness(t, Config{DefaultMinISR: 2})
	h.startBroker(1)
	h.startBroker(2)
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{
		{Name: "orders", Partitions: 1, ReplicationFactor: 2, Configs: []wire.TopicConfig{{Name: "retention.ms", Value: "60000"}}},
		{Name: "plain", Partitions: 1, ReplicationFactor: 2},
	}})
	wantConfigs := func(topic string, want map[string]string, minISR int32) {
		t.Helper()
		tp, _ := h.c.Image().Topic(topic)
		if !maps.Equal(tp.Configs, want) || tp.MinISR != minISR {
			t.Fatalf("topic %s: configs %v min ISR %d, want %v and %d", topic, tp.Configs, tp.MinISR, want, minISR)
		}
	}
	wantConfigs("orders", map[string]string{"retention.ms": "60000"}, 2)
	wantConfigs("plain", nil, 2) // the controller's default is not the topic's own

	alter := func(validateOnly bool, rs ...wire.AlterConfigsResource) []wire.ErrorCode {
		t.Helper()
		resp := h.c.IncrementalAlterConfigs(wire.IncrementalAlterConfigsRequest{Resources: rs, ValidateOnly: validateOnly}, h.now)
		h.check()
		var codes []wire.ErrorCode
		for _, r := range resp.Resources {
			codes = append(codes, r.ErrorCode)
		}
		return codes
	}
	topic := func(name string, ops ...wire.AlterableConfig) wire.AlterConfigsResource {
		return wire.AlterConfigsResource{ResourceType: wire.ResourceTopic, ResourceName: name, Configs: ops}
	}
	end := h.c.MetadataEndOffset()
	codes := alter(false,
		topic("orders", wire.AlterableConfig{Name: "retention.ms", Op: wire.ConfigDelete},
			wire.AlterableConfig{Name: "cleanup.policy", Op: wire.ConfigAppend, Value: "compact"},
			wire.AlterableConfig{Name: "min.insync.replicas", Op: wire.ConfigSet, Value: "1"}),
		topic("plain", wire.AlterableConfig{Name: "segment.bytes", Op: wire.ConfigSet, Value: "1024"},
			wire.AlterableConfig{Name: "retention.bytes", Op: wire.ConfigSet, Value: "-2"}), // out of range: nothing of plain changes
		topic("nope", wire.AlterableConfig{Name: "retention.ms", Op: wire.ConfigSet, Value: "1"}),
		topic("plain", wire.AlterableConfig{Name: "segment.bytes", Op: wire.ConfigAppend, Value: "1"}),
		topic("plain", wire.AlterableConfig{Name: "no.such.config", Op: wire.ConfigSet, Value: "1"}),
		wire.AlterConfigsResource{ResourceType: 4, ResourceName: "1"},
	)
	want := []wire.ErrorCode{wire.CodeNone, wire.CodeInvalidConfig, wire.CodeUnknownTopicOrPartition, wire.CodeInvalidConfig, wire.CodeInvalidConfig, wire.CodeInvalidRequest}
	if !equalCodes(codes, want) {
		t.Fatalf("answers %v, want %v", codes, want)
	}
	if n := h.c.MetadataEndOffset() - end; n != 3 {
		t.Fatalf("%d records, want orders' 3 ConfigRecords", n)
	}
	wantConfigs("orders", map[string]string{"cleanup.policy": "delete,compact", "min.insync.replicas": "1"}, 1)
	wantConfigs("plain", nil, 2)

	// SUBTRACT, then a validate-only change, then DELETE of the min ISR:
	// the topic's min ISR is the controller's default again.
	alter(false, topic("orders", wire.AlterableConfig{Name: "cleanup.policy", Op: wire.ConfigSubtract, Value: "delete"}))
	end = h.c.MetadataEndOffset()
	if codes := alter(true, topic("orders", wire.AlterableConfig{Name: "retention.ms", Op: wire.ConfigSet, Value: "5"})); codes[0] != wire.CodeNone || h.c.MetadataEndOffset() != end {
		t.Fatalf("validate only: %v, %d records written", codes, h.c.MetadataEndOffset()-end)
	}
	if codes := alter(false, topic("orders", wire.AlterableConfig{Name: "cleanup.policy", Op: wire.ConfigSubtract, Value: "compact"})); codes[0] != wire.CodeInvalidConfig {
		t.Fatalf("subtracting the last cleanup policy: %v, want INVALID_CONFIG", codes)
	}
	alter(false, topic("orders", wire.AlterableConfig{Name: "min.insync.replicas", Op: wire.ConfigDelete}))
	wantConfigs("orders", map[string]string{"cleanup.policy": "compact"}, 2)

	h.restartController()
	wantConfigs("orders", map[string]string{"cleanup.policy": "compact"}, 2)
}

func equalCodes(a, b []wire.ErrorCode) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
