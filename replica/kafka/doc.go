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
// metadata, a consumer's epoch question, the InitProducerID,
// CreateTopics, DeleteTopics, CreatePartitions, ElectLeaders and the
// reassignment requests the broker forwards to the controller, and
// a group request for the broker's group coordinators, replica.GroupRequest) and
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
//	0    Produce               v0-v12      v3-v12 (v0-v2 answered UNSUPPORTED_VERSION)
//	1    Fetch                 v4-v12
//	2    ListOffsets           v1-v10      -1, -2, by timestamp; -3 from v7, -4 from v8, -5 from v9
//	3    Metadata              v0-v11      auto-creation with Config.AutoCreateTopics
//	8    OffsetCommit          v0-v8       answered once committed in __consumer_offsets
//	9    OffsetFetch           v0-v8       -1 with no error for no offset
//	10   FindCoordinator       v0-v4       key type 0 (groups) only
//	11   JoinGroup             v0-v9
//	12   Heartbeat             v0-v4
//	13   LeaveGroup            v0-v5
//	14   SyncGroup             v0-v5
//	15   DescribeGroups        v0-v5
//	16   ListGroups            v0-v5
//	18   ApiVersions           v0-v4       KIP-511: a newer version is answered at v0
//	19   CreateTopics          v0-v7       configs checked by the controller
//	20   DeleteTopics          v0-v5       by name (v6 names topics by id)
//	22   InitProducerID        v0-v5       idempotence only
//	23   OffsetForLeaderEpoch  v0-v4       consumers (KIP-320)
//	32   DescribeConfigs       v0-v4       topics and brokers
//	37   CreatePartitions      v0-v3       one topic per request
//	42   DeleteGroups          v0-v2
//	43   ElectLeaders          v0-v2       one partition per request
//	45   AlterPartitionReassignments v0    one partition per request
//	46   ListPartitionReassignments  v0
//	47   OffsetDelete          v0
//
// Each API is advertised up to the highest version whose semantics the
// listener implements; its file says why it stops there. Flexible
// versions (KIP-482: compact lengths, tagged fields, request header v2
// and response header v1, but ApiVersions' response header stays v0) are
// read and written by kmsg. Before kmsg v1.15.1 they were refused: kmsg
// v1.14.0 read a tagged-field count of up to 2^32 and looped that many
// times whatever bytes were left, so a 30-byte request pinned a core for
// seconds (found by FuzzRequestPath); v1.15.1 stops at the end of the
// input, so a count costs at most the bytes that carry it. The request
// header's tagged fields are skipped by the listener itself, bounded the
// same way.
//
// Produce is advertised from v0 though v0-v2 are refused, as Kafka 4.0
// does (KAFKA-18659): librdkafka up to 2.11.0 (Debian's kcat bundles
// 2.0.2) turns compression off against a broker whose range starts above
// 0. The caps: Produce and Fetch v13 and Metadata v12 name topics by id,
// and Kafka answers an id it does not know UNKNOWN_TOPIC_ID, which wire's
// error table lacks (the wire requests name topics; Metadata's ids are
// derived from names, [TopicID]); ListOffsets v11's -6 (KIP-1023) was not
// checked; ApiVersions v5 (KIP-1242) needs REBOOTSTRAP_REQUIRED, also
// missing from wire's table; InitProducerID v6 is KIP-939's transactions
// and unknown to kmsg v1.15.1.
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
// not decode, a request whose array and tagged-field counts exceed 1<<16
// elements in all or what its bytes could hold (walked before kmsg
// decodes it: kmsg sizes an array's allocation, and its map of unknown
// tagged fields, by one or two bytes per element, so a 1 MiB Fetch of
// counts made it allocate 32 MiB, and 250,000 unknown tagged fields 40
// MiB), and a request other than a produce over 1 MiB. Frames are bounded
// by the host's MaxFrameSize before anything is allocated.
//
// # Not supported, and what a client gets instead
//
//   - transactions: a transactional InitProducerID or Produce is refused
//     with INVALID_REQUEST; read_committed reads what read_uncommitted
//     reads (there are no aborted records);
//   - KIP-848's consumer group protocol (ConsumerGroupHeartbeat) and share
//     groups: not advertised, so clients use the classic group protocol
//     (the group APIs above, served by the broker's group coordinators,
//     replica/group, on the internal topic __consumer_offsets, which the
//     first FindCoordinator creates). The group APIs are advertised from
//     v0: librdkafka 2.0.2 matches single versions, and turns groups off
//     against a broker whose range starts above 0;
//   - the admin APIs beyond CreateTopics, DeleteTopics, CreatePartitions,
//     ElectLeaders, the two reassignment APIs and DescribeConfigs
//     (AlterConfigs, DescribeCluster,
//     ...): not advertised (a client that sends one anyway is
//     disconnected); a CreateTopics of several topics creates the first
//     and refuses the others (one request each);
//   - compressed batches: the leader's log validates them through the
//     decompressors registered with it (log.RegisterDecompressor) and
//     stores them as sent; gzip is built in, and this module imports
//     replica/compression, which registers snappy (kgo's default; xerial
//     or raw), lz4 and zstd, so every codec Kafka defines is accepted. A
//     batch inflating past the log's bound is CORRUPT_MESSAGE;
//   - fetch sessions: every fetch is a full one (SessionID 0);
//   - Produce's ErrorRecords: a batch is refused as a whole;
//   - TLS and SASL: the listener is plaintext and unauthenticated (see
//     server.Listener for where they go).
package kafka
