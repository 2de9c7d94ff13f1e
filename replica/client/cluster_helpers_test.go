package client_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
)

// The client's tests run on a real cluster, replica/internal/clustertest's:
// a controller and brokers, each on its own replica/server Host over
// loopback TCP, in the test process, on the wall clock.

// clusterOptions shape a test cluster.
type clusterOptions struct {
	brokers   int
	lagMs     int64 // replica.lag.time.max.ms
	sessionMs int64 // the controller's broker session timeout
}

// startCluster starts the controller and brokers 1..o.brokers and waits
// until every broker is registered, unfenced and caught up.
func startCluster(t testing.TB, o clusterOptions) *clustertest.Cluster {
	t.Helper()
	return clustertest.Start(t, clustertest.Options{
		Brokers:    o.brokers,
		Controller: controller.Config{SessionTimeoutMs: o.sessionMs},
		Broker:     func(cfg *replica.BrokerConfig) { cfg.Replica.LagMaxMs = o.lagMs },
	})
}

// partition returns what the controller committed for topic's partition
// (the zero state for none).
func partition(c *clustertest.Cluster, topic string, p int32) controller.PartitionState {
	ps, _ := c.Partition(topic, p)
	return ps
}
