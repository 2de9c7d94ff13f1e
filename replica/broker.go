package replica

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/internal/mutation"
	"github.com/kaenlog/kaenlog/replica/metaprops"
	"github.com/kaenlog/kaenlog/wire"
)

// Defaults for BrokerConfig fields left zero.
const (
	// DefaultHeartbeatIntervalMs is Kafka's broker.heartbeat.interval.ms.
	DefaultHeartbeatIntervalMs = 2000
	// DefaultRequestTimeoutMs is how long a broker waits for an answer
	// before it may send the request again (Kafka's request.timeout.ms).
	DefaultRequestTimeoutMs = 30000
	// DefaultReplicaFetchWaitMs is Kafka's replica.fetch.wait.max.ms: how
	// long a leader may park a continuous follower's fetch.
	DefaultReplicaFetchWaitMs = 500
	// DefaultMetadataMaxWaitMs is how long the controller may hold a
	// broker's fetch of the metadata log before answering with nothing new.
	DefaultMetadataMaxWaitMs = 500
	// DefaultMaxFetchResponseBytes bounds the records of one fetch
	// response, all partitions together (Kafka's fetch.max.bytes, 50 MiB);
	// a request asking for more is clamped to it.
	DefaultMaxFetchResponseBytes = 50 << 20
	// DefaultReconnectBackoffMs is how soon a request whose connection
	// broke may be sent again (Kafka's reconnect.backoff.ms).
	DefaultReconnectBackoffMs = 50
	// DefaultHighWatermarkCheckpointIntervalMs is Kafka's
	// replica.high.watermark.checkpoint.interval.ms.
	DefaultHighWatermarkCheckpointIntervalMs = 5_000
	// DefaultRecoveryPointCheckpointIntervalMs is Kafka's
	// log.flush.offset.checkpoint.interval.ms.
	DefaultRecoveryPointCheckpointIntervalMs = 60_000
)

// controlledShutdownRetryMs is how soon a broker in controlled shutdown
// asks again after the controller's first "not yet" (Kafka's 50 ms).
const controlledShutdownRetryMs = 50

// registrationBackoffMs is the first wait before a refused registration is
// sent again; each refusal in a row doubles it, up to half the session
// timeout (Kafka's BrokerLifecycleManager: 100 ms, doubling, at most half
// of broker.session.timeout.ms).
const registrationBackoffMs = 100

// BrokerConfig configures a Broker.
type BrokerConfig struct {
	// ID is the broker id, >= 0.
	ID int32
	// Dir is the broker's data directory: one subdirectory per hosted
	// partition, named "<topic>-<partition>" as in Kafka, and its stamp
	// (package metaprops), written at the first start: a start with
	// another ID than the stamp's is refused.
	Dir string
	// ClusterID is the id of the cluster the broker belongs to, or empty
	// to learn it from the controller at the first registration. It is
	// checked against Dir's stamp at start and sent in every
	// registration, so that a broker never joins another cluster than its
	// directory's: the controller refuses it (INCONSISTENT_CLUSTER_ID) and
	// the broker halts.
	ClusterID string
	// Endpoint is how other brokers and clients reach this one; the
	// controller publishes it.
	Endpoint string
	// KafkaEndpoint is the advertised address (host:port) of the broker's
	// Kafka listener (replica/kafka), or empty when it has none. It
	// travels in the registration, so every broker's Metadata answer
	// names every broker's Kafka listener.
	KafkaEndpoint string
	// IncarnationID is new for every start of the broker: the controller
	// tells a restart from a retried registration by it. Commands draw it
	// at random, the simulator from its seed. It may not be all zeros.
	IncarnationID [16]byte
	// Replica configures every hosted partition. Its Brokers field is the
	// broker's own: the metadata it learned from the controller.
	Replica Options
	// HeartbeatIntervalMs is how often the broker tells the controller it
	// is alive; 0 means DefaultHeartbeatIntervalMs.
	HeartbeatIntervalMs int64
	// RequestTimeoutMs is how long an unanswered request to the controller
	// or a leader is waited for before it may be sent again; 0 means
	// DefaultRequestTimeoutMs. Registrations and heartbeats wait at most
	// half of SessionTimeoutMs (KAFKA-14392), so that a lost heartbeat is
	// sent again before the session it keeps alive expires; a fetch of the
	// metadata log at most its MetadataMaxWaitMs more.
	RequestTimeoutMs int64
	// SessionTimeoutMs is the controller's broker session timeout
	// (Kafka's broker.session.timeout.ms, which brokers and controllers
	// share); 0 means controller.DefaultSessionTimeoutMs.
	SessionTimeoutMs int64
	// MetadataMaxWaitMs is the MaxWaitMs of the broker's fetches of the
	// controller's metadata log; 0 means DefaultMetadataMaxWaitMs.
	MetadataMaxWaitMs int32
	// MaxFetchResponseBytes bounds the records of one fetch response; 0
	// means DefaultMaxFetchResponseBytes.
	MaxFetchResponseBytes int32
	// ContinuousFetch makes followers fetch again as soon as an answer
	// arrives (or their backoff ends), as a network runtime wants. Without
	// it they fetch only on FetchRound: the in-process Cluster and the
	// simulator drive fetch rounds as steps of their own.
	ContinuousFetch bool
	// ReplicaFetchWaitMs is the MaxWaitMs of followers' fetches under
	// ContinuousFetch: how long a leader may park one waiting for new data
	// (replica.fetch.wait.max.ms); 0 means DefaultReplicaFetchWaitMs.
	ReplicaFetchWaitMs int32
	// HighWatermarkCheckpointIntervalMs is how often every hosted log's
	// high watermark is written to its checkpoint file (Kafka's
	// replica.high.watermark.checkpoint.interval.ms); 0 means
	// DefaultHighWatermarkCheckpointIntervalMs.
	HighWatermarkCheckpointIntervalMs int64
	// RecoveryPointCheckpointIntervalMs is how often every hosted log's
	// recovery point is written to its checkpoint file (Kafka's
	// log.flush.offset.checkpoint.interval.ms); 0 means
	// DefaultRecoveryPointCheckpointIntervalMs.
	RecoveryPointCheckpointIntervalMs int64
	// FlushIntervalMs, when > 0, fsyncs every hosted log that often
	// (Kafka's log.flush.interval.ms). 0, the default as in Kafka, leaves
	// durability to replication, the page cache and
	// log.Options.Sync: a power cut may take what was not fsynced.
	FlushIntervalMs int64
	// Groups configures the group coordinators the broker hosts
	// (broker_groups.go); a zero MaxSessionTimeoutMs means
	// group.DefaultConfig(). MemberIDSeed is the broker's to set.
	Groups group.Config
	// OffsetsTopicPartitions is the partition count __consumer_offsets
	// is created with (Kafka's offsets.topic.num.partitions); 0 means
	// DefaultOffsetsTopicPartitions.
	OffsetsTopicPartitions int32
	// TopicDefaults are the broker's defaults of topic configs, by the
	// topic configs' Kafka names (retention.ms for Kafka's static broker
	// config log.retention.ms; package replica/topicconfig): a topic
	// without its own value takes the broker's, else Kafka's. segment.bytes
	// and max.message.bytes default to Replica.Log's SegmentBytes and
	// MaxBatchBytes when those are set. An unknown name or a value out of
	// range is refused by OpenBroker (ErrInvalidConfig).
	TopicDefaults map[string]string
	// LogRetentionCheckIntervalMs is how often the broker applies its
	// topics' retention and compaction (broker_retention.go; Kafka's
	// log.retention.check.interval.ms); 0 means
	// DefaultLogRetentionCheckIntervalMs.
	LogRetentionCheckIntervalMs int64

	mutations mutation.Rules // the simulator's unsafe rules (broker_groups_mutations.go)
}

// housekeepingMs returns v, or def when v <= 0.
func housekeepingMs(v, def int64) int64 {
	if v <= 0 {
		return def
	}
	return v
}

// replicaFetchWaitMs is the MaxWaitMs of a continuous follower's fetches.
func (c BrokerConfig) replicaFetchWaitMs() int32 {
	if c.ReplicaFetchWaitMs <= 0 {
		return DefaultReplicaFetchWaitMs
	}
	return c.ReplicaFetchWaitMs
}

func (c BrokerConfig) heartbeatMs() int64 {
	if c.HeartbeatIntervalMs <= 0 {
		return DefaultHeartbeatIntervalMs
	}
	return c.HeartbeatIntervalMs
}

func (c BrokerConfig) requestTimeoutMs() int64 {
	if c.RequestTimeoutMs <= 0 {
		return DefaultRequestTimeoutMs
	}
	return c.RequestTimeoutMs
}

// lifecycleTimeoutMs is how long a registration or heartbeat is waited
// for: the request timeout, at most half the session timeout, as Kafka's
// lifecycle channel (KAFKA-14392).
func (c BrokerConfig) lifecycleTimeoutMs() int64 {
	session := c.SessionTimeoutMs
	if session <= 0 {
		session = controller.DefaultSessionTimeoutMs
	}
	return max(1, min(c.requestTimeoutMs(), session/2))
}

func (c BrokerConfig) metadataMaxWaitMs() int32 {
	if c.MetadataMaxWaitMs <= 0 {
		return DefaultMetadataMaxWaitMs
	}
	return c.MetadataMaxWaitMs
}

func (c BrokerConfig) maxFetchResponseBytes() int {
	if c.MaxFetchResponseBytes <= 0 {
		return DefaultMaxFetchResponseBytes
	}
	return int(c.MaxFetchResponseBytes)
}

// checkSizes refuses sizes that could stall replication: every batch a
// leader accepts must fit one fetch response, and the largest fetch
// response — its budget plus the one batch KIP-74 lets it run over —
// must fit one frame, with room to spare for the response's headers.
func (c BrokerConfig) checkSizes() error {
	maxBatch := c.Replica.Log.MaxBatchBytes
	if maxBatch <= 0 {
		maxBatch = log.DefaultMaxBatchBytes
	}
	fetch := c.maxFetchResponseBytes()
	switch {
	case maxBatch > fetch:
		return fmt.Errorf("replica: broker %d: a batch of MaxBatchBytes %d would not fit a fetch response of MaxFetchResponseBytes %d: %w",
			c.ID, maxBatch, fetch, ErrInvalidConfig)
	case fetch+maxBatch > wire.DefaultMaxFrameSize-frameHeadroom:
		return fmt.Errorf("replica: broker %d: a fetch response of %d bytes plus a %d-byte batch would not fit a frame of %d: %w",
			c.ID, fetch, maxBatch, wire.DefaultMaxFrameSize, ErrInvalidConfig)
	}
	return nil
}

// frameHeadroom is what a fetch response's headers may take beside its
// records: topic names and the fixed fields of every partition.
const frameHeadroom = 1 << 20

// TopicPartition names a partition.
type TopicPartition struct {
	Topic     string // the topic's name
	Partition int32  // the partition's index in the topic, >= 0
}

// String returns "topic-partition", the partition's directory name.
func (tp TopicPartition) String() string { return tp.Topic + "-" + strconv.Itoa(int(tp.Partition)) }

// cleanShutdownFile is the broker's clean-shutdown marker in its data
// directory: written last by Close, it holds the broker epoch the broker
// had, which its next registration sends as PreviousBrokerEpoch (KIP-966).
// Its absence at start means the broker stopped uncleanly.
const cleanShutdownFile = "broker-clean-shutdown"

// Broker is one broker: the partition replicas it hosts, what it knows of
// the cluster from the controller's metadata log, and its conversations
// with the controller, the other brokers and clients.
//
// It is a Node, a state machine like Replica: envelopes in, envelopes out,
// time handed in. A broker registers with the controller and heartbeats;
// it follows the controller's metadata log by fetching it, as KRaft brokers
// do, and takes each partition's role from what it reads there (leader,
// follower, the leader's ISR), never from anyone else; it serves produce,
// fetch, offsets and list-offsets requests for the partitions it leads,
// and as a follower fetches from each leader one request at a time,
// batching every partition it follows from that leader.
//
// A Broker is not safe for concurrent use.
type Broker struct {
	cfg    BrokerConfig
	fs     vfs.FS // the broker's files: its partitions' and its marker
	closed bool
	// halted is set when one of the broker's logs failed (a failed write
	// or fsync): the broker stops, as Kafka's stops when its last log
	// directory goes offline, and does nothing until it is restarted, which
	// re-verifies its files.
	halted error

	// epoch is the broker epoch the controller gave this incarnation, -1
	// until it is registered.
	epoch         int64
	previousEpoch int64 // from the clean-shutdown marker, or -1
	fenced        bool
	wantShutdown  bool
	// shutdownAsked is set once the heartbeat that starts the controlled
	// shutdown went out, shutdownPending once the controller first said
	// "not yet".
	shutdownAsked, shutdownPending bool
	shutdownReady                  bool

	image *controller.Image
	parts map[TopicPartition]*Replica
	// created holds, per hosted partition, the CreatedOffset of the topic
	// its replica belongs to, once known (broker_topics.go): a replica
	// whose topic is gone or was created again is deleted.
	created map[TopicPartition]uint64
	// stamped holds the CreatedOffset a partition directory opened at
	// start records (createdFile), until the image says whose it is.
	stamped map[TopicPartition]uint64
	// hosted is parts sorted by partition, rebuilt (never changed in
	// place) whenever parts changes: the per-event loops walk it without
	// sorting or allocating, and a walk in progress keeps its own copy.
	hosted []hostedReplica
	// followScratch is FetchRound's working list, reused.
	followScratch []hostedReplica

	corr    int32
	pending map[int32]outstanding // our requests awaiting an answer, by correlation id
	// fetching holds, per leader broker, the correlation id of the fetch (or
	// epoch question) in flight to it.
	fetching map[int32]int32
	// fetchReqs holds, per leader broker, the fetch request last sent to
	// it, reused for the next one: at most one is pending per leader.
	fetchReqs      map[int32]*wire.FetchRequest
	registering    bool
	nextRegisterMs int64
	// clusterID is the cluster id of Dir's stamp, or empty until the
	// first registration tells it.
	clusterID string
	// refused is the controller's last refusal of this incarnation's
	// registration, nil once it is registered; refusals counts them in a
	// row, for the backoff.
	refused           error
	refusals          int
	heartbeatInFlight bool
	metadataInFlight  bool
	nextMetadataMs    int64 // after a failed metadata fetch, when to try again
	nextHeartbeatMs   int64

	// The housekeeping clocks: when every log's high watermark and
	// recovery point are next checkpointed, and (FlushIntervalMs) fsynced.
	nextHWCheckpointMs, nextRecoveryCheckpointMs, nextFlushMs int64

	produceSeq uint64
	produces   map[uint64]*producing // client produces waiting on parked partitions
	// parkedFetches wait for data, a move of the high watermark or the
	// end of their MaxWaitMs (Kafka's DelayedFetch), oldest first.
	parkedFetches []parkedFetch
	// parkedWatches is what the last scan of parkedFetches saw of each
	// partition they wait on, parkedIndex their places by partition, and
	// parkedDue whether a fetch parked since; parkedDeadlineMs is the
	// earliest deadline among parkedFetches (while there are any). While nothing of those partitions
	// changed, no fetch parked and no deadline passed, a scan would answer
	// nothing, so it is skipped (completeParkedFetches).
	parkedWatches    []parkedWatch
	parkedIndex      map[TopicPartition]struct{}
	parkedDue        bool
	parkedDeadlineMs int64

	// fetchArena holds the records of the fetch responses answered in one
	// event (fetchArenaUsed of them), reused from event to event, and
	// fetchResps the responses themselves, in step with it.
	fetchArena     [][]byte
	fetchResps     []*wire.FetchResponse
	fetchArenaUsed int
	// fetchBudget, if set, bounds each fetch response's records
	// (SetFetchBudget).
	fetchBudget FetchBudget
	// freeProducing holds produce responses to reuse; retired those
	// answered in this event, reusable once the outbox is handed out.
	freeProducing, retired []*producing
	// freeMarks holds the marks of parked fetches that ended, for reuse.
	freeMarks   [][]fetchMark
	outbox      []Envelope
	outboxSpare []Envelope // the outbox handed out last, reused next
	// forwards are the clients' requests this broker sent on to the
	// controller, by the correlation id it sent them with
	// (broker_metadata.go).
	forwards map[int32]forwarded
	// autoCreating are the topics a Metadata request's AutoCreate is
	// creating, by the correlation id of the CreateTopics in flight;
	// autoCreateFailed the refusal of the last attempt, answered once.
	autoCreating     map[string]int32
	autoCreateFailed map[string]wire.ErrorCode
	// isrShrinks and isrExpands count the committed ISR changes of the
	// partitions this broker leads (broker_metrics.go).
	isrShrinks, isrExpands uint64
	// autoCreateOrder is autoCreateFailed's names oldest first (with names
	// since answered among them), for evicting at maxAutoCreateHeld.
	autoCreateOrder []string
	// groups are the group coordinators this broker hosts
	// (broker_groups.go), nil until the first group request or
	// partition of __consumer_offsets.
	groups *groupHost
	// topicDefaults are the broker's topic config defaults; the retention
	// check is next due at nextRetentionMs; the cleaner's turn and what
	// it last compacted (broker_retention.go).
	topicDefaults   map[string]string
	nextRetentionMs int64
	cleanerTurn     uint64
	cleaned         map[TopicPartition]cleanMark
}

// outstanding is a request this broker sent and awaits the answer to.
type outstanding struct {
	to  Addr
	msg wire.Message
	// deadlineMs is when the request is given up and may be sent again:
	// the request timeout after it was sent, or sooner once the
	// connection it went on broke (Disconnected).
	deadlineMs int64
}

// producing is a client's produce request with partitions still parked.
type producing struct {
	from Addr
	resp wire.ProduceResponse
	left int
}

// OpenBroker opens the broker's data directory — every partition directory
// in it, each recovering its log — and queues its registration with the
// controller. A broker whose clean-shutdown marker is missing registers as
// having stopped uncleanly: the controller takes it out of every ISR until
// it catches up again (KIP-966).
func OpenBroker(cfg BrokerConfig, nowMs int64) (*Broker, error) {
	if cfg.ID < 0 {
		return nil, fmt.Errorf("replica: broker id %d: ids are >= 0: %w", cfg.ID, ErrInvalidConfig)
	}
	if cfg.IncarnationID == ([16]byte{}) {
		// The controller refuses it at every registration: fail here, where
		// the mistake is, not in a broker that never joins.
		return nil, fmt.Errorf("replica: broker %d: the zero IncarnationID: %w", cfg.ID, ErrInvalidConfig)
	}
	if err := cfg.checkSizes(); err != nil {
		return nil, err
	}
	topicDefaults, err := cfg.topicDefaults()
	if err != nil {
		return nil, err
	}
	fsys := cfg.Replica.Log.FS
	if fsys == nil {
		fsys = vfs.OS()
	}
	if err := fsys.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("replica: broker %d: %w", cfg.ID, storageError(err))
	}
	// The directory's name durable before anything in it is acknowledged
	// (a broker starts rarely: one fsync, whether it was new or not).
	if err := fsys.SyncDir(filepath.Dir(cfg.Dir)); err != nil {
		return nil, fmt.Errorf("replica: broker %d: %w", cfg.ID, storageError(err))
	}
	// The stamp before anything else is read: a directory that is another
	// node's is not touched.
	stamp, _, err := metaprops.Ensure(fsys, cfg.Dir, metaprops.Properties{ClusterID: cfg.ClusterID, NodeID: cfg.ID, Role: metaprops.RoleBroker})
	if err != nil {
		return nil, fmt.Errorf("replica: broker %d: %w", cfg.ID, err)
	}
	b := &Broker{
		cfg: cfg, fs: fsys, epoch: -1, previousEpoch: -1, clusterID: stamp.ClusterID,
		image: controller.NewImage(), parts: map[TopicPartition]*Replica{}, created: map[TopicPartition]uint64{}, stamped: map[TopicPartition]uint64{},
		pending: map[int32]outstanding{}, fetching: map[int32]int32{}, fetchReqs: map[int32]*wire.FetchRequest{},
		produces: map[uint64]*producing{}, topicDefaults: topicDefaults,
		nextRetentionMs: clock.Deadline(nowMs, cfg.retentionCheckMs()),
	}
	b.cfg.Replica.Brokers = brokersView{b}
	b.nextHWCheckpointMs = clock.Deadline(nowMs, housekeepingMs(cfg.HighWatermarkCheckpointIntervalMs, DefaultHighWatermarkCheckpointIntervalMs))
	b.nextRecoveryCheckpointMs = clock.Deadline(nowMs, housekeepingMs(cfg.RecoveryPointCheckpointIntervalMs, DefaultRecoveryPointCheckpointIntervalMs))
	b.nextFlushMs = clock.Never
	if cfg.FlushIntervalMs > 0 {
		b.nextFlushMs = clock.Deadline(nowMs, cfg.FlushIntervalMs)
	}
	prev, err := takeCleanShutdown(fsys, cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("replica: broker %d: %w", cfg.ID, storageError(err))
	}
	b.previousEpoch = prev
	entries, err := fsys.ReadDir(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("replica: broker %d: %w", cfg.ID, storageError(err))
	}
	for _, e := range entries {
		tp, ok := parsePartitionDir(e.Name)
		if !ok || e.Regular {
			continue
		}
		if dir := filepath.Join(cfg.Dir, e.Name); b.markedForDeletion(dir) {
			// A deletion the last process did not finish.
			if err := b.finishDeletion(dir); err != nil {
				return nil, errors.Join(fmt.Errorf("replica: broker %d: finishing the deletion of %s: %w", cfg.ID, tp, storageError(err)), b.closeReplicas())
			}
			continue
		}
		if _, err := b.open(tp); err != nil {
			return nil, errors.Join(err, b.closeReplicas())
		}
		if created, ok := b.readCreated(tp); ok {
			b.stamped[tp] = created
		}
	}
	b.register(nowMs)
	return b, nil
}

// ID returns the broker id.
func (b *Broker) ID() int32 { return b.cfg.ID }

// Epoch returns the broker epoch of this incarnation, or -1 before the
// controller answered its registration.
func (b *Broker) Epoch() int64 { return b.epoch }

// Fenced reports whether the controller last said this broker is fenced
// (registered but not yet caught up with the metadata, or its session
// expired).
func (b *Broker) Fenced() bool { return b.epoch < 0 || b.fenced }

// Image returns the metadata this broker has applied (read it, do not
// change it).
func (b *Broker) Image() *controller.Image { return b.image }

// LogOptions returns the options every hosted log opens with, the
// zero fields meaning the log package's defaults: what a Kafka listener
// reports as the topics' segment.bytes and max.message.bytes.
func (b *Broker) LogOptions() log.Options { return b.cfg.Replica.Log }

// Replica returns the hosted replica of a partition.
func (b *Broker) Replica(tp TopicPartition) (*Replica, bool) {
	r, ok := b.parts[tp]
	return r, ok
}

// leaderFor returns the hosted replica of tp, or the refusal a client gets
// when this broker does not host it (NOT_LEADER_OR_FOLLOWER for a partition
// the metadata knows, UNKNOWN_TOPIC_OR_PARTITION otherwise). Whether the
// replica leads is the replica's to say.
func (b *Broker) leaderFor(tp TopicPartition) (*Replica, error) {
	if r, ok := b.parts[tp]; ok {
		return r, nil
	}
	if _, ok := b.image.Partition(tp.Topic, tp.Partition); ok {
		return nil, fmt.Errorf("replica: broker %d does not host %s: %w", b.cfg.ID, tp, wire.ErrNotLeaderOrFollower)
	}
	return nil, fmt.Errorf("replica: broker %d: no partition %s: %w", b.cfg.ID, tp, wire.ErrUnknownTopicOrPartition)
}

// Partitions returns the hosted partitions, sorted.
func (b *Broker) Partitions() []TopicPartition {
	tps := make([]TopicPartition, len(b.hosted))
	for i, h := range b.hosted {
		tps[i] = h.tp
	}
	return tps
}

// hostedReplica is one entry of Broker.hosted.
type hostedReplica struct {
	tp TopicPartition
	r  *Replica
}

// rehost rebuilds b.hosted from b.parts, sorted by topic then partition.
func (b *Broker) rehost() {
	hosted := make([]hostedReplica, 0, len(b.parts))
	for tp, r := range b.parts {
		hosted = append(hosted, hostedReplica{tp, r})
	}
	slices.SortFunc(hosted, func(x, y hostedReplica) int {
		if c := strings.Compare(x.tp.Topic, y.tp.Topic); c != 0 {
			return c
		}
		return cmp.Compare(x.tp.Partition, y.tp.Partition)
	})
	b.hosted = hosted
}

// Outbox returns the envelopes to send and forgets them. The slice, the
// produce and fetch responses among them and a fetch response's records
// alias the broker's buffers: they are valid until the broker's next
// event (Receive, Tick, ...) or the next Outbox, so a transport encodes
// or copies them first, in order. A follower's records may also alias a
// parked acks=all produce request's records, which the broker keeps until
// it answers that produce (see Node): its response always comes in a
// later outbox than such a fetch response, or later in the same one.
func (b *Broker) Outbox() []Envelope {
	out := b.outbox
	// Two slices take turns, so that an outbox costs no allocation: the
	// one handed out last time is done with by now.
	clear(b.outboxSpare)
	b.outbox, b.outboxSpare = b.outboxSpare[:0], out
	b.fetchArenaUsed = 0
	b.trimFetchArena()
	b.freeProducing = append(b.freeProducing, b.retired...)
	clear(b.retired)
	b.retired = b.retired[:0]
	return out
}

// send queues a request and remembers it.
func (b *Broker) send(to Addr, msg wire.Message, nowMs int64) {
	b.pending[msg.Correlation()] = outstanding{to: to, msg: msg, deadlineMs: clock.Deadline(nowMs, b.timeoutMs(to, msg))}
	b.outbox = append(b.outbox, Envelope{From: BrokerAt(b.cfg.ID), To: to, Msg: msg})
}

// reply queues a response.
func (b *Broker) reply(to Addr, msg wire.Message) {
	b.outbox = append(b.outbox, Envelope{From: BrokerAt(b.cfg.ID), To: to, Response: true, Msg: msg})
}

func (b *Broker) nextCorrelation() int32 {
	b.corr++
	return b.corr
}

// Receive handles one envelope at nowMs: a request from a client or another
// broker, or the answer to a request of its own.
func (b *Broker) Receive(env Envelope, nowMs int64) {
	if b.closed || b.halted != nil {
		return
	}
	defer b.checkLogs()
	if env.Response {
		b.receiveResponse(env, nowMs)
	} else {
		b.receiveRequest(env, nowMs)
	}
	b.collect(nowMs)
}

func (b *Broker) receiveRequest(env Envelope, nowMs int64) {
	switch m := env.Msg.(type) {
	case *wire.ProduceRequest:
		b.handleProduce(env.From, m, nowMs)
	case *wire.FetchRequest:
		b.handleFetch(env.From, m, nowMs)
	case *wire.OffsetsForLeaderEpochRequest:
		b.reply(env.From, b.handleOffsetsForLeaderEpoch(m))
	case *wire.ListOffsetsRequest:
		b.reply(env.From, b.handleListOffsets(m))
	case *wire.MetadataRequest:
		b.reply(env.From, b.handleMetadata(m, nowMs))
	case *wire.InitProducerIDRequest, *wire.CreateTopicsRequest, *wire.DeleteTopicsRequest, *wire.ElectLeadersRequest,
		*wire.CreatePartitionsRequest, *wire.AlterPartitionReassignmentsRequest, *wire.ListPartitionReassignmentsRequest, *wire.IncrementalAlterConfigsRequest:
		b.forward(env.From, m, nowMs)
	case *GroupRequest:
		b.handleGroupRequest(env.From, m, nowMs)
	}
	// Anything else is not a broker's to serve; a transport that decoded it
	// closes the connection (the wire has no response for an unknown API).
}

func (b *Broker) receiveResponse(env Envelope, nowMs int64) {
	out, ok := b.pending[env.Msg.Correlation()]
	if !ok || out.to != env.From || out.msg.APIKey() != env.Msg.APIKey() {
		return // late, duplicated or misrouted: not an answer to anything we wait for
	}
	delete(b.pending, env.Msg.Correlation())
	switch m := env.Msg.(type) {
	case *wire.BrokerRegistrationResponse:
		b.onRegistered(m, nowMs)
	case *wire.BrokerHeartbeatResponse:
		b.onHeartbeat(m, nowMs)
	case *wire.FetchResponse:
		if env.From.Kind == ControllerAddr {
			b.onMetadata(m, nowMs)
		} else {
			b.onFetched(env.From.ID, out.msg.(*wire.FetchRequest), m, nowMs)
		}
	case *wire.OffsetsForLeaderEpochResponse:
		b.onEpochAnswers(env.From.ID, out.msg.(*wire.OffsetsForLeaderEpochRequest), m, nowMs)
	case *wire.AlterPartitionResponse:
		b.onAlterPartition(out.msg.(*wire.AlterPartitionRequest), m, nowMs)
	case *wire.InitProducerIDResponse, *wire.CreateTopicsResponse, *wire.DeleteTopicsResponse, *wire.ElectLeadersResponse,
		*wire.CreatePartitionsResponse, *wire.AlterPartitionReassignmentsResponse, *wire.ListPartitionReassignmentsResponse, *wire.IncrementalAlterConfigsResponse:
		b.onForwarded(m)
	}
}

// Disconnected tells the broker that the connection to or from peer broke:
// a transport calls it. Requests this broker sent to peer are given up
// after a short backoff (DefaultReconnectBackoffMs) instead of the request
// timeout, so they are sent again as soon as the transport may have
// reconnected; requests from peer waiting in the broker (parked fetches
// and produces) are dropped, since their answers have nowhere to go.
func (b *Broker) Disconnected(peer Addr, nowMs int64) {
	if b.closed || b.halted != nil {
		return
	}
	retryAt := clock.Deadline(nowMs, DefaultReconnectBackoffMs)
	for corr, out := range b.pending {
		if out.to == peer && out.deadlineMs > retryAt {
			out.deadlineMs = retryAt
			b.pending[corr] = out
		}
	}
	kept := b.parkedFetches[:0]
	for _, pf := range b.parkedFetches {
		if pf.from != peer {
			kept = append(kept, pf)
		} else {
			b.dropParked(&pf)
		}
	}
	clear(b.parkedFetches[len(kept):])
	b.parkedFetches = kept
	b.parkedDeadlineMs = clock.Never
	for i := range b.parkedFetches {
		b.parkedDeadlineMs = min(b.parkedDeadlineMs, b.parkedFetches[i].deadlineMs)
	}
	for seq, w := range b.produces {
		if w.from == peer {
			delete(b.produces, seq)
			b.retired = append(b.retired, w)
		}
	}
}

// Tick does the broker's timed work due at nowMs: heartbeats, resending
// requests that went unanswered, every hosted replica's own timed work
// (the ISR check, produce deadlines), and — with ContinuousFetch — fetches
// whose backoff ended.
func (b *Broker) Tick(nowMs int64) {
	if b.closed || b.halted != nil {
		return
	}
	defer b.checkLogs()
	for corr, out := range b.pending {
		if nowMs >= out.deadlineMs {
			delete(b.pending, corr)
			b.forget(out, nowMs)
		}
	}
	if b.epoch < 0 && !b.registering && nowMs >= b.nextRegisterMs {
		b.register(nowMs)
	}
	if b.epoch >= 0 && nowMs >= b.nextHeartbeatMs && !b.heartbeatInFlight {
		b.heartbeat(nowMs)
	}
	for _, h := range b.hosted {
		h.r.Tick(nowMs)
	}
	b.housekeeping(nowMs)
	b.cleanLogs(nowMs)
	b.collect(nowMs)
}

// housekeeping writes the checkpoints that are due, and fsyncs the logs
// when FlushIntervalMs asks for it. A failure fails that log, and so halts
// the broker (checkLogs): a checkpoint that cannot be written is a disk
// that cannot be trusted.
func (b *Broker) housekeeping(nowMs int64) {
	due := func(next *int64, every int64, do func(l *log.Log) error) {
		if nowMs < *next {
			return
		}
		*next = clock.Deadline(nowMs, every)
		for _, h := range b.hosted {
			_ = do(h.r.Log()) // a failure is the log's failed state, which checkLogs reads
		}
	}
	due(&b.nextFlushMs, b.cfg.FlushIntervalMs, (*log.Log).Flush)
	due(&b.nextHWCheckpointMs, housekeepingMs(b.cfg.HighWatermarkCheckpointIntervalMs, DefaultHighWatermarkCheckpointIntervalMs), (*log.Log).CheckpointHighWatermark)
	due(&b.nextRecoveryCheckpointMs, housekeepingMs(b.cfg.RecoveryPointCheckpointIntervalMs, DefaultRecoveryPointCheckpointIntervalMs), (*log.Log).CheckpointRecoveryPoint)
}

// timeoutMs is how long a request msg to to is waited for before it is
// sent again.
func (b *Broker) timeoutMs(to Addr, msg wire.Message) int64 {
	switch msg.(type) {
	case *wire.BrokerRegistrationRequest, *wire.BrokerHeartbeatRequest:
		return b.cfg.lifecycleTimeoutMs()
	case *wire.FetchRequest:
		if to.Kind == ControllerAddr {
			// A long poll: its wait, then as long as a heartbeat.
			return min(b.cfg.requestTimeoutMs(), int64(b.cfg.metadataMaxWaitMs())+b.cfg.lifecycleTimeoutMs())
		}
	}
	return b.cfg.requestTimeoutMs()
}

// forget clears the in-flight marks of a request given up at nowMs, so
// that it is sent again.
func (b *Broker) forget(out outstanding, nowMs int64) {
	switch m := out.msg.(type) {
	case *wire.BrokerRegistrationRequest:
		b.registering = false
	case *wire.BrokerHeartbeatRequest:
		b.heartbeatInFlight = false
		b.nextHeartbeatMs = min(b.nextHeartbeatMs, nowMs) // the session needs one: again now
	case *wire.FetchRequest:
		if out.to.Kind == ControllerAddr {
			b.metadataInFlight = false
		} else if b.fetching[out.to.ID] == m.CorrelationID {
			delete(b.fetching, out.to.ID)
		}
	case *wire.OffsetsForLeaderEpochRequest:
		if b.fetching[out.to.ID] == m.CorrelationID {
			delete(b.fetching, out.to.ID)
		}
	case *wire.InitProducerIDRequest, *wire.CreateTopicsRequest, *wire.DeleteTopicsRequest, *wire.ElectLeadersRequest,
		*wire.CreatePartitionsRequest, *wire.AlterPartitionReassignmentsRequest, *wire.ListPartitionReassignmentsRequest, *wire.IncrementalAlterConfigsRequest:
		b.forwardTimedOut(m.Correlation())
	}
}

// checkLogs halts the broker if one of its logs failed: it drops whatever
// it was about to send (answers computed with a failed log prove nothing)
// and goes silent.
func (b *Broker) checkLogs() {
	for _, h := range b.hosted {
		if err := h.r.Log().Failed(); err != nil {
			b.halted = fmt.Errorf("replica: broker %d halted: the log of %s failed: %w", b.cfg.ID, h.tp, storageError(err))
			b.outbox = nil
			return
		}
	}
}

// RolledUnflushedLogs appends to dst the logs of the hosted replicas that
// have rolled segments waiting for an fsync ([log.Log.RolledUnflushed]),
// and returns the extended slice (a runtime asks after every event: with
// its own dst, the question allocates nothing).
// Kafka fsyncs a segment on its scheduler after it rolls; a runtime does
// the same by calling [log.Log.FlushRolled] on each, outside its node lock
// (the fsyncs run without the log's append lock, and a log closed
// meanwhile answers [log.ErrClosed]). A failure fails the log, and the
// broker halts at its next event. A closed or halted broker has none.
// It only asks: the deterministic runtimes need not call it.
func (b *Broker) RolledUnflushedLogs(dst []*log.Log) []*log.Log {
	if b.closed || b.halted != nil {
		return dst
	}
	for _, h := range b.hosted {
		if l := h.r.Log(); l.RolledUnflushed() {
			dst = append(dst, l)
		}
	}
	return dst
}

// Halted returns nil while the broker runs, or why it stopped: one of its
// logs failed, or the controller refused it as a broker of another cluster
// (wire.ErrInconsistentClusterID). A halted broker does nothing until it is
// restarted (its logs then re-verify their files); its controller session
// expires meanwhile, so the controller moves its leaderships away.
func (b *Broker) Halted() error { return b.halted }

// NextTickMs returns when Tick next has work.
func (b *Broker) NextTickMs() int64 {
	next := clock.Never
	if b.closed || b.halted != nil {
		return next
	}
	if b.epoch >= 0 && !b.heartbeatInFlight {
		next = b.nextHeartbeatMs
	}
	if b.epoch < 0 && !b.registering {
		next = min(next, b.nextRegisterMs)
	}
	if b.epoch >= 0 && !b.metadataInFlight {
		next = min(next, b.nextMetadataMs)
	}
	next = min(next, b.nextHWCheckpointMs, b.nextRecoveryCheckpointMs, b.nextFlushMs, b.nextRetentionMs)
	for _, out := range b.pending {
		next = min(next, out.deadlineMs)
	}
	if len(b.parkedFetches) > 0 {
		next = min(next, b.parkedDeadlineMs)
	}
	for _, r := range b.parts {
		next = min(next, r.NextTickMs())
	}
	return b.groupsNextTickMs(next)
}

// collect gathers what the hosted replicas produced while handling the
// last event (answers to parked produces, ISR proposals) and, with
// ContinuousFetch, sends the fetches that can go now.
func (b *Broker) collect(nowMs int64) {
	for _, h := range b.hosted {
		tp, r := h.tp, h.r
		r.drainProduceOutcomes(b.produceDone)
		if req, ok := r.AlterPartition(nowMs); ok && b.epoch >= 0 {
			m := new(wire.AlterPartitionRequest) // only now: &req would put every event's req on the heap
			*m = req
			m.CorrelationID = b.nextCorrelation()
			m.BrokerID, m.BrokerEpoch = b.cfg.ID, b.epoch
			m.Topic, m.Partition = tp.Topic, tp.Partition
			b.send(ControllerAt(), m, nowMs)
		}
	}
	if b.epoch >= 0 && !b.metadataInFlight && nowMs >= b.nextMetadataMs {
		b.fetchMetadata(nowMs)
	}
	b.pumpGroups(nowMs)
	b.completeParkedFetches(nowMs)
	if b.cfg.ContinuousFetch {
		b.FetchRound(nowMs)
	}
	// A controlled shutdown starts with a heartbeat at once, as Kafka's
	// BrokerLifecycleManager sends one; later ones keep the schedule.
	if b.wantShutdown && !b.shutdownAsked && !b.heartbeatInFlight && b.epoch >= 0 && !b.shutdownReady {
		b.shutdownAsked = true
		b.heartbeat(nowMs)
	}
}

// ---- the controller's side of the conversation ----

func (b *Broker) register(nowMs int64) {
	if b.registering {
		return
	}
	b.registering = true
	b.send(ControllerAt(), &wire.BrokerRegistrationRequest{
		CorrelationID:       b.nextCorrelation(),
		BrokerID:            b.cfg.ID,
		IncarnationID:       b.cfg.IncarnationID,
		Endpoint:            b.cfg.Endpoint,
		KafkaEndpoint:       b.cfg.KafkaEndpoint,
		PreviousBrokerEpoch: b.previousEpoch,
		LostData:            b.lostData(),
		ClusterID:           b.clusterID,
	}, nowMs)
}

// lostData reports whether any hosted log came back without records it had
// committed or flushed: recovery cut data below its recovery point (with
// log.Options.Repair), or its high-watermark checkpoint was above what it
// recovered. Such a broker registers as unclean whatever its marker says,
// so the controller takes it out of every ISR and ELR until it has caught
// up again.
func (b *Broker) lostData() bool {
	for _, r := range b.parts {
		rep := r.Recovery()
		if rep.LostFlushedData || rep.HighWatermarkClamped {
			return true
		}
	}
	return false
}

func (b *Broker) onRegistered(m *wire.BrokerRegistrationResponse, nowMs int64) {
	b.registering = false
	switch m.ErrorCode {
	case wire.CodeNone:
	case wire.CodeDuplicateBrokerRegistration:
		// Another process has this id, or this one's previous process
		// died and its session has not expired yet: ask again, backing
		// off, and leave the live one alone.
		b.refusals++
		wait := b.registrationBackoffMs()
		b.nextRegisterMs = nowMs + wait
		b.refused = fmt.Errorf("replica: broker %d: the controller refused the registration: another incarnation of broker %d has a live session (a second process with this id, or this broker's previous process, whose session has not expired yet); trying again in %d ms: %w",
			b.cfg.ID, b.cfg.ID, wait, wire.ErrDuplicateBrokerRegistration)
		return
	case wire.CodeInconsistentClusterID:
		// The directory is another cluster's: asking again cannot help.
		b.halted = fmt.Errorf("replica: broker %d halted: its data directory %s belongs to cluster %s, the controller's cluster is %s: %w",
			b.cfg.ID, b.cfg.Dir, b.clusterID, m.ClusterID, wire.ErrInconsistentClusterID)
		b.refused = b.halted
		return
	default:
		b.refused = fmt.Errorf("replica: broker %d: the controller refused the registration: %w", b.cfg.ID, m.ErrorCode.Err())
		b.nextRegisterMs = nowMs + b.cfg.heartbeatMs() // try again after a heartbeat interval
		return
	}
	if b.clusterID == "" && m.ClusterID != "" {
		// The first registration tells the broker its cluster: stamped
		// before the broker hosts anything of it.
		stamp, _, err := metaprops.Ensure(b.fs, b.cfg.Dir, metaprops.Properties{ClusterID: m.ClusterID, NodeID: b.cfg.ID, Role: metaprops.RoleBroker})
		if err != nil {
			b.halted = fmt.Errorf("replica: broker %d halted: stamping cluster %s: %w", b.cfg.ID, m.ClusterID, storageError(err))
			return
		}
		b.clusterID = stamp.ClusterID
	}
	b.refused, b.refusals = nil, 0
	b.epoch = m.BrokerEpoch
	b.fenced = true
	b.nextHeartbeatMs = nowMs
	b.heartbeat(nowMs)
}

// registrationBackoffMs is the wait after the latest of b.refusals refusals
// in a row.
func (b *Broker) registrationBackoffMs() int64 {
	session := b.cfg.SessionTimeoutMs
	if session <= 0 {
		session = controller.DefaultSessionTimeoutMs
	}
	limit := max(registrationBackoffMs, session/2)
	wait := int64(registrationBackoffMs)
	for i := 1; i < b.refusals && wait < limit; i++ {
		wait *= 2
	}
	return min(wait, limit)
}

// RegistrationRefused returns the controller's last refusal of this
// broker's registration, or nil: before the first answer and once it is
// registered. A broker refused with wire.CodeDuplicateBrokerRegistration
// (the error matches wire.ErrDuplicateBrokerRegistration) asks again with
// a backoff, from 100 ms doubling up to half the session timeout, until
// the other incarnation's session is over; one refused with
// wire.CodeInconsistentClusterID halts (see Halted). A runtime shows it to
// the operator.
func (b *Broker) RegistrationRefused() error { return b.refused }

// ClusterID returns the cluster id of the broker's data directory, or
// empty until its first registration tells it.
func (b *Broker) ClusterID() string { return b.clusterID }

func (b *Broker) heartbeat(nowMs int64) {
	b.heartbeatInFlight = true
	b.shutdownAsked = b.shutdownAsked || b.wantShutdown
	b.nextHeartbeatMs = nowMs + b.cfg.heartbeatMs()
	b.send(ControllerAt(), &wire.BrokerHeartbeatRequest{
		CorrelationID:  b.nextCorrelation(),
		BrokerID:       b.cfg.ID,
		BrokerEpoch:    b.epoch,
		MetadataOffset: b.image.EndOffset(),
		WantShutDown:   b.wantShutdown,
	}, nowMs)
}

func (b *Broker) onHeartbeat(m *wire.BrokerHeartbeatResponse, nowMs int64) {
	b.heartbeatInFlight = false
	switch m.ErrorCode {
	case wire.CodeNone:
		b.fenced = m.IsFenced
		b.shutdownReady = m.ShouldShutDown
		if b.wantShutdown && !m.ShouldShutDown && !b.shutdownPending {
			// The first "not yet": ask again a little sooner than usual,
			// as Kafka does, since a shutdown often completes quickly.
			b.shutdownPending = true
			b.nextHeartbeatMs = min(b.nextHeartbeatMs, nowMs+controlledShutdownRetryMs)
		}
	case wire.CodeStaleBrokerEpoch, wire.CodeBrokerIDNotRegistered:
		// The controller does not know this incarnation (it lost the
		// registration, or a newer one exists): register again. Until
		// then this process is not broker b.cfg.ID to the cluster, and it
		// fetches no metadata that could tell it whom its partitions
		// follow now: it stops leading (see stepDown).
		b.epoch = -1
		b.fenced = true
		b.stepDown()
		b.register(nowMs)
	}
}

// stepDown makes every partition this broker leads leaderless in its own
// view, at the leader and partition epochs it holds: its produces and
// follower fetches are refused (NOT_LEADER_OR_FOLLOWER) and its parked
// produces end. A broker that lost its registration calls it: another
// process may have registered with its id, and this one, which fetches no
// metadata until it registers again, would otherwise lead in its own view
// for as long as it is refused, acknowledging writes (acks=all too, with
// an ISR of itself) that no replica the cluster knows holds. Once
// registered, the metadata gives each partition its role again.
func (b *Broker) stepDown() {
	for _, h := range b.hosted {
		h.r.resign()
	}
}

func (b *Broker) fetchMetadata(nowMs int64) {
	b.metadataInFlight = true
	b.send(ControllerAt(), &wire.FetchRequest{
		CorrelationID: b.nextCorrelation(),
		ReplicaID:     wire.ConsumerReplicaID,
		ReplicaEpoch:  -1,
		MaxWaitMs:     b.cfg.metadataMaxWaitMs(),
		MaxBytes:      int32(b.cfg.maxFetchResponseBytes()),
		Partitions: []wire.FetchPartition{{
			Topic: controller.MetadataTopic, Partition: 0,
			CurrentLeaderEpoch: wire.NoEpoch, FetchOffset: b.image.EndOffset(),
			LastFetchedEpoch: wire.NoEpoch, MaxBytes: int32(b.cfg.maxFetchResponseBytes()),
		}},
	}, nowMs)
}

// onMetadata applies the metadata records the controller sent and brings
// every hosted partition's role in line with them.
func (b *Broker) onMetadata(m *wire.FetchResponse, nowMs int64) {
	b.metadataInFlight = false
	// A refused fetch, or one whose records cannot be applied, is tried
	// again after a backoff: the controller answers it at once, so trying
	// at once would be a hot loop against it.
	backoff := nowMs + int64(b.cfg.metadataMaxWaitMs())
	if len(m.Partitions) != 1 || m.Partitions[0].ErrorCode != wire.CodeNone {
		b.nextMetadataMs = backoff
		return
	}
	if err := b.image.ApplyBatches(m.Partitions[0].Records); err != nil {
		// A broker that cannot follow the controller must not act on a
		// half-applied image; it stops applying and keeps what it has.
		b.nextMetadataMs = backoff
		return
	}
	if b.epoch >= 0 {
		// An answer that arrives after the registration was lost
		// updates the image but gives no roles (see stepDown).
		b.applyImage(nowMs)
	}
	// A fenced broker is unfenced by the first heartbeat showing it has
	// applied its own registration: send it now rather than at the next
	// interval, so a (re)started broker serves as soon as it has caught up.
	if b.fenced && b.epoch >= 0 && b.image.EndOffset() > uint64(b.epoch) && !b.heartbeatInFlight {
		b.heartbeat(nowMs)
	}
}

// applyImage deletes the replicas of deleted topics and makes every
// partition this broker is assigned take the role the image gives it.
func (b *Broker) applyImage(nowMs int64) {
	b.removeDeletedReplicas()
	if b.halted != nil {
		return
	}
	for _, p := range b.image.Partitions() {
		if !slices.Contains(p.Replicas, b.cfg.ID) {
			continue
		}
		tp := TopicPartition{p.Topic, p.Partition}
		r, ok := b.parts[tp]
		if !ok {
			var err error
			if r, err = b.open(tp); err != nil {
				continue
			}
			if t, ok := b.image.Topic(p.Topic); ok {
				b.created[tp] = t.CreatedOffset
				if err := b.stampCreated(tp, t.CreatedOffset); err != nil {
					b.halted = fmt.Errorf("replica: broker %d halted: recording the topic of %s: %w", b.cfg.ID, tp, storageError(err))
					return
				}
			}
		}
		b.applyTopicConfig(r, p.Topic) // a config change moves no epoch
		if r.LeaderEpoch() == p.LeaderEpoch && r.PartitionEpoch() == p.PartitionEpoch &&
			(r.Role() == RoleLeader) == (p.Leader == b.cfg.ID) && r.LeaderID() == p.Leader {
			continue
		}
		minISR := 1
		if t, ok := b.image.Topic(p.Topic); ok {
			minISR = int(t.MinISR)
		}
		st := PartitionState{
			Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch,
			Replicas: p.Replicas, ISR: p.ISR, MinISR: minISR,
		}
		if p.Leader == b.cfg.ID {
			before := committedISR(r, p.LeaderEpoch)
			_ = r.BecomeLeader(st, nowMs)
			b.countISRChange(before, r)
		} else {
			_ = r.BecomeFollower(st, nowMs)
		}
	}
}

func (b *Broker) onAlterPartition(sent *wire.AlterPartitionRequest, m *wire.AlterPartitionResponse, nowMs int64) {
	if r, ok := b.parts[TopicPartition{sent.Topic, sent.Partition}]; ok {
		before := committedISR(r, r.LeaderEpoch())
		_ = r.ApplyAlterPartition(sent, m, nowMs)
		b.countISRChange(before, r)
	}
}

// BeginShutdown starts a controlled shutdown: the broker asks the
// controller (in its heartbeats) to move its leadership away and take it
// out of the ISRs. ShutdownReady reports when the controller agreed; the
// caller then calls Close.
func (b *Broker) BeginShutdown() { b.wantShutdown = true }

// ShutdownReady reports whether the controller has let this broker go.
func (b *Broker) ShutdownReady() bool { return b.shutdownReady }

// brokersView is the Brokers a leader consults: this broker's image.
type brokersView struct{ b *Broker }

func (v brokersView) BrokerEpoch(id int32) (int64, bool) {
	reg, ok := v.b.image.Broker(id)
	return reg.Epoch, ok
}

func (v brokersView) ISREligible(id int32) bool {
	reg, ok := v.b.image.Broker(id)
	return ok && !reg.Fenced && !reg.InControlledShutdown
}

// ---- hosting partitions ----

// open opens (creating) the directory of a partition and hosts it.
func (b *Broker) open(tp TopicPartition) (*Replica, error) {
	return b.openWith(tp, b.cfg.Replica)
}

func (b *Broker) openWith(tp TopicPartition, opts Options) (*Replica, error) {
	r, err := Open(b.cfg.ID, filepath.Join(b.cfg.Dir, tp.String()), opts)
	if err != nil {
		return nil, err
	}
	b.parts[tp] = r
	b.rehost()
	return r, nil
}

// restartReplica closes the replica of tp and opens it again from its
// files with rule as its TruncationRule — the partition restarts, the
// broker does not: it stays registered, so the controller's view of it
// (its ISR memberships among them) does not change. The replica then takes
// its role from the metadata again, and as a follower reconciles its log by
// rule. It is the chapter's restart: a replica process that comes back
// before anyone noticed it was gone.
func (b *Broker) restartReplica(tp TopicPartition, rule TruncationRule, nowMs int64) error {
	r, ok := b.parts[tp]
	if !ok {
		return fmt.Errorf("replica: broker %d does not host %s: %w", b.cfg.ID, tp, ErrInvalidState)
	}
	if err := r.Close(); err != nil {
		return err
	}
	for _, o := range r.TakeProduceOutcomes() {
		b.produceDone(o)
	}
	opts := b.cfg.Replica
	opts.Truncation = rule
	if _, err := b.openWith(tp, opts); err != nil {
		delete(b.parts, tp)
		b.rehost()
		return err
	}
	b.applyImage(nowMs)
	b.collect(nowMs)
	return nil
}

// parsePartitionDir reads "<topic>-<partition>".
func parsePartitionDir(name string) (TopicPartition, bool) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 {
		return TopicPartition{}, false
	}
	p, err := strconv.ParseInt(name[i+1:], 10, 32)
	if err != nil || p < 0 || strconv.Itoa(int(p)) != name[i+1:] {
		return TopicPartition{}, false
	}
	return TopicPartition{Topic: name[:i], Partition: int32(p)}, true
}

// Close shuts the broker down cleanly: every replica closes its log
// cleanly, then the clean-shutdown marker records this incarnation's broker
// epoch, so the next start registers as clean and keeps its place in the
// ISRs. A broker that is never closed (a crash) leaves no marker.
func (b *Broker) Close() error {
	if b.closed {
		return ErrClosed
	}
	b.closed = true
	err := b.closeReplicas()
	if err == nil && b.epoch >= 0 {
		err = writeCleanShutdown(b.fs, b.cfg.Dir, b.epoch)
	}
	if err != nil {
		return fmt.Errorf("replica: broker %d: close: %w", b.cfg.ID, err)
	}
	return nil
}

func (b *Broker) closeReplicas() error {
	var errs []error
	for _, r := range b.parts {
		if err := r.Close(); err != nil && !errors.Is(err, ErrClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// takeCleanShutdown reads and removes the clean-shutdown marker: -1 if
// there is none (the broker stopped uncleanly). It is removed at once, so
// a crash of this incarnation is never taken for a clean stop.
func takeCleanShutdown(fsys vfs.FS, dir string) (int64, error) {
	path := filepath.Join(dir, cleanShutdownFile)
	data, err := vfs.ReadFile(fsys, path, 64)
	if errors.Is(err, fs.ErrNotExist) {
		return -1, nil
	}
	if err != nil && !errors.Is(err, vfs.ErrTooLarge) {
		return -1, err
	}
	if err := fsys.Remove(path); err != nil {
		return -1, err
	}
	if err := fsys.SyncDir(dir); err != nil {
		return -1, err
	}
	epoch, perr := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || perr != nil || epoch < 0 {
		return -1, nil // unreadable: unclean, the safe answer
	}
	return epoch, nil
}

// writeCleanShutdown writes the marker durably: its content, then its name.
func writeCleanShutdown(fsys vfs.FS, dir string, epoch int64) error {
	f, err := fsys.OpenFile(filepath.Join(dir, cleanShutdownFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteAt([]byte(strconv.FormatInt(epoch, 10)+"\n"), 0)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return fsys.SyncDir(dir)
}

// crash stops the broker the way a killed process stops: it writes nothing
// more — no clean-shutdown marker, no checkpoint — and only releases its
// files, so its directory is what a kill -9 leaves.
func (b *Broker) crash() {
	b.closed = true
	for _, r := range b.parts {
		r.abandon()
	}
}
