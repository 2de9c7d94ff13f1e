package kafka

import (
	"fmt"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// IncrementalAlterConfigs (key 44), v0-v1 (Kafka's newest).
//
// Behavior:
//   - the broker forwards the request to the controller (as it forwards
//     CreateTopics), which changes each resource's configs all or none and
//     answers once the change is in the metadata log; brokers apply it
//     within a metadata fetch, with no restart;
//   - topic resources only: a broker, broker-logger, group or
//     client-metrics resource is INVALID_REQUEST (kaenlog's broker
//     defaults are static, set when the broker starts);
//   - SET, DELETE, and APPEND and SUBTRACT on cleanup.policy, the one list
//     config kaenlog keeps; an unknown config or a value out of Kafka's
//     range is INVALID_CONFIG; an unknown topic UNKNOWN_TOPIC_OR_PARTITION;
//   - a null value is read as empty (it only means something for DELETE,
//     which ignores it); ValidateOnly checks and writes nothing.

func init() {
	regKey(&api{key: incrementalAlterConfigsKey, name: "IncrementalAlterConfigs", min: 0, max: 1, decode: decodeIncrementalAlterConfigs, encode: encodeIncrementalAlterConfigs, shape: incrementalAlterConfigsShape})
}

// incrementalAlterConfigsShape is an IncrementalAlterConfigs request's
// layout, v0-v1 (kmsg's IncrementalAlterConfigsRequest).
func incrementalAlterConfigsShape(_ int16, flexible bool) shape {
	config := append(shape{str, fixedBytes(1), str}, tagsIf(flexible)...)                // Name, Op, Value (nullable)
	resource := append(shape{fixedBytes(1), str, array(config...)}, tagsIf(flexible)...) // ResourceType, ResourceName, Configs
	return append(shape{array(resource...), fixedBytes(1)}, tagsIf(flexible)...)         // Resources, ValidateOnly
}

func decodeIncrementalAlterConfigs(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.IncrementalAlterConfigsRequest)
	m := &wire.IncrementalAlterConfigsRequest{CorrelationID: st.corr, ValidateOnly: kr.ValidateOnly}
	for _, r := range kr.Resources {
		wr := wire.AlterConfigsResource{ResourceType: int8(r.ResourceType), ResourceName: r.ResourceName}
		for _, c := range r.Configs {
			var v string
			if c.Value != nil {
				v = *c.Value
			}
			wr.Configs = append(wr.Configs, wire.AlterableConfig{Name: c.Name, Op: int8(c.Op), Value: v})
		}
		m.Resources = append(m.Resources, wr)
	}
	return m, nil
}

func encodeIncrementalAlterConfigs(_ *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.IncrementalAlterConfigsResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to an IncrementalAlterConfigs", m.APIKey())
	}
	kr := st.kreq.(*kmsg.IncrementalAlterConfigsRequest)
	resp := kmsg.NewPtrIncrementalAlterConfigsResponse()
	for i, r := range kr.Resources {
		rr := kmsg.NewIncrementalAlterConfigsResponseResource()
		rr.ResourceType, rr.ResourceName = r.ResourceType, r.ResourceName
		code, msg := w.ErrorCode, w.ErrorMessage
		if code == wire.CodeNone {
			if i >= len(w.Resources) || w.Resources[i].ResourceName != r.ResourceName {
				return nil, fmt.Errorf("kafka: the controller did not answer for resource %q", r.ResourceName)
			}
			code, msg = w.Resources[i].ErrorCode, w.Resources[i].ErrorMessage
		}
		if code != wire.CodeNone {
			rr.ErrorCode, rr.ErrorMessage = kafkaCode(code), &msg
		}
		resp.Resources = append(resp.Resources, rr)
	}
	return resp, nil
}
