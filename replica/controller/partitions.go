package controller

import (
	"fmt"
	"slices"

	"github.com/kaenlog/kaenlog/replica/topicconfig"
	"github.com/kaenlog/kaenlog/wire"
)

// MaxPartitionsPerTopic bounds CreateTopicsRequest.Partitions, so that one
// request cannot make the controller build an unbounded batch.
const MaxPartitionsPerTopic = 10000

// AlterPartition applies a leader's ISR proposal. It validates in Kafka's
// order (ReplicationControlManager.alterPartition and
// validateAlterPartitionData), first refusal wins:
//
//	requester's broker epoch is not its registration's   STALE_BROKER_EPOCH
//	unknown topic or partition                           UNKNOWN_TOPIC_OR_PARTITION
//	leader or partition epoch ahead of the controller's  NOT_CONTROLLER
//	leader epoch behind                                  FENCED_LEADER_EPOCH
//	requester is not the leader                          INVALID_REQUEST
//	partition epoch behind (a stale or duplicate proposal) INVALID_UPDATE_VERSION
//	ISR not within the replicas, repeated, or without the leader  INVALID_REQUEST
//	RECOVERING with more than the leader, or RECOVERED→RECOVERING INVALID_REQUEST
//	an ISR member unregistered, fenced, shutting down, or
//	  with another broker epoch                          INELIGIBLE_REPLICA
//
// An accepted proposal is built like every other change (ELR, election,
// epochs) and answered with the partition's new state; a proposal that
// changes nothing is answered with the current state and writes nothing.
func (c *Controller) AlterPartition(req wire.AlterPartitionRequest, nowMs int64) wire.AlterPartitionResponse {
	resp := wire.AlterPartitionResponse{CorrelationID: req.CorrelationID, Leader: NoLeader, LeaderEpoch: wire.NoEpoch, PartitionEpoch: wire.NoEpoch}
	if c.err != nil {
		resp.ErrorCode = wire.CodeNotController
		return resp
	}
	if code := c.validateAlterPartition(req); code != wire.CodeNone {
		resp.ErrorCode = code
		return resp
	}
	t := c.image.topics[req.Topic]
	newISR := make([]int32, len(req.NewISR))
	for i, s := range req.NewISR {
		newISR[i] = s.BrokerID
	}
	o := c.begin()
	next, _ := c.change(o, o.img.topics[req.Topic], o.img.partition(req.Topic, req.Partition), changeSpec{
		targetISR: newISR, remove: NoLeader, uncleanShutdown: NoLeader,
		election: topicElection(t), targetLRS: req.LeaderRecoveryState, setLRS: true,
	})
	if err := c.commit(o, nowMs); err != nil {
		resp.ErrorCode = codeOf(err)
		return resp
	}
	if next.Leader != req.BrokerID {
		// The change also moved the leadership (in Kafka only a
		// reassignment does): the proposer must learn it from the metadata.
		resp.ErrorCode = wire.CodeNewLeaderElected
		return resp
	}
	resp.Leader, resp.LeaderEpoch, resp.PartitionEpoch = next.Leader, next.LeaderEpoch, next.PartitionEpoch
	resp.ISR, resp.LeaderRecoveryState = cloneIDs(next.ISR), next.LeaderRecoveryState
	return resp
}

func (c *Controller) validateAlterPartition(req wire.AlterPartitionRequest) wire.ErrorCode {
	if b, ok := c.image.brokers[req.BrokerID]; !ok || b.Epoch != req.BrokerEpoch {
		return wire.CodeStaleBrokerEpoch
	}
	p := c.image.partition(req.Topic, req.Partition)
	switch {
	case p == nil:
		return wire.CodeUnknownTopicOrPartition
	case req.LeaderEpoch > p.LeaderEpoch || req.PartitionEpoch > p.PartitionEpoch:
		// Only a newer controller could have issued these epochs.
		return wire.CodeNotController
	case req.LeaderEpoch < p.LeaderEpoch:
		return wire.CodeFencedLeaderEpoch
	case req.BrokerID != p.Leader:
		return wire.CodeInvalidRequest
	case req.PartitionEpoch < p.PartitionEpoch:
		return wire.CodeInvalidUpdateVersion
	}
	leaderIn := false
	for i, s := range req.NewISR {
		if s.BrokerID < 0 || !slices.Contains(p.Replicas, s.BrokerID) ||
			slices.ContainsFunc(req.NewISR[:i], func(o wire.BrokerState) bool { return o.BrokerID == s.BrokerID }) {
			return wire.CodeInvalidRequest
		}
		leaderIn = leaderIn || s.BrokerID == p.Leader
	}
	switch {
	case !leaderIn:
		return wire.CodeInvalidRequest
	case req.LeaderRecoveryState == wire.LeaderRecovering && len(req.NewISR) > 1:
		return wire.CodeInvalidRequest
	case p.LeaderRecoveryState == wire.LeaderRecovered && req.LeaderRecoveryState == wire.LeaderRecovering:
		return wire.CodeInvalidRequest
	}
	for _, s := range req.NewISR {
		b, ok := c.image.brokers[s.BrokerID]
		if !ok || !b.active() || (s.BrokerEpoch != wire.NoBrokerEpoch && s.BrokerEpoch != b.Epoch) {
			return wire.CodeIneligibleReplica
		}
	}
	return wire.CodeNone
}

// CreateTopics creates topics, each on its own as Kafka's
// ReplicationControlManager.createTopics does, and answers each in the
// request's order. Each topic created is its own batch in the metadata
// log, where Kafka writes one request's topics in one: a batch then stays
// bounded by MaxPartitionsPerTopic whatever the request holds, and each
// topic's answer is exactly what its batch made durable (a store that
// fails mid-request leaves the earlier topics created and answers the
// rest NOT_CONTROLLER).
//
// Replicas are placed round-robin over the active brokers (registered,
// unfenced, not shutting down) in id order, partition p's list starting at
// broker (k+p) mod n, where k counts the partitions that already exist, so
// successive topics spread their leaders; or they are taken from
// Assignment. A new partition's ISR is its active replicas, its leader the
// first of them in assignment order, both epochs 0.
//
// Refusals (with ErrorMessage), per topic: CodeInvalidRequest for a name
// given twice in the request (each time) or an explicit assignment that is
// malformed, CodeInvalidTopicException for a name that is not Kafka-legal,
// CodeTopicAlreadyExists, CodeInvalidPartitions for a count below 1 or
// above MaxPartitionsPerTopic, CodeInvalidReplicationFactor for a factor
// below 1 or above the number of active brokers (or an explicit
// assignment with no active broker in a list), CodeInvalidConfig for a
// config that is unknown or out of its range. With ValidateOnly the
// answers are the same and nothing is written.
func (c *Controller) CreateTopics(req wire.CreateTopicsRequest, nowMs int64) wire.CreateTopicsResponse {
	resp := wire.CreateTopicsResponse{CorrelationID: req.CorrelationID, Topics: make([]wire.CreateTopicResult, len(req.Topics))}
	count := make(map[string]int, len(req.Topics))
	for _, t := range req.Topics {
		count[t.Name]++
	}
	for i, t := range req.Topics {
		if count[t.Name] > 1 {
			resp.Topics[i] = refusedTopic(t.Name, wire.CodeInvalidRequest, "topic %q is named more than once in the request", t.Name)
			continue
		}
		resp.Topics[i] = c.createTopic(t, req.ValidateOnly, nowMs)
	}
	return resp
}

func refusedTopic(name string, code wire.ErrorCode, format string, args ...any) wire.CreateTopicResult {
	return wire.CreateTopicResult{Name: name, ErrorCode: code, ErrorMessage: fmt.Sprintf(format, args...), Partitions: -1, ReplicationFactor: -1}
}

// createTopic creates, or with validateOnly checks, one topic in its own
// batch.
func (c *Controller) createTopic(req wire.CreatableTopic, validateOnly bool, nowMs int64) wire.CreateTopicResult {
	refuse := func(code wire.ErrorCode, format string, args ...any) wire.CreateTopicResult {
		return refusedTopic(req.Name, code, format, args...)
	}
	if c.err != nil {
		return refuse(wire.CodeNotController, "%v", c.err)
	}
	if err := validTopicName(req.Name); err != nil {
		return refuse(wire.CodeInvalidTopicException, "%v", err)
	}
	if _, ok := c.image.topics[req.Name]; ok {
		return refuse(wire.CodeTopicAlreadyExists, "topic %q already exists", req.Name)
	}
	topic, configs, err := c.topicRecords(req)
	if err != nil {
		return refuse(wire.CodeOf(err), "%v", err)
	}
	var assignment [][]int32
	if req.Assignment != nil {
		a, code, msg := c.checkAssignment(req)
		if code != wire.CodeNone {
			return refuse(code, "%s", msg)
		}
		assignment = a
	} else {
		var active []int32
		for _, b := range c.image.Brokers() {
			if b.active() {
				active = append(active, b.ID)
			}
		}
		switch {
		case req.Partitions < 1 || req.Partitions > MaxPartitionsPerTopic:
			return refuse(wire.CodeInvalidPartitions, "%d partitions, want 1 to %d", req.Partitions, MaxPartitionsPerTopic)
		case req.ReplicationFactor < 1 || int(req.ReplicationFactor) > len(active):
			return refuse(wire.CodeInvalidReplicationFactor, "replication factor %d with %d active brokers %v", req.ReplicationFactor, len(active), active)
		}
		k := 0 // partitions that exist: the rotating start
		for _, t := range c.image.topics {
			k += len(t.parts)
		}
		for p := range int(req.Partitions) {
			replicas := make([]int32, req.ReplicationFactor)
			for i := range replicas {
				replicas[i] = active[(k+p+i)%len(active)]
			}
			assignment = append(assignment, replicas)
		}
	}
	o := c.begin()
	o.add(topic)
	for _, r := range configs {
		o.add(r)
	}
	for p, replicas := range assignment {
		var isr []int32
		for _, r := range replicas {
			if b, ok := c.image.brokers[r]; ok && b.active() {
				isr = append(isr, r)
			}
		}
		o.add(PartitionRecord{
			Topic: req.Name, Partition: int32(p), Replicas: replicas, ISR: isr, Leader: isr[0],
			LeaderRecoveryState: wire.LeaderRecovered,
		})
	}
	done := wire.CreateTopicResult{Name: req.Name, Partitions: int32(len(assignment)), ReplicationFactor: int16(len(assignment[0]))}
	if validateOnly {
		// Checked as far as a creation is, the records included; nothing
		// is written.
		if o.err != nil {
			return refuse(codeOf(o.err), "%v", o.err)
		}
		return done
	}
	if err := c.commit(o, nowMs); err != nil {
		return refuse(codeOf(err), "%v", err)
	}
	return done
}

// topicRecords are the TopicRecord of a topic created with req's configs,
// and a ConfigRecord for each config it sets, validated as Kafka's
// LogConfig validates them (package replica/topicconfig). The TopicRecord
// carries the controller's defaults; the topic's own values are its
// ConfigRecords, so DescribeConfigs can tell one from the other.
func (c *Controller) topicRecords(req wire.CreatableTopic) (TopicRecord, []ConfigRecord, error) {
	r := TopicRecord{Name: req.Name, MinISR: c.cfg.DefaultMinISR}
	var configs []ConfigRecord
	seen := map[string]bool{}
	for _, cfg := range req.Configs {
		if seen[cfg.Name] {
			return r, nil, fmt.Errorf("%w: config %s is given twice", wire.ErrInvalidConfig, cfg.Name)
		}
		seen[cfg.Name] = true
		if err := topicconfig.Validate(cfg.Name, cfg.Value); err != nil {
			return r, nil, err
		}
		configs = append(configs, ConfigRecord{ResourceType: ResourceTopic, ResourceName: req.Name, Name: cfg.Name, Value: cfg.Value})
	}
	return r, configs, nil
}

// checkAssignment validates an explicit assignment as Kafka's
// validateManualPartitionAssignment does.
func (c *Controller) checkAssignment(req wire.CreatableTopic) ([][]int32, wire.ErrorCode, string) {
	a := req.Assignment
	switch {
	case len(a) > MaxPartitionsPerTopic:
		return nil, wire.CodeInvalidPartitions, fmt.Sprintf("%d partitions, max %d", len(a), MaxPartitionsPerTopic)
	case req.Partitions != 0 && int(req.Partitions) != len(a):
		return nil, wire.CodeInvalidRequest, fmt.Sprintf("Partitions = %d with an assignment of %d partitions", req.Partitions, len(a))
	}
	out := make([][]int32, len(a))
	for p, replicas := range a {
		switch {
		case len(replicas) == 0:
			return nil, wire.CodeInvalidRequest, fmt.Sprintf("partition %d has no replicas", p)
		case len(replicas) != len(a[0]):
			return nil, wire.CodeInvalidRequest, fmt.Sprintf("partition %d has %d replicas, partition 0 has %d", p, len(replicas), len(a[0]))
		case req.ReplicationFactor != 0 && int(req.ReplicationFactor) != len(replicas):
			return nil, wire.CodeInvalidRequest, fmt.Sprintf("ReplicationFactor = %d with %d replicas for partition %d", req.ReplicationFactor, len(replicas), p)
		}
		live := false
		for i, r := range replicas {
			b, ok := c.image.brokers[r]
			switch {
			case !ok:
				return nil, wire.CodeInvalidRequest, fmt.Sprintf("partition %d: broker %d is not registered", p, r)
			case slices.Contains(replicas[:i], r):
				return nil, wire.CodeInvalidRequest, fmt.Sprintf("partition %d: broker %d is listed twice", p, r)
			}
			live = live || b.active()
		}
		if !live {
			return nil, wire.CodeInvalidReplicationFactor, fmt.Sprintf("partition %d: every broker of %v is fenced or shutting down", p, replicas)
		}
		out[p] = slices.Clone(replicas)
	}
	return out, wire.CodeNone, ""
}

// ElectLeaders elects a leader for one partition. A clean request
// (Unclean false) keeps a valid leader or elects from the ISR, or from the
// ELR when the ISR is empty, whatever the topic's unclean setting. An
// unclean request on a leaderless partition elects cleanly if it can, and
// otherwise the first acceptable replica in assignment order: its ISR
// becomes that replica alone, RECOVERING, the ELR is cleared, and
// DataMayBeLost is set. An unclean request on a partition that has a leader
// changes nothing (Kafka answers ELECTION_NOT_NEEDED; kaenlog answers
// CodeNone with the leader). A Preferred request is a preferred election
// (see the package doc): CodeElectionNotNeeded when the preferred replica
// leads, CodePreferredLeaderNotAvailable when it cannot lead and nothing
// changed.
//
// Refusals: CodeUnknownTopicOrPartition, CodeEligibleLeadersNotAvailable
// when the partition is left without a leader, CodeNotController once the
// controller has failed.
func (c *Controller) ElectLeaders(req wire.ElectLeadersRequest, nowMs int64) wire.ElectLeadersResponse {
	resp := wire.ElectLeadersResponse{CorrelationID: req.CorrelationID, Leader: NoLeader, LeaderEpoch: wire.NoEpoch}
	if c.err != nil {
		resp.ErrorCode = wire.CodeNotController
		return resp
	}
	p := c.image.partition(req.Topic, req.Partition)
	if p == nil {
		resp.ErrorCode = wire.CodeUnknownTopicOrPartition
		return resp
	}
	if req.Preferred {
		return c.electPreferred(req, p, nowMs)
	}
	unclean := false
	if !req.Unclean || p.Leader == NoLeader {
		spec := changeSpec{targetISR: p.ISR, remove: NoLeader, uncleanShutdown: NoLeader, election: electClean}
		if req.Unclean {
			spec.election = electUnclean
		}
		o := c.begin()
		_, unclean = c.change(o, o.img.topics[req.Topic], o.img.partition(req.Topic, req.Partition), spec)
		if err := c.commit(o, nowMs); err != nil {
			resp.ErrorCode = codeOf(err)
			return resp
		}
	}
	p = c.image.partition(req.Topic, req.Partition)
	resp.Leader, resp.LeaderEpoch, resp.DataMayBeLost = p.Leader, p.LeaderEpoch, unclean
	if p.Leader == NoLeader {
		resp.ErrorCode = wire.CodeEligibleLeadersNotAvailable
	}
	return resp
}

// Metadata answers with every registered broker and the asked-for topics
// (all of them for nil Topics), from the committed image. An unknown topic
// carries CodeUnknownTopicOrPartition; a leaderless partition
// CodeLeaderNotAvailable. A topic named more than once is answered once
// ([wire.MetadataRequest.TopicSet]). It writes nothing and takes no time.
func (c *Controller) Metadata(req wire.MetadataRequest) wire.MetadataResponse {
	resp := wire.MetadataResponse{CorrelationID: req.CorrelationID}
	if c.err != nil {
		resp.ErrorCode = wire.CodeNotController
		return resp
	}
	for _, b := range c.image.Brokers() {
		resp.Brokers = append(resp.Brokers, wire.MetadataBroker{ID: b.ID, Endpoint: b.Endpoint, Fenced: b.Fenced})
	}
	names := req.TopicSet()
	if names == nil {
		names = c.image.TopicNames()
	}
	for _, name := range names {
		t, ok := c.image.topics[name]
		if !ok {
			resp.Topics = append(resp.Topics, wire.MetadataTopic{Name: name, ErrorCode: wire.CodeUnknownTopicOrPartition})
			continue
		}
		mt := wire.MetadataTopic{Name: name}
		for _, p := range t.parts {
			mp := wire.MetadataPartition{
				Partition: p.Partition, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch,
				Replicas: cloneIDs(p.Replicas), ISR: cloneIDs(p.ISR), ELR: cloneIDs(p.ELR),
			}
			if p.Leader == NoLeader {
				mp.ErrorCode = wire.CodeLeaderNotAvailable
			}
			mt.Partitions = append(mt.Partitions, mp)
		}
		resp.Topics = append(resp.Topics, mt)
	}
	return resp
}
