// Package client is kaenlog's producer and consumer: a library a program
// uses to write records to a cluster's partitions and read them back, over
// the TCP runtime of [github.com/kaenlog/kaenlog/replica/server].
//
//	c, _ := client.New(client.Config{Controller: "127.0.0.1:9093", Clock: wallclock.New()})
//	defer c.Close()
//	p, _ := c.NewProducer(client.ProducerConfig{}) // acks=all, idempotent
//	off, err := p.Produce(ctx, client.Record{Topic: "orders", Value: []byte("hello")})
//	cons, _ := c.NewConsumer(client.ConsumerConfig{})
//	for rec, err := range cons.Records(ctx, client.TopicPartition{Topic: "orders"}, client.FromStart()) { ... }
//
// The files, as a table of contents:
//
//   - client.go: [Config], [New], [Client] and [Client.Close]; [Record],
//     [Offset], [TopicPartition]; [Client.CreateTopic].
//   - conn.go: one connection — requests multiplexed by correlation id,
//     one writer and one reader goroutine, frames bounded, timeouts.
//   - metadata.go: leaders, leader epochs and endpoints, from the
//     controller; metadata_age.go: its refresh once it is old.
//   - producer.go: [Producer] — [Producer.Produce], [Producer.Send],
//     [Producer.ProduceAsync], [Producer.ProduceManyAsync],
//     [Producer.Flush]; batching by size and linger, acks, retries,
//     delivery timeout, the wait for room in a full buffer.
//   - partitioner.go: [Partitioner], [PartitionForKey] (Kafka's murmur2).
//   - missing.go: records waiting for their topic's metadata, and their
//     end when it never comes or denies the partition.
//   - batch.go: a producer's RecordBatch v2, encoded in place.
//   - idempotence.go: producer ids, sequences, and the rules for
//     OUT_OF_ORDER_SEQUENCE_NUMBER and INVALID_PRODUCER_EPOCH.
//   - backoff.go: Kafka's exponential backoff with jitter.
//   - consumer.go: [Consumer] and [Consumer.Records], an iter.Seq2.
//   - group.go: [GroupConsumer], a member of a consumer group — join,
//     sync, heartbeat, rebalance, [GroupConsumer.Commit], leave;
//     group_protocol.go: Kafka's ConsumerProtocol formats and its range
//     assignor.
//   - errors.go: the client's own errors; everything else is a wire error.
//
// # Time
//
// Like every library package of kaenlog, the client never reads the wall
// clock: linger, backoff, request and delivery timeouts run on the
// [clock.Clock] of [Config.Clock], so a test drives them with a
// [clock.Manual] and a program hands it the wall clock of
// examples/wallclock.
//
// # Configuration
//
// New, NewProducer, NewConsumer and CreateTopic check their
// configuration before anything is sent and refuse what cannot work with
// [ErrInvalidConfig], naming the field and why: an address that is not
// host:port with a port number (as Kafka checks bootstrap.servers), a
// negative duration or size, an Acks or Partitioner that is not one of
// the constants, a DeliveryTimeoutMs below LingerMs + AckTimeoutMs,
// MaxInFlight above 5 with idempotence, a BatchBytes or MaxRecordBytes
// whose request could not fit in a frame of Config.MaxFrameSize (a
// broker closes the connection on a larger frame), a topic without
// partitions or replicas. Zero takes the default.
//
// # Connections and metadata
//
// A client needs one address, the controller's: kaenlog's controller
// answers Metadata (brokers' endpoints, each partition's leader and
// leader epoch) and InitProducerId (Kafka asks any broker). It keeps one
// connection to the controller and one per broker for producing, dialled
// on first use; each consumer iteration has its own connection to its
// partition's leader, because a broker answers one connection's requests
// in order and parks a fetch for up to its MaxWaitMs — a produce behind a
// parked fetch would wait for it (franz-go separates them too). On a
// connection, requests are matched to answers by correlation id; each
// frame read is checked against [Config.MaxFrameSize] before anything is
// allocated for it; a request not answered within the wait it allows the
// broker plus [Config.RequestTimeoutMs] fails with an error matching
// wire.ErrRequestTimedOut and breaks the connection, as in Kafka; so does a
// write not done by then (the latest deadline of the requests it carries,
// at least RequestTimeoutMs away), which is how an acks=0 produce to a
// broker that stopped reading ends.
//
// The metadata is refreshed when a broker answers NOT_LEADER_OR_FOLLOWER,
// FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, UNKNOWN_TOPIC_OR_PARTITION,
// LEADER_NOT_AVAILABLE or KAFKA_STORAGE_ERROR, when a broker's connection
// breaks, while a partition has no leader, and once it is
// [Config.MetadataMaxAgeMs] old (Kafka's metadata.max.age.ms, 5 minutes:
// counted from the last refresh that succeeded), so that a new leader no
// error told of is learnt too. One refresh is in flight at a time, at
// least RetryBackoffMs after the last, backing off while they fail. A partition's leader is replaced only by one with a newer or equal
// leader epoch, so a stale answer never undoes a newer leader a broker
// named (a fetch's CurrentLeader, KIP-951).
//
// # Producing
//
// A record's partition is chosen by [ProducerConfig.Partitioner]. With
// [KeyPartitioner], the default, a record with a key (Key not nil, empty
// included) goes to toPositive(murmur2(key)) % partitions
// ([PartitionForKey]), as Kafka's default partitioner puts it, so that
// this producer and a Java producer put a key on the same partition; its
// Partition is then ignored. A record without a key goes to its
// Partition, as before keys chose (Kafka's sticky partitioner for records
// without a key is not followed: the caller spreads them). With
// [ManualPartitioner] every record goes to its Partition, key or not: the
// way to name a keyed record's partition yourself.
//
// A record waits for its topic in the metadata, as Kafka's send() waits in
// waitOnMetadata, but in the producer, never in ProduceAsync: a keyed
// record whose topic's partition count is not known yet is copied into
// the topic's queue and put in its partition's batch once the count comes
// (records of the topic handed over meanwhile, keyed or not, join the
// queue behind it, so a partition's records keep the order they were
// handed over in); a record that names its partition, with no keyed
// record of its topic waiting, goes to that partition's batch at once.
// Until its partition
// has been in the metadata, a record fails with an error matching
// [ErrMetadataTimeout] once [ProducerConfig.MaxBlockMs] (Kafka's
// max.block.ms, 60 s) has passed — naming the controller's address and
// the last cause, such as a refused connection — or, sooner, with
// wire.ErrUnknownTopicOrPartition once [ProducerConfig.UnknownTopicRetries]
// (4) fresh metadata answers in a row, each asked for after it was handed
// over, said that its topic or partition does not exist. From its first
// send on, only the delivery timeout bounds it.
//
// The producer holds at most MaxBufferedBytes of records (below). When
// they are held, [Producer.ProduceAsync] and [Producer.ProduceManyAsync]
// refuse a record with [ErrBufferFull] at once, while [Producer.Send]
// (and so [Producer.Produce]) waits for room, as Kafka's send() does: at
// most MaxBlockMs, then ErrBufferFull, or until its context ends.
//
// A record is encoded at once into its partition's open batch (a
// RecordBatch v2, uncompressed: kaenlog stores uncompressed batches only).
// The batch is sent when it is full (the next record would pass
// [ProducerConfig.BatchBytes]), when its LingerMs has passed since its
// first record, or at Flush. Per leader, a request carries at most one
// batch of each partition, and at most MaxRecordBytes of batches unless it
// carries one alone (Kafka's max.request.size); at most MaxInFlight
// batches of a partition are in flight. A batch's buffer (BatchBytes,
// allocated whole) is reused for a new batch once the broker has answered
// it — never after a broken connection, whose writer may still read it —
// and the producer keeps up to MaxBufferedBytes of such buffers. Unlike
// Kafka's BufferPool, which counts free buffers and every batch's whole
// batch.size within buffer.memory, MaxBufferedBytes counts the records'
// encoded bytes, and the spare buffers come on top: the producer's memory
// can reach about MaxBufferedBytes of spares plus BatchBytes for every
// batch alive.
//
// acks=0 ([AcksNone]) waits for nothing: a record is done once its
// request is written, with no offset. acks=1 and acks=all are answered.
// A retriable refusal (its *wire.Error says Retriable), a broken
// connection or a timed-out request sends the batch again after the
// partition's backoff — Kafka's: 100 ms doubling to 1000 ms, ±20%,
// from a seeded source — until DeliveryTimeoutMs after the record was
// handed over; a non-retriable one fails its records with it. After an
// error a partition sends nothing new until its batches in flight have
// all come back, then resends the failed ones, oldest first, with their
// original bytes: the partition's order on the wire never changes.
//
// With acks=all the producer is idempotent by default (Kafka's default
// since 3.0); "Idempotence" below tells its rules. In short: a producer id and
// epoch from the controller and a sequence per partition in every batch,
// at most 5 batches in flight, and every retry the same bytes, so the
// broker answers a batch it already wrote with its original offset: a
// retry after REQUEST_TIMED_OUT, NOT_ENOUGH_REPLICAS_AFTER_APPEND, a
// broken connection or a change of leader never writes a record twice.
//
// A record's outcome is its [Offset] (partition and absolute offset) or
// its error: [Producer.Produce] waits for it; [Producer.ProduceAsync]
// hands it to a callback, called from one goroutine per producer in the
// order outcomes are decided; [Producer.Flush] waits until every record
// handed over before it has its outcome.
//
// [Producer.ProduceManyAsync] takes a slice of records in one call, for
// throughput: one lock, one reading of the clock (the call's records
// without a timestamp share one CreateTime), and one callback for each run
// of the call's records that went into one batch, with the offset of the
// run's first record — a batch's records have consecutive offsets, and
// each batch has its own outcome. Kafka's producer has no such call;
// franz-go's ProduceSync takes many records.
//
// # Idempotence
//
// The idempotent producer is Kafka's enable.idempotence (the default with
// acks=all) without transactions. Its rules, and where Kafka's producer
// differs:
//
//   - Identity: a producer id and epoch from the controller's
//     InitProducerId (a new id, epoch 0), asked for before the first
//     batch is sent and again when the epoch is exhausted.
//   - Sequences: each partition numbers its records from 0 under the
//     identity, wrapping from math.MaxInt32 to 0 as Kafka's
//     DefaultRecordBatch.incrementSequence does. A batch takes its base
//     sequence when first sent, and its bytes are fixed from then on.
//   - At most 5 batches of a partition are in flight: the broker keeps the
//     last 5 batches of each producer and answers a duplicate of any of
//     them with its original offset. For the same reason a partition
//     sequences a new batch only while at most 5 batches, acknowledged
//     ones included, run from its oldest batch whose fate is unknown (in
//     flight, or waiting to be resent) to the new one: that batch's resend
//     must find a broker that still remembers it.
//   - A retry resends the batch's bytes unchanged, in sequence order: after
//     an error a partition sends nothing until all its batches in flight
//     have come back, then resends those to retry, oldest first. So a
//     batch the broker wrote before the error (an acks=all answered
//     REQUEST_TIMED_OUT or NOT_ENOUGH_REPLICAS_AFTER_APPEND, a connection
//     broken before the answer, a leader that appended, replicated and
//     died) is answered from the dedupe window with the offset it was
//     written at, never written twice. NOT_ENOUGH_REPLICAS to a retry
//     proves only that this attempt was not appended (the leader checks
//     min.insync.replicas before its dedupe), so an earlier attempt still
//     counts as possibly written.
//   - A partition's batches in flight all go to one broker: after a
//     change of leader nothing goes to the new one until every batch in
//     flight to the old one has come back. A new leader that never saw
//     this producer would take a later sequence first and refuse the
//     earlier batch's resend as out of order.
//   - OUT_OF_ORDER_SEQUENCE_NUMBER (and UNKNOWN_PRODUCER_ID) as Kafka's
//     producer since KIP-360 handles them without transactions: the batch
//     was not written, and is retried. If an earlier batch of the
//     partition is still unresolved the error only echoes it; otherwise
//     the broker has lost acknowledged batches of this producer (an
//     unclean election, a lost disk) and the partition needs a new epoch:
//     once nothing of it is in flight the producer bumps its epoch
//     locally (same id, epoch+1, or a new id when the epoch is exhausted)
//     and the partition's unwritten batches are renumbered from sequence
//     0. The loss is the broker's; no record is duplicated.
//   - INVALID_PRODUCER_EPOCH fails the batch with that error (it is not
//     retriable), and, as for any batch that fails for good after it had
//     a sequence, the partition's next sequence needs a new epoch — a gap
//     in the sequences would otherwise refuse every later batch. Batches
//     that may have been written before the gap are resent with their
//     bytes first, so only batches the broker proved unwritten are
//     renumbered. franz-go, by contrast, resets the producer id on these
//     errors.
//   - DUPLICATE_SEQUENCE_NUMBER (a batch older than the broker's window)
//     fails the records with that error: they were written, but no
//     offset can be given. With at most 5 batches in flight it does not
//     happen, and kaenlog's broker never sends it (a retry older than the
//     window gets OUT_OF_ORDER_SEQUENCE_NUMBER, as from Kafka's); Kafka's
//     producer reports success without an offset.
//
// Epochs are per partition in effect: a bump moves the producer's
// identity forward, and each partition takes the new identity (starting
// again at sequence 0) only once none of its batches carries the old one,
// as Kafka's TransactionManager does.
//
// # Consuming
//
// [Consumer.Records] reads one partition's committed records — it fetches
// as a consumer (ReplicaID -1), so the leader serves up to its high
// watermark, and the client shows nothing at or above it either — from an
// offset, or from the start or end the leader gives (ListOffsets). It
// long-polls: a fetch asks the leader to wait up to MaxWaitMs for MinBytes,
// and the leader parks it until data arrives. It prefetches, as Kafka's
// consumer does: the fetch from where a response's records end is sent
// before they are handed over, so that the leader reads and sends the next
// ones meanwhile. It follows the leader as the producer does. Batches are verified and decoded by package log (CRC,
// layout); records below the position are skipped. OFFSET_OUT_OF_RANGE
// ends the iteration with an [OffsetOutOfRangeError] telling the
// partition's start and end: the client never resets a position by itself.
//
// # Consumer groups
//
// A [GroupConsumer] is a member of a group (Kafka's classic protocol, on
// the broker's coordinator, replica/group, through the group APIs of
// kaenlog's own wire protocol). It asks a broker for the group's
// coordinator (FindCoordinator), joins (a dynamic member's first join is
// answered MEMBER_ID_REQUIRED with its id, and it joins again with it,
// KIP-394; a member with [GroupConfig.InstanceID] is static, KIP-345),
// and syncs: the leader assigns every member's subscription with Kafka's
// range assignor and hands the coordinator each assignment as Kafka's
// ConsumerProtocolAssignment bytes, which the coordinator keeps opaque. The
// member then fetches its committed offsets (OffsetFetch: none starts the
// partition at [GroupConfig.Reset], as an out-of-range one does) and reads
// its partitions, one [Consumer.Records] iteration each, through
// [GroupConsumer.Records]. It heartbeats every HeartbeatIntervalMs on the
// client's clock; REBALANCE_IN_PROGRESS (or ILLEGAL_GENERATION) stops every
// fetch and joins again, UNKNOWN_MEMBER_ID joins again as a new member,
// NOT_COORDINATOR or a broken connection finds the coordinator again. A
// refusal no rejoin changes (FENCED_INSTANCE_ID, INCONSISTENT_GROUP_PROTOCOL,
// INVALID_SESSION_TIMEOUT, GROUP_MAX_SIZE_REACHED) ends the iteration.
// [GroupConsumer.Commit] commits the positions handed out and returns once
// the coordinator answered, which it does once the offsets are committed in
// __consumer_offsets; [GroupConsumer.Close] leaves the group (a dynamic
// member) so that it rebalances at once.
//
// # Errors
//
// A broker's refusal reaches the caller as an error wrapping the code's
// *wire.Error: errors.Is(err, wire.ErrNotEnoughReplicas), wire.CodeOf(err),
// wire.IsRetriable(err) or errors.As with a *wire.Error and its
// Retriable. A broken connection matches wire.ErrNetworkException, a
// request that timed out wire.ErrRequestTimedOut. The client's own
// conditions are sentinels: [ErrClosed], [ErrDeliveryTimeout] (which also
// wraps the last error the record met), [ErrMetadataTimeout] (which wraps
// the last cause too), [ErrBufferFull], [ErrInvalidConfig].
//
// # Where this client differs from Kafka's
//
//   - Metadata and producer ids come from the controller, the only address
//     a client is given; Kafka's clients ask any broker.
//   - Partitions: a key is hashed as Kafka's default partitioner does, but
//     a record without a key goes to its Partition (no sticky
//     partitioner), and the choice between the key and a record's
//     Partition is the producer's ([ManualPartitioner], as franz-go's),
//     not each record's: a Go int32 has no "unset".
//   - A record waits for its topic's metadata in the producer, not in
//     ProduceAsync (Kafka's send() blocks up to max.block.ms); and, as
//     franz-go's UnknownTopicRetries does, it fails with
//     UNKNOWN_TOPIC_OR_PARTITION after a few answers that deny its topic
//     or partition, where Kafka's producer waits the whole max.block.ms
//     and throws a TimeoutException.
//   - Retries are bounded by the delivery timeout only (Kafka's retries
//     setting defaults to "unbounded" too). A batch in flight when its
//     delivery time ends fails when its answer or its request's timeout
//     comes, not before: failing it earlier would leave its fate unknown.
//   - The wire's produce timeout is [ProducerConfig.AckTimeoutMs]; the
//     client waits [Config.RequestTimeoutMs] beyond it (franz-go's
//     request timeout overhead), where Kafka uses request.timeout.ms for
//     both, so its answer and its own timeout race.
//   - LingerMs defaults to 0 (Kafka 4.0 moved linger.ms to 5).
//   - Idempotence: see its section above (DUPLICATE_SEQUENCE_NUMBER, the
//     gap after a failed batch).
//   - [Consumer] is a per-partition iterator: no committed offsets, no
//     automatic reset (Kafka's auto.offset.reset=none); a
//     [GroupConsumer] has both. Its
//     first wait for the partition's metadata ends the iteration after
//     [ConsumerConfig.DefaultAPITimeoutMs] (ErrMetadataTimeout) or after
//     DefaultUnknownTopicRetries answers that deny the partition
//     (UNKNOWN_TOPIC_OR_PARTITION), where Kafka's consumer keeps polling
//     an assigned partition that does not exist. It does
//     not validate its position with OffsetsForLeaderEpoch after a change
//     of leader (KIP-320): it reads committed records only, which a clean
//     election never truncates.
//   - A [GroupConsumer] rebalances eagerly (Kafka's classic protocol with
//     the range assignor); no cooperative rebalancing, no KIP-848. It
//     commits only when asked ([GroupConsumer.Commit], Kafka's
//     commitSync; no enable.auto.commit), and a Commit after a rebalance
//     took partitions with records handed out and not committed fails
//     with REBALANCE_IN_PROGRESS instead of committing nothing silently
//     (Kafka's commitSync returns with nothing to commit). A static
//     member's Close does not leave the group, as Kafka's static members.
//     Its subscription and assignment are Kafka's version 0 formats, and
//     it reads later versions by their version 0 fields. The leader
//     assigns the partitions the client's metadata has; a member does not
//     yet watch its topics' partition counts to ask for a rebalance when
//     they grow (Kafka's consumer does, on a metadata refresh).
package client
