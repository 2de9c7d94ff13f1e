package controller

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kaenlog/kaenlog/replica/topicconfig"
	"github.com/kaenlog/kaenlog/wire"
)

// IncrementalAlterConfigs changes topics' own configs, as Kafka's
// ConfigurationControlManager.incrementalAlterConfigs does: each
// resource on its own, its operations applied in order (SET, DELETE,
// and APPEND and SUBTRACT for the list cleanup.policy; package
// replica/topicconfig validates each result), all of them or none. A
// resource's changes are one batch of ConfigRecords, one per config whose
// own value changed; a change to what is already there writes nothing.
// Brokers learn the change from the metadata log and apply it at once.
//
// APPEND and SUBTRACT start from the topic's own value, else Kafka's
// default (the controller does not know each broker's own default).
//
// Refusals, per resource: CodeInvalidRequest for a resource that is not a
// topic, an unknown operation, or a config named twice;
// CodeUnknownTopicOrPartition for a topic that does not exist;
// CodeInvalidConfig for an unknown config or a value out of its range
// (the message says which). With ValidateOnly nothing is written.
func (c *Controller) IncrementalAlterConfigs(req wire.IncrementalAlterConfigsRequest, nowMs int64) wire.IncrementalAlterConfigsResponse {
	resp := wire.IncrementalAlterConfigsResponse{CorrelationID: req.CorrelationID, Resources: make([]wire.AlterConfigsResourceResponse, len(req.Resources))}
	for i, r := range req.Resources {
		out := wire.AlterConfigsResourceResponse{ResourceType: r.ResourceType, ResourceName: r.ResourceName}
		if err := c.alterConfigs(r, req.ValidateOnly, nowMs); err != nil {
			out.ErrorCode, out.ErrorMessage = wire.CodeOf(err), err.Error()
		}
		resp.Resources[i] = out
	}
	return resp
}

func (c *Controller) alterConfigs(r wire.AlterConfigsResource, validateOnly bool, nowMs int64) error {
	if c.err != nil {
		return c.err
	}
	if r.ResourceType != wire.ResourceTopic {
		return fmt.Errorf("%w: resource type %d: kaenlog keeps configs of topics (%d) only", wire.ErrInvalidRequest, r.ResourceType, wire.ResourceTopic)
	}
	t, ok := c.image.topics[r.ResourceName]
	if !ok {
		return fmt.Errorf("%w: topic %q does not exist", wire.ErrUnknownTopicOrPartition, r.ResourceName)
	}
	own := maps.Clone(t.Configs)
	if own == nil {
		own = map[string]string{}
	}
	seen := map[string]bool{}
	for _, op := range r.Configs {
		if seen[op.Name] {
			return fmt.Errorf("%w: config %s is altered twice", wire.ErrInvalidRequest, op.Name)
		}
		seen[op.Name] = true
		current, _, _ := topicconfig.Value(op.Name, own, nil)
		v, deleted, err := topicconfig.Alter(op.Name, topicconfig.AlterOp(op.Op), op.Value, current)
		if err != nil {
			return err
		}
		if deleted {
			delete(own, op.Name)
		} else {
			own[op.Name] = v
		}
	}
	o := c.begin()
	for _, name := range slices.Sorted(maps.Keys(seen)) {
		old, had := t.Configs[name]
		v, has := own[name]
		switch {
		case has && (!had || old != v):
			o.add(ConfigRecord{ResourceType: ResourceTopic, ResourceName: r.ResourceName, Name: name, Value: v})
		case !has && had:
			o.add(ConfigRecord{ResourceType: ResourceTopic, ResourceName: r.ResourceName, Name: name, Delete: true})
		}
	}
	if validateOnly {
		return o.err
	}
	return c.commit(o, nowMs)
}
