// Command kafkacluster starts a local kaenlog cluster for Kafka clients —
// a controller and three brokers, each its own process, each broker with
// a Kafka listener — and keeps it until Ctrl-C. From this directory (its
// own module, because the Kafka listener needs franz-go's kmsg):
//
//	cd examples/kafkacluster && go run .
//
// Once every broker is registered and unfenced it prints exactly one line
// on stdout, the brokers' Kafka listeners, for a client's bootstrap
// servers:
//
//	bootstrap: 127.0.0.1:40112,127.0.0.1:38243,127.0.0.1:41533
//
// Everything else — each node's output, a record per line naming the
// node, and the cluster's own — goes to stderr through log/slog.
//
// The nodes listen on free loopback ports and keep their data under -dir
// (DIR/controller, DIR/broker-1, ...); by default in a new temporary
// directory, removed on exit. -brokers N (1 to 7) starts N brokers;
// topics get replication factor min(3, N) and min.insync.replicas
// min(2, RF). A topic is created the first time a client names it
// (replica/kafka's Config.AutoCreateTopics, Kafka's
// auto.create.topics.enable), or by CreateTopics (kadm, kafka-topics).
//
// With -metrics every node serves its metrics (package
// replica/metrics) in Prometheus' text format on a free loopback port,
// logged as "broker 1 metrics on http://127.0.0.1:PORT/metrics".
//
// A node that exits on its own (a crash, a kill -9) is logged and left
// down, so that one sees the cluster serve without it; with -restart it
// is started again on the same ports and data directory after a second,
// the wait doubling to 30 s while it keeps dying within a minute of its
// start. A restarted broker recovers its logs and rejoins as after any
// unclean stop: it may wait out its previous incarnation's session
// (DUPLICATE_BROKER_REGISTRATION, retried) before it registers.
//
// Ctrl-C (SIGINT) or SIGTERM stops the brokers one by one with SIGTERM —
// each a controlled shutdown and a clean close — then the controller, and
// exits with status 0 if every node still running stopped cleanly (a node
// that died before is logged when it dies). A second signal kills every
// node (SIGKILL) and exits with status 1. The nodes run in their own
// process group, so a Ctrl-C at the terminal reaches the cluster alone,
// and on Linux the kernel sends each SIGTERM if the cluster dies without
// stopping it (the parent-death signal); a temporary directory is then
// left behind.
//
// The nodes are this same binary, started again with a hidden first
// argument -node, running the code of examples/controller and
// examples/broker (package examples/internal/nodecmd).
package main
