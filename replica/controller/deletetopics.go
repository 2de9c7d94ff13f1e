package controller

import "github.com/kaenlog/kaenlog/wire"

// DeleteTopics deletes topics, each name on its own, as Kafka's
// ReplicationControlManager.deleteTopics does: a topic that exists is
// removed by one RemoveTopicRecord, all the request's removals in one batch
// (so they are durable together), and answered CodeNone; a name that does
// not exist, or was already removed earlier in the same request, is
// answered CodeUnknownTopicOrPartition. Brokers learn the removal from the
// metadata log: they stop the topic's replicas and delete their logs. A
// failed controller answers CodeNotController for every name.
func (c *Controller) DeleteTopics(req wire.DeleteTopicsRequest, nowMs int64) wire.DeleteTopicsResponse {
	resp := wire.DeleteTopicsResponse{CorrelationID: req.CorrelationID, Topics: make([]wire.DeletedTopic, len(req.Names))}
	answerAll := func(code wire.ErrorCode) wire.DeleteTopicsResponse {
		for i := range resp.Topics {
			if resp.Topics[i].ErrorCode == wire.CodeNone {
				resp.Topics[i].ErrorCode = code
			}
		}
		return resp
	}
	for i, name := range req.Names {
		resp.Topics[i].Name = name
	}
	if c.err != nil {
		return answerAll(wire.CodeNotController)
	}
	o := c.begin()
	for i, name := range req.Names {
		if _, ok := o.img.topics[name]; !ok {
			resp.Topics[i].ErrorCode = wire.CodeUnknownTopicOrPartition
			continue
		}
		o.add(RemoveTopicRecord{Name: name})
	}
	if err := c.commit(o, nowMs); err != nil {
		return answerAll(codeOf(err))
	}
	return resp
}
