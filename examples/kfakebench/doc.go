// Command kfakebench measures kaenlog over TCP against its peer, the
// Kafka-compatible fake of franz-go (kfake) driven by franz-go's client
// (kgo), in one invocation, and prints a table of the figures and their
// ratios: issue 9's benchmarks.
//
//	cd examples/kfakebench && go run .
//
// Every side runs in the same invocation, row by row, interleaved
// (-count runs of each, each run starting with the next side), and the
// table shows medians, because on a shared machine only figures from one
// run compare. The peer is measured twice by default (-peer both): with
// kfake's brokers inside the harness, next to kgo, as kfake.NewCluster
// puts them, and with them in a child process of their own, as kaenlog's
// brokers are. The rows:
//
//   - produce: acks=all, idempotent produce of -records records of
//     -record-bytes, handed over asynchronously (kaenlog's
//     Producer.ProduceManyAsync, -kaenlog-many records a call, or with
//     -kaenlog-many 0 Producer.ProduceAsync, one a call; kgo's Produce,
//     one a call) and flushed, to a partition with three replicas and min
//     ISR 2 on kaenlog, to a partition of kfake (which replicates
//     nothing). Records per second, and the CPU time and allocations per
//     record of each process. With the produce-big row, the throughput
//     floor: the same bytes through a leader and two fetching followers
//     over raw TCP, pwrite and sendfile only (throughput_floor.go).
//   - latency: one record at a time, acks=all, each waiting for its
//     answer (Producer.Produce, kgo's ProduceSync): p50 and p99, also in
//     raw loopback TCP round trips between two processes, measured in the
//     same invocation with a 64-byte ping-pong; the system calls each
//     kaenlog broker makes and the CPU time each process spends per
//     commit; and the message floor: the commit's messages between four
//     processes that do nothing else (floor.go), the least that message
//     shape costs on the machine, and kaenlog's p50 over it. BENCHMARKS.md
//     tells where a commit's time goes.
//   - consume: each produce run's records read back, from the run's
//     first offset, by a consumer (kaenlog's Consumer.Records, kgo's direct consumer), against
//     one local log of the same records: log.Open and Log.Read of 1 MiB at
//     a time, every batch decoded, as the consumer does.
//   - allocs: replica/server's BenchmarkProduce, BenchmarkFetch and
//     BenchmarkAcksAllPipelined, run with go test in the kaenlog module;
//     allocs/op divided by the records an operation carries.
//
// # The kgo mode
//
// With -kgo the rows above give way to issue 17's comparison: one kgo
// client, with its defaults (acks=all, idempotent, snappy; -kgo-compression
// none turns compression off), against kaenlog's Kafka listener
// (replica/kafka: a controller and three kafka-broker processes, each
// topic with 3 replicas and min ISR 2, the data on disk in the temporary
// directory) and against kfake's three brokers in one child process,
// which replicate nothing, interleaved with the throughput floor and the
// message floor (kgo.go). Of -rows, produce, consume and latency apply.
// The values are 4096 different random ones in turn (-kgo-values random),
// which snappy cannot shrink, so that the produce's bytes reach the disk;
// -kgo-values repeated gives the rows' alphabet value, which it can.
// CPU per record is the broker processes' together, measured the same
// way on both sides: each broker process (kaenlog's three, not the
// controller; kfake's one) reports its own getrusage through its stdin's
// "stats", before and after the produce, each time once the processes
// are idle (no clock tick of CPU over 100 ms, at most 3 s), so that the
// window holds what the produce leaves for after its last
// acknowledgement and nothing before it; the client in the harness is
// in neither. The table gives the ratio of the medians and the median of
// each round's ratio (a round runs both sides one after the other), and
// the share of the brokers' CPU spent in the kernel. A round of each
// side runs first and is not counted. Since three
// replicas on one disk share its write rate, the mode measures that rate
// with dd (conv=fdatasync) before and after the runs, the bytes kaenlog's
// data directories grow by per record, and the page cache's peak dirty
// bytes in each produce run, against the kernel's throttling threshold.
//
// # The groups mode
//
// With -groups, issue 18's comparison of consumer groups: the same kgo
// client with its defaults (the classic protocol, the cooperative-sticky
// balancer) against kaenlog's Kafka listener (a controller and three
// kafka-broker processes; __consumer_offsets, created at the first
// FindCoordinator, has 50 partitions of 3 replicas and min ISR 2, and a
// commit is answered once its acks=all write is replicated) and against
// kfake's three brokers in one child process, which keep offsets in
// memory, interleaved with the floors (groups.go). Three measures, chosen
// with -group-rows:
//
//   - commit: a member of a stable group commits one offset with
//     CommitOffsetsSync, -group-commits times: p50, p99 and the brokers'
//     CPU per commit, beside the message floor (4 hops, the shape of
//     kaenlog's replicated write) and a loopback round trip (2 hops,
//     kfake's answer from memory);
//   - join: -group-members members (10) started at once until the group
//     is stable (each member's OnPartitionsAssigned fired, each partition
//     owned once, DescribeGroups answering Stable), against kaenlog with
//     -group-initial-delay-ms (Kafka's group.initial.rebalance.delay.ms,
//     3000 by default) and against a second kaenlog cluster with no delay,
//     as kfake has none;
//   - chain: group A consumes t0 and produces to t1, group B consumes t1
//     and produces to t2, each committing a poll once it is produced;
//     -group-chain-records records (100,000; 1,000,000 for the issue's
//     figure) from the first produced to t0 until a reader of t2 has every
//     one, beside the throughput floor for three writes of each record.
//
// In the same rounds, the three measures run with kaenlog's own client
// too (replica/client: GroupConsumer, Commit, Producer) against the same
// kaenlog clusters through their kaenlog listeners
// (groups_kaenlog_client.go), in a second table beside kgo's figures.
//
// # Processes
//
// kaenlog's side is a controller and three brokers, each a process: the
// harness runs its own binary again with KFAKEBENCH_ROLE set, which then
// runs exactly the code of examples/controller or examples/broker
// (package examples/internal/nodecmd) with their default flags, on free
// loopback ports and data directories under a temporary directory. The
// harness steers a node only through its stdin, never its flags: "stats"
// (allocations and CPU time so far) and, with -profile, a CPU profile
// around a row; -node-gomaxprocs and -node-godebug add GOMAXPROCS and
// GODEBUG to the nodes' environment. The clients, kaenlog's and kgo, run
// in the harness.
//
// Every child dies with the harness (Linux's parent-death signal,
// SIGKILL); a signal or -timeout kills them and removes the temporary
// directory (-keep keeps it).
//
// This is a nested module, so that franz-go is no dependency of kaenlog:
// the main module's go test ./... does not see it.
package main
