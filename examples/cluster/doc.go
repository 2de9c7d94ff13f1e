// Command cluster starts a local kaenlog cluster — a controller and three
// brokers, each its own process — and keeps it until Ctrl-C.
//
//	go run ./examples/cluster -topic orders -partitions 3 -rf 3 -min-isr 2
//
// The nodes listen on free loopback ports and keep their data under -dir
// (DIR/controller, DIR/broker-1, ...; by default a new temporary directory,
// printed and kept). Once every broker is registered and unfenced it
// creates -topic if given, prints the controller's and the brokers'
// addresses and each partition's leader and ISR, and waits. Every node's
// output is copied to the cluster's, each line prefixed with the node's
// name.
//
// Ctrl-C (SIGINT) or SIGTERM stops the brokers one by one with SIGTERM —
// each a controlled shutdown and a clean close that leaves its
// clean-shutdown marker — then the controller, and exits with status 0 if
// every node stopped cleanly. A second signal kills every node still
// running (SIGKILL) and exits with status 1. The nodes run in their own
// process group, so a Ctrl-C at the terminal reaches the cluster alone.
//
// The nodes are this same binary started again with the environment
// variable KAENLOG_CLUSTER_NODE set to "controller" or "broker", and take
// the flags of examples/controller and examples/broker.
//
// Flags: -dir, -topic, -partitions, -rf, -min-isr, -sync-every-append; -h
// lists them with their ranges. An invalid flag or value exits with status
// 2 after a usage line.
package main
