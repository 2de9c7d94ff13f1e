// Command broker runs one kaenlog broker as a process: it opens its data
// directory (recovering every partition's log), listens, registers with
// the controller, and serves produce, fetch, list-offsets and
// offsets-for-leader-epoch requests over TCP while it follows the
// controller's metadata and replicates the partitions it follows.
//
//	go run ./examples/broker -id 1 -listen 127.0.0.1:9092 -controller 127.0.0.1:9093 -dir /tmp/kaenlog/broker-1
//
// -simulate-power-loss is a testing aid: every file of the broker goes
// through a vfs.VolatileCache, which keeps data that was not fsynced in
// the process's memory, so a kill -9 of the broker loses exactly the data
// a power cut of its machine would lose (file names, created or renamed,
// are kept: that model is optimistic about metadata). examples/faulttest
// runs its power-loss mode with it; the README's "Durability" section
// tells what it showed.
//
// SIGTERM or SIGINT is a clean shutdown: a controlled shutdown (the
// controller moves this broker's leaderships away, bounded by
// -shutdown-timeout-ms), then every log closed cleanly, the checkpoints and
// the clean-shutdown marker written, so the next start registers as a
// clean broker and keeps its place in the ISRs. A second signal during the
// shutdown exits at once, as a kill would.
//
// Its data directory is stamped with its id and cluster at the first start,
// and a second process with a live id is refused by the controller and
// waits, retrying: see examples/internal/nodecmd, "Whose a directory is"
// and "One broker id, one broker".
//
// Flags: -id, -cluster-id, -listen, -advertise (the endpoint other brokers and clients
// dial, by default the listener's address), -controller, -dir,
// -segment-bytes, -sync-every-append, -replica-lag-ms, -max-batch-bytes,
// -heartbeat-ms, -replica-fetch-wait-ms, -shutdown-timeout-ms,
// -connections-max-idle-ms (connections.max.idle.ms: a client connection
// idle that long is closed; -1 never), -simulate-power-loss; -h lists them
// with their ranges. An invalid flag
// or value exits with status 2 after a usage line; a failure to start or
// a halted broker (a failed log) exits with status 1.
package main
