// Package kafka is a broker's Kafka listener: a [server.Codec] that lets
// stock Kafka clients (franz-go's kgo, librdkafka and kcat, the Java
// client) produce to and consume from a replicating kaenlog cluster. It
// lives in a module of its own because it decodes and encodes with
// franz-go's kmsg, and kaenlog's main module keeps its two dependencies.
//
// # Where it plugs in
//
// The listener is a second port on each broker, served by the broker's own
// [server.Host] (server.Config.Listeners): the same node lock,
// per-connection order, muting, MaxInFlight and MaxFrameSize as kaenlog's
// own listener. The codec turns each Kafka request into the wire request
// the broker already serves (a produce, a consumer's fetch, list offsets,
// metadata, a consumer's epoch question, and the InitProducerID,
// CreateTopics and DeleteTopics the broker forwards to the controller) and
// the broker's answer into the Kafka response, in the version the request
// came with. Brokers keep replicating among themselves on kaenlog's
// protocol and port. A broker advertises its Kafka listener by
// replica.BrokerConfig.KafkaEndpoint, which its registration carries to
// the controller, so that every broker's Metadata names every broker's
// Kafka listener:
//
//	kln, _ := net.Listen("tcp", ":9092")
//	b, _ := replica.OpenBroker(replica.BrokerConfig{ID: 1, Endpoint: ln.Addr().String(),
//		KafkaEndpoint: kln.Addr().String(), ...}, clk.NowMs())
//	h, _ := server.Serve(ln, b, server.Config{Clock: clk, Controller: ctl,
//		Listeners: []server.Listener{{Listener: kln, Codec: kafka.NewCodec(b, kafka.Config{})}}})
//
// # APIs and versions
//
// One file per API, named by its key (00_produce.go, ...), each beginning
// with what it does and does not do:
//
//	key  API                   advertised  served
//	0    Produce               v0-v8       v3-v8 (v0-v2 answered UNSUPPORTED_VERSION)
//	1    Fetch                 v4-v11
//	2    ListOffsets           v1-v5       -1, -2, -3 (max timestamp), -4, by timestamp
//	3    Metadata              v0-v8       auto-creation with Config.AutoCreateTopics
//	18   ApiVersions           v0-v2       KIP-511: a newer version is answered at v0
//	19   CreateTopics          v0-v4       one topic per request; v5-v7 written, flexible
//	20   DeleteTopics          v0-v3       by name; v4-v5 written, flexible
//	22   InitProducerID        v0-v1       idempotence only
//	23   OffsetForLeaderEpoch  v0-v3       consumers (KIP-320); v4 written, flexible
//	32   DescribeConfigs       v0-v3       topics and brokers; v4 written, flexible
//
// "Written, flexible": the API's file implements those versions (its
// xxxFlexibleMax constant) and advertises them once the listener reads
// flexible versions.
//
// No flexible version (KIP-482) is advertised yet: kmsg reads a
// tagged-field count of up to 2^32 and loops that many times whatever
// bytes are left, so a 30-byte request pinned a core for seconds (found by
// FuzzRequestPath); the listener refuses flexible versions until it bounds
// those counts itself. The caps are Kafka 2.3's levels, which kgo and
// librdkafka 2.0.2 work with.
//
// Produce is advertised from v0 though v0-v2 are refused, as Kafka 4.0
// does (KAFKA-18659): librdkafka up to 2.11.0 (Debian's kcat bundles
// 2.0.2) turns compression off against a broker whose range starts above
// 0. Beyond the flexible cap, the semantics set the limits: Fetch and
// Produce v13 name topics by id, which the wire requests do not carry.
// ListOffsets v7 (the first version Kafka's clients send -3 with) is
// flexible; -3 is answered at v1-v5 as Kafka's broker answers it. Produce's and Fetch's CurrentLeader (v10+, v12+) and Metadata's
// topic ids (v10+, [TopicID]) are written for those versions and wait for
// them.
//
// # Errors
//
// Every error code is Kafka's number for kaenlog's code, read from wire's
// one error table (wire.Error.KafkaCode); a kaenlog code with no Kafka
// counterpart is UNKNOWN_SERVER_ERROR.
//
// # Bad input
//
// As Kafka's broker does, the listener closes the connection on a request
// it cannot serve: an unknown API key (kmsg.RequestForKey's nil is
// checked, never dereferenced), a version outside the advertised range
// (ApiVersions excepted: KIP-511), a truncated header, a body that does
// not decode, a flexible version, a produce whose array counts exceed 1<<16 elements
// or what its bytes could hold, and a request other than a produce over
// 1 MiB (kmsg sizes
// an array's allocation only by the bytes left, so counts alone could
// make it allocate many times the frame). Frames are bounded by the host's
// MaxFrameSize before anything is allocated.
//
// # Not supported, and what a client gets instead
//
//   - transactions: a transactional InitProducerID or Produce is refused
//     with INVALID_REQUEST; read_committed reads what read_uncommitted
//     reads (there are no aborted records);
//   - consumer groups (FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
//     LeaveGroup, OffsetCommit, OffsetFetch), KIP-848 and share groups:
//     not advertised, so group consumers fail to find a coordinator;
//     assign partitions directly (kgo.ConsumePartitions, kcat -C -p);
//   - the admin APIs beyond CreateTopics, DeleteTopics and
//     DescribeConfigs (AlterConfigs, CreatePartitions, DescribeCluster,
//     ...): not advertised (a client that sends one anyway is
//     disconnected); a CreateTopics of several topics creates the first
//     and refuses the others (one request each);
//   - compressed batches: the leader's log validates them through the
//     decompressors registered with it (log.RegisterDecompressor) and
//     stores them as sent; gzip is built in, and a batch in a codec with
//     no decompressor is refused (UNSUPPORTED_COMPRESSION_TYPE). This
//     module registers none yet, so snappy (kgo's default), lz4 and zstd
//     are refused: configure gzip or no compression
//     (kgo.ProducerBatchCompression(kgo.GzipCompression()), kcat -z gzip);
//   - fetch sessions: every fetch is a full one (SessionID 0);
//   - Produce's ErrorRecords: a batch is refused as a whole;
//   - TLS and SASL: the listener is plaintext and unauthenticated (see
//     server.Listener for where they go).
package kafka
