package replica

import "github.com/kaenlog/kaenlog/wire"

// handleOffsetsForLeaderEpoch answers a follower's epoch questions, one per
// partition.
func (b *Broker) handleOffsetsForLeaderEpoch(req *wire.OffsetsForLeaderEpochRequest) *wire.OffsetsForLeaderEpochResponse {
	resp := &wire.OffsetsForLeaderEpochResponse{CorrelationID: req.CorrelationID, Partitions: make([]wire.OffsetsForLeaderEpochPartitionResponse, len(req.Partitions))}
	for i := range req.Partitions {
		p := &req.Partitions[i]
		r, err := b.leaderFor(TopicPartition{p.Topic, p.Partition})
		if err != nil {
			resp.Partitions[i] = wire.OffsetsForLeaderEpochPartitionResponse{Topic: p.Topic, Partition: p.Partition, ErrorCode: wire.CodeOf(err)}
			continue
		}
		resp.Partitions[i], _ = r.HandleOffsetsForLeaderEpoch(p)
	}
	return resp
}

// handleListOffsets answers where partitions start and end.
func (b *Broker) handleListOffsets(req *wire.ListOffsetsRequest) *wire.ListOffsetsResponse {
	resp := &wire.ListOffsetsResponse{CorrelationID: req.CorrelationID, Partitions: make([]wire.ListOffsetsPartitionResponse, len(req.Partitions))}
	for i := range req.Partitions {
		p := &req.Partitions[i]
		r, err := b.leaderFor(TopicPartition{p.Topic, p.Partition})
		if err != nil {
			resp.Partitions[i] = wire.ListOffsetsPartitionResponse{Topic: p.Topic, Partition: p.Partition, ErrorCode: wire.CodeOf(err)}
			continue
		}
		resp.Partitions[i], _ = r.HandleListOffsets(req.ReplicaID, p)
	}
	return resp
}
