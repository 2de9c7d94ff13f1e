package server

import "github.com/kaenlog/kaenlog/wire"

// The host gives every request it delivers to the node a correlation id of
// its own, unique on the connection, and gives the response the client's
// id back when it frames it: a response then finds its request by identity
// even when a client repeats an id, as Kafka's broker answers a
// connection's requests in order whatever their ids. (Once a repeated id
// let a response take another request's place, and a parked fetch then
// answered for a request that had reused its memory.)

// setCorrelation sets m's correlation id; ok is false for a message kind
// it does not know.
func setCorrelation(m wire.Message, corr int32) (ok bool) {
	switch m := m.(type) {
	case *wire.ProduceRequest:
		m.CorrelationID = corr
	case *wire.ProduceResponse:
		m.CorrelationID = corr
	case *wire.FetchRequest:
		m.CorrelationID = corr
	case *wire.FetchResponse:
		m.CorrelationID = corr
	case *wire.ListOffsetsRequest:
		m.CorrelationID = corr
	case *wire.ListOffsetsResponse:
		m.CorrelationID = corr
	case *wire.OffsetsForLeaderEpochRequest:
		m.CorrelationID = corr
	case *wire.OffsetsForLeaderEpochResponse:
		m.CorrelationID = corr
	case *wire.MetadataRequest:
		m.CorrelationID = corr
	case *wire.MetadataResponse:
		m.CorrelationID = corr
	case *wire.CreateTopicsRequest:
		m.CorrelationID = corr
	case *wire.CreateTopicsResponse:
		m.CorrelationID = corr
	case *wire.ElectLeadersRequest:
		m.CorrelationID = corr
	case *wire.ElectLeadersResponse:
		m.CorrelationID = corr
	case *wire.AlterPartitionRequest:
		m.CorrelationID = corr
	case *wire.AlterPartitionResponse:
		m.CorrelationID = corr
	case *wire.BrokerRegistrationRequest:
		m.CorrelationID = corr
	case *wire.BrokerRegistrationResponse:
		m.CorrelationID = corr
	case *wire.BrokerHeartbeatRequest:
		m.CorrelationID = corr
	case *wire.BrokerHeartbeatResponse:
		m.CorrelationID = corr
	case *wire.InitProducerIDRequest:
		m.CorrelationID = corr
	case *wire.InitProducerIDResponse:
		m.CorrelationID = corr
	default:
		return false
	}
	return true
}
