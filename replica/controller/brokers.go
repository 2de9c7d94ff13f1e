package controller

import (
	"math"
	"slices"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/wire"
)

// RegisterBroker registers a broker process (Kafka's
// ClusterControlManager.registerBroker).
//
//   - A registration for an id whose session is live under another
//     incarnation is refused with CodeDuplicateBrokerRegistration: another
//     process runs with that id. Nothing is written and the live broker's
//     session, registration and ISR memberships stay as they are. A
//     session is live from the registration or heartbeat that renewed it
//     until it expires (SessionTimeoutMs later) or the controller ends it:
//     by fencing the broker when it expired, or by telling it to shut
//     down. A fenced broker that still heartbeats keeps its session, as in
//     Kafka, whose BrokerHeartbeatTracker counts contact whatever the
//     fencing. So a restarted broker whose previous process died without a
//     clean shutdown is refused until the old session expires; it retries.
//   - The same incarnation again (a retried request) gets its existing
//     epoch back, renews its session and writes nothing.
//   - A new incarnation of an id whose session is not live gets a new
//     broker epoch, the offset of its new RegisterBrokerRecord, and starts
//     fenced. If the old incarnation was still unfenced (its session
//     expired, but Tick has not fenced it yet), it is fenced first.
//   - A registration whose PreviousBrokerEpoch is not the broker's last
//     epoch, or that says LostData, is an unclean shutdown (KIP-966): the
//     broker leaves every ISR and ELR, with new leaders where it led, and
//     is eligible again only after rejoining an ISR through AlterPartition.
//
// The answer carries Config.ClusterID. Refusals: CodeInvalidRequest for a
// negative broker id or the zero incarnation id,
// CodeInconsistentClusterID for a request naming another cluster id than
// Config.ClusterID (an empty one on either side is not checked: the broker
// has not learned it yet, or the controller has none),
// CodeDuplicateBrokerRegistration as above, CodeNotController once the
// controller has failed.
func (c *Controller) RegisterBroker(req wire.BrokerRegistrationRequest, nowMs int64) wire.BrokerRegistrationResponse {
	resp := wire.BrokerRegistrationResponse{CorrelationID: req.CorrelationID, BrokerEpoch: wire.NoBrokerEpoch, ClusterID: c.cfg.ClusterID}
	switch {
	case c.err != nil:
		resp.ErrorCode = wire.CodeNotController
		return resp
	case req.BrokerID < 0 || req.IncarnationID == ([16]byte{}):
		resp.ErrorCode = wire.CodeInvalidRequest
		return resp
	case req.ClusterID != "" && c.cfg.ClusterID != "" && req.ClusterID != c.cfg.ClusterID:
		resp.ErrorCode = wire.CodeInconsistentClusterID
		return resp
	}
	old, exists := c.image.brokers[req.BrokerID]
	if exists && old.IncarnationID == req.IncarnationID {
		c.touch(req.BrokerID, nowMs)
		resp.BrokerEpoch = old.Epoch
		return resp
	}
	if exists && c.liveSession(req.BrokerID, nowMs) {
		resp.ErrorCode = wire.CodeDuplicateBrokerRegistration
		return resp
	}
	o := c.begin()
	if exists && !old.Fenced {
		// Its session expired a moment ago and Tick has not run yet: fence
		// it now, exactly as Tick would have.
		c.fence(o, req.BrokerID)
	}
	unclean := !exists || req.LostData || req.PreviousBrokerEpoch != old.Epoch
	if unclean && !c.cfg.DisableUncleanShutdownRule {
		c.removeUncleanReplica(o, req.BrokerID)
	}
	epoch := int64(o.img.end)
	o.add(RegisterBrokerRecord{
		BrokerID:      req.BrokerID,
		BrokerEpoch:   epoch,
		IncarnationID: req.IncarnationID,
		Endpoint:      req.Endpoint,
		KafkaEndpoint: req.KafkaEndpoint,
		Fenced:        true,
	})
	if err := c.commit(o, nowMs); err != nil {
		resp.ErrorCode = codeOf(err)
		return resp
	}
	c.sessions[req.BrokerID] = &session{lastContactMs: nowMs}
	resp.BrokerEpoch = epoch
	return resp
}

// liveSession reports whether broker id's session is live at nowMs: renewed
// within the session timeout and not ended by the controller.
func (c *Controller) liveSession(id int32, nowMs int64) bool {
	s, ok := c.sessions[id]
	return ok && !s.ended && nowMs < c.expiresMs(s)
}

// touch renews a broker's session.
func (c *Controller) touch(id int32, nowMs int64) *session {
	s, ok := c.sessions[id]
	if !ok {
		s = &session{}
		c.sessions[id] = s
	}
	s.lastContactMs = nowMs
	s.ended = false
	return s
}

// Heartbeat keeps a broker's session and moves it through KRaft's broker
// states (BrokerHeartbeatManager.calculateNextBrokerState):
//
//   - fenced: unfenced once MetadataOffset shows it has applied its own
//     registration record; leaderless partitions then get elections. With
//     WantShutDown it may stop at once.
//   - unfenced, WantShutDown: if it leads nothing it is fenced and may stop
//     at once; otherwise it enters controlled shutdown: it leaves every
//     ISR and every leadership (a partition nobody else can lead is left
//     leaderless, as in KRaft).
//   - in controlled shutdown: once it leads nothing and every active
//     broker has applied the records that moved its leadership, it is
//     fenced and ShouldShutDown is set.
//
// A heartbeat from an unregistered broker or with another epoch is refused
// with CodeStaleBrokerEpoch; CodeNotController once the controller has
// failed.
func (c *Controller) Heartbeat(req wire.BrokerHeartbeatRequest, nowMs int64) wire.BrokerHeartbeatResponse {
	resp := wire.BrokerHeartbeatResponse{CorrelationID: req.CorrelationID, IsFenced: true, MetadataEndOffset: c.image.end}
	if c.err != nil {
		resp.ErrorCode = wire.CodeNotController
		return resp
	}
	b, ok := c.image.brokers[req.BrokerID]
	if !ok || b.Epoch != req.BrokerEpoch {
		resp.ErrorCode = wire.CodeStaleBrokerEpoch
		return resp
	}
	s := c.touch(req.BrokerID, nowMs)
	s.metadataOffset = req.MetadataOffset

	// Decide first: most heartbeats change nothing and need no operation.
	const (
		none = iota
		unfence
		beginShutdown
		shutDownNow // fence, and let it stop
	)
	action, shutDown := none, false
	switch {
	case b.Fenced:
		if req.WantShutDown {
			shutDown = true
		} else if req.MetadataOffset > uint64(b.Epoch) {
			action = unfence
		}
	case b.InControlledShutdown:
		if !c.leadsAny(req.BrokerID) && c.lowestActiveOffset() >= s.shutdownOffset {
			action = shutDownNow
		}
	case req.WantShutDown:
		action = shutDownNow
		if c.leadsAny(req.BrokerID) {
			action = beginShutdown
		}
	}
	if action != none {
		o := c.begin()
		switch action {
		case unfence:
			c.unfence(o, req.BrokerID)
		case beginShutdown:
			o.add(BrokerRegistrationChangeRecord{BrokerID: b.ID, BrokerEpoch: b.Epoch, InControlledShutdown: SetTrue})
			c.removeFromISRs(o, req.BrokerID)
		case shutDownNow:
			c.fence(o, req.BrokerID)
			shutDown = true
		}
		if err := c.commit(o, nowMs); err != nil {
			resp.ErrorCode = codeOf(err)
			return resp
		}
	}
	if action == beginShutdown {
		s.shutdownOffset = c.image.end
	}
	if shutDown {
		// It was told to stop: its session is over, and its next
		// incarnation may register at once.
		s.ended = true
	}
	resp.IsFenced = c.image.brokers[req.BrokerID].Fenced
	resp.ShouldShutDown = shutDown
	resp.MetadataEndOffset = c.image.end
	return resp
}

// leadsAny reports whether broker id leads a partition.
func (c *Controller) leadsAny(id int32) bool {
	found := false
	c.image.eachPartition(func(_ *topicState, p *PartitionState) error {
		found = found || p.Leader == id
		return nil
	})
	return found
}

// lowestActiveOffset is the smallest metadata offset any active broker
// (unfenced, not shutting down) has reported: Kafka's
// BrokerHeartbeatManager.lowestActiveOffset. With no active broker it is
// the largest offset.
func (c *Controller) lowestActiveOffset() uint64 {
	lowest := uint64(math.MaxUint64)
	for id, s := range c.sessions {
		if b, ok := c.image.brokers[id]; ok && b.active() {
			lowest = min(lowest, s.metadataOffset)
		}
	}
	return lowest
}

// fence adds the records that fence broker id: a
// BrokerRegistrationChangeRecord, then its removal from every ISR
// (ReplicationControlManager.handleBrokerFenced). It is "the controller
// removes the replica that lost its session".
func (c *Controller) fence(o *op, id int32) {
	b := o.img.brokers[id]
	if !b.Fenced {
		o.add(BrokerRegistrationChangeRecord{BrokerID: id, BrokerEpoch: b.Epoch, Fenced: SetTrue})
	}
	c.removeFromISRs(o, id)
}

// removeFromISRs takes broker id out of every ISR it is in and out of every
// leadership, electing new leaders (generateLeaderAndIsrUpdates with
// brokerToRemove). With ELR on it moves into the ELR where the ISR falls
// under min ISR.
func (c *Controller) removeFromISRs(o *op, id int32) {
	o.img.eachPartition(func(t *topicState, p *PartitionState) error {
		if target, in := isr.WithoutLostSession(p.ISR, id); in {
			c.change(o, t, p, changeSpec{targetISR: target, remove: id, uncleanShutdown: NoLeader, election: topicElection(t)})
		}
		return nil
	})
}

// removeUncleanReplica takes a broker that restarted uncleanly out of every
// ISR and ELR (ReplicationControlManager.handleBrokerUncleanShutdown).
func (c *Controller) removeUncleanReplica(o *op, id int32) {
	o.img.eachPartition(func(t *topicState, p *PartitionState) error {
		if slices.Contains(p.ISR, id) || slices.Contains(p.ELR, id) {
			c.change(o, t, p, changeSpec{targetISR: without(p.ISR, id), remove: NoLeader, uncleanShutdown: id, election: topicElection(t)})
		}
		return nil
	})
}

// unfence adds the records that unfence broker id, then elects leaders for
// leaderless partitions, which it may now lead
// (ReplicationControlManager.handleBrokerUnfenced).
func (c *Controller) unfence(o *op, id int32) {
	b := o.img.brokers[id]
	o.add(BrokerRegistrationChangeRecord{BrokerID: id, BrokerEpoch: b.Epoch, Fenced: SetFalse})
	o.img.eachPartition(func(t *topicState, p *PartitionState) error {
		if p.Leader == NoLeader {
			c.change(o, t, p, changeSpec{targetISR: p.ISR, remove: NoLeader, uncleanShutdown: NoLeader, election: topicElection(t)})
		}
		return nil
	})
}
