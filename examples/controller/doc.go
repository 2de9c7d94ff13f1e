// Command controller runs kaenlog's controller as a process: the single
// node that stands in for a KRaft quorum. It opens (or creates) its
// metadata log, replays it, and serves brokers (registration, heartbeats,
// the metadata log, AlterPartition) and clients (metadata, topic creation,
// leader elections) over TCP.
//
//	go run ./examples/controller -listen 127.0.0.1:9093 -dir /tmp/kaenlog/controller
//
// Its metadata log is fsynced at every append: it answers only what is
// durable. SIGTERM or SIGINT stops it cleanly; a second signal exits at
// once.
//
// Its directory is stamped with its -id and the cluster id at the first
// start (a new random cluster id unless -cluster-id gives one); see
// examples/internal/nodecmd, "Whose a directory is".
//
// Flags: -id, -cluster-id, -listen, -dir, -session-timeout-ms (a broker silent this long is
// fenced), -default-min-isr; -h lists them with their ranges. An invalid
// flag or value exits with status 2 after a usage line; a failure to start
// exits with status 1.
package main
