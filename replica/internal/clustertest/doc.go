// Package clustertest is the one cluster harness of kaenlog's tests: a
// controller and brokers, each on its own replica/server Host over
// loopback TCP, in the test process, on the wall clock. Waits are bounded
// by [WaitLimit] and never sleep: the hosts signal after every event they
// handle ([Events]), and a wait looks at its condition again then.
//
// It is internal and for tests only: replica/server's, replica/client's
// and, through Go's internal rule (an internal package is importable by
// every package whose path is rooted at internal's parent, here replica/,
// whatever module it is in), replica/kafka's. The hooks of [Options]
// shape a cluster for a test: a broker's configuration, its host's, the
// node it is hosted as, and disks in memory that [Cluster.Crash] can cut.
package clustertest
