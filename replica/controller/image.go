package controller

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/topicconfig"
	"github.com/kaenlog/kaenlog/wire"
)

// NoLeader is the leader of a partition that has none (wire.NoLeader, -1).
const NoLeader = wire.NoLeader

// BrokerRegistration is one registered broker as the image knows it.
type BrokerRegistration struct {
	// ID is the broker's id.
	ID int32
	// Epoch is the broker epoch: the offset of its RegisterBrokerRecord.
	Epoch int64
	// IncarnationID is the registering process's random id.
	IncarnationID [16]byte
	// Endpoint is where it is reached.
	Endpoint string
	// KafkaEndpoint is where Kafka clients reach it (its Kafka listener),
	// or empty when it has none.
	KafkaEndpoint string
	// Fenced: the broker may not lead or join an ISR.
	Fenced bool
	// InControlledShutdown: the broker asked to shut down and is moving its
	// leadership away.
	InControlledShutdown bool
}

// active is KRaft's isActive: registered, unfenced, not shutting down. Only
// an active broker may be elected or added to an ISR.
func (b BrokerRegistration) active() bool { return !b.Fenced && !b.InControlledShutdown }

// Topic is a topic's settings as the image knows them.
type Topic struct {
	// Name is the topic's name.
	Name string
	// MinISR is its min.insync.replicas: its own (Configs), else the
	// controller's default when it was created (its TopicRecord's).
	MinISR int32
	// UncleanLeaderElection is its unclean.leader.election.enable: its
	// own, else its TopicRecord's.
	UncleanLeaderElection bool
	// Configs are the topic's own configs by Kafka's names (its
	// ConfigRecords), nil when it has none; a config not in it takes the
	// default (see package replica/topicconfig). The map is a copy.
	Configs map[string]string
	// Partitions is its number of partitions.
	Partitions int32
	// CreatedOffset is the metadata offset of the TopicRecord that created
	// it: the topic's identity, in place of KRaft's topic id. A topic
	// deleted and created again under its name has a new one, so a broker
	// tells the new topic's partitions from the old one's (whose logs it
	// deletes) even when it learns of both at once.
	CreatedOffset uint64
}

// PartitionState is one partition's replication state. The slices of a
// PartitionState handed out by an Image are copies; empty ones are nil.
type PartitionState struct {
	// Topic and Partition name the partition.
	Topic string
	// Partition is the index within the topic.
	Partition int32
	// Replicas is the assignment in preference order; only a reassignment
	// changes it.
	Replicas []int32
	// ISR is the in-sync replica set, in the order it was last proposed.
	ISR []int32
	// ELR is KIP-966's eligible leader replicas: out of the ISR but known
	// to hold every committed record. Disjoint from ISR.
	ELR []int32
	// LastKnownELR holds the last leader once the ISR became empty; it is
	// informational here (see the package doc on balanced recovery).
	LastKnownELR []int32
	// Leader is the leader, or NoLeader. A leader is always in the ISR.
	Leader int32
	// LeaderEpoch goes up by one at every leader change, to no leader
	// included.
	LeaderEpoch int32
	// PartitionEpoch goes up by one at every change.
	PartitionEpoch int32
	// LeaderRecoveryState is LeaderRecovering after an unclean election
	// until the leader reports it has recovered.
	LeaderRecoveryState wire.LeaderRecoveryState
	// AddingReplicas and RemovingReplicas are an in-flight reassignment's
	// (KIP-455): replicas of Replicas being added, and being removed once
	// the added ones are in the ISR. Both empty when none is in flight.
	AddingReplicas, RemovingReplicas []int32
}

// Reassigning reports whether a reassignment of p is in flight.
func (p PartitionState) Reassigning() bool {
	return len(p.AddingReplicas) > 0 || len(p.RemovingReplicas) > 0
}

// clone deep-copies p.
func (p PartitionState) clone() PartitionState {
	p.Replicas = cloneIDs(p.Replicas)
	p.ISR = cloneIDs(p.ISR)
	p.ELR = cloneIDs(p.ELR)
	p.LastKnownELR = cloneIDs(p.LastKnownELR)
	p.AddingReplicas = cloneIDs(p.AddingReplicas)
	p.RemovingReplicas = cloneIDs(p.RemovingReplicas)
	return p
}

// equal compares two states field by field (nil and empty lists alike).
func (p PartitionState) equal(q PartitionState) bool {
	return p.Topic == q.Topic && p.Partition == q.Partition &&
		slices.Equal(p.Replicas, q.Replicas) && slices.Equal(p.ISR, q.ISR) &&
		slices.Equal(p.ELR, q.ELR) && slices.Equal(p.LastKnownELR, q.LastKnownELR) &&
		p.Leader == q.Leader && p.LeaderEpoch == q.LeaderEpoch &&
		p.PartitionEpoch == q.PartitionEpoch && p.LeaderRecoveryState == q.LeaderRecoveryState &&
		slices.Equal(p.AddingReplicas, q.AddingReplicas) && slices.Equal(p.RemovingReplicas, q.RemovingReplicas)
}

// String formats p on one line, e.g.
// "orders-0 leader 1 epoch 2/5 replicas [1 2 3] isr [1 2] elr [] lke [] RECOVERED",
// followed by " adding [4] removing [3]" while a reassignment is in flight.
func (p PartitionState) String() string {
	s := fmt.Sprintf("%s-%d leader %d epoch %d/%d replicas %v isr %v elr %v lke %v %s",
		p.Topic, p.Partition, p.Leader, p.LeaderEpoch, p.PartitionEpoch,
		ids(p.Replicas), ids(p.ISR), ids(p.ELR), ids(p.LastKnownELR), p.LeaderRecoveryState)
	if p.Reassigning() {
		s += fmt.Sprintf(" adding %v removing %v", ids(p.AddingReplicas), ids(p.RemovingReplicas))
	}
	return s
}

// ids prints nil as [] rather than [].
func ids(v []int32) []int32 {
	if v == nil {
		return []int32{}
	}
	return v
}

type topicState struct {
	Topic
	parts []PartitionState
	// created is the topic's TopicRecord: the defaults its own configs
	// override.
	created TopicRecord
}

// Image is the state the metadata records build: the registered brokers and
// the topics with their partitions. The controller keeps one, and a broker
// keeps its own by applying the batches it fetches from the controller's
// metadata log (KRaft's MetadataImage and MetadataDelta in one type).
//
// Apply is the only way to change an Image, and it refuses a record that
// would break the image's invariants (see Check), leaving the image as it
// was. An Image is not safe for concurrent use.
type Image struct {
	end     uint64
	brokers map[int32]BrokerRegistration
	topics  map[string]*topicState
	// nextProducerID is the end of the last block of producer ids
	// allocated (ProducerIDsRecord), 0 before any.
	nextProducerID int64
}

// NewImage returns the empty image, before the metadata log's first record.
func NewImage() *Image {
	return &Image{brokers: map[int32]BrokerRegistration{}, topics: map[string]*topicState{}}
}

// EndOffset is the offset of the next record to apply: the number of
// records applied. A broker sends it as BrokerHeartbeatRequest.MetadataOffset.
func (im *Image) EndOffset() uint64 { return im.end }

// NextProducerID is the end of the last block of producer ids the
// metadata log allocated: every id below it has been handed out or
// skipped. 0 before the first block.
func (im *Image) NextProducerID() int64 { return im.nextProducerID }

// Broker returns the registration of broker id.
func (im *Image) Broker(id int32) (BrokerRegistration, bool) {
	b, ok := im.brokers[id]
	return b, ok
}

// Brokers returns every registration, by id.
func (im *Image) Brokers() []BrokerRegistration {
	out := make([]BrokerRegistration, 0, len(im.brokers))
	for _, id := range slices.Sorted(maps.Keys(im.brokers)) {
		out = append(out, im.brokers[id])
	}
	return out
}

// Topic returns a topic's settings.
func (im *Image) Topic(name string) (Topic, bool) {
	t, ok := im.topics[name]
	if !ok {
		return Topic{}, false
	}
	out := t.Topic
	out.Configs = maps.Clone(t.Configs)
	return out, true
}

// TopicConfig returns the topic's own value of config name, with no copy
// of its configs: ok is false when the topic does not exist or has no own
// value.
func (im *Image) TopicConfig(topic, name string) (value string, ok bool) {
	t, exists := im.topics[topic]
	if !exists {
		return "", false
	}
	value, ok = t.Configs[name]
	return value, ok
}

// MinISR returns the topic's min.insync.replicas (Topic.MinISR) without
// copying its configs.
func (im *Image) MinISR(topic string) (int32, bool) {
	t, ok := im.topics[topic]
	if !ok {
		return 0, false
	}
	return t.MinISR, true
}

// TopicNames returns every topic's name, sorted.
func (im *Image) TopicNames() []string { return slices.Sorted(maps.Keys(im.topics)) }

// Partition returns a copy of one partition's state.
func (im *Image) Partition(topic string, partition int32) (PartitionState, bool) {
	p := im.partition(topic, partition)
	if p == nil {
		return PartitionState{}, false
	}
	return p.clone(), true
}

// partition returns the image's own state (no copy), or nil.
func (im *Image) partition(topic string, partition int32) *PartitionState {
	t, ok := im.topics[topic]
	if !ok || partition < 0 || int(partition) >= len(t.parts) {
		return nil
	}
	return &t.parts[partition]
}

// Partitions returns copies of every partition's state, topics in name
// order, partitions in index order.
func (im *Image) Partitions() []PartitionState {
	var out []PartitionState
	for _, name := range im.TopicNames() {
		for _, p := range im.topics[name].parts {
			out = append(out, p.clone())
		}
	}
	return out
}

// eachPartition calls f with the image's own state of every partition, in
// Partitions' order, stopping at f's first error.
func (im *Image) eachPartition(f func(t *topicState, p *PartitionState) error) error {
	for _, name := range im.TopicNames() {
		t := im.topics[name]
		for i := range t.parts {
			if err := f(t, &t.parts[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Clone returns an independent copy of the image. (Apply never changes a
// partition's slices in place, so the copy shares them safely.)
func (im *Image) Clone() *Image {
	c := &Image{end: im.end, brokers: maps.Clone(im.brokers), topics: make(map[string]*topicState, len(im.topics)), nextProducerID: im.nextProducerID}
	for name, t := range im.topics {
		c.topics[name] = &topicState{Topic: t.Topic, parts: slices.Clone(t.parts), created: t.created}
	}
	return c
}

// Equal reports whether two images hold the same state at the same offset.
func (im *Image) Equal(o *Image) bool { return im.String() == o.String() }

// String dumps the image, one line per broker, topic and partition, in a
// fixed order: two images are equal exactly when their dumps are.
func (im *Image) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "end offset %d\n", im.end)
	for _, r := range im.Brokers() {
		fmt.Fprintf(&b, "broker %d epoch %d incarnation %x endpoint %q fenced %t shutting-down %t",
			r.ID, r.Epoch, r.IncarnationID, r.Endpoint, r.Fenced, r.InControlledShutdown)
		if r.KafkaEndpoint != "" {
			fmt.Fprintf(&b, " kafka %q", r.KafkaEndpoint)
		}
		b.WriteByte('\n')
	}
	if im.nextProducerID > 0 {
		fmt.Fprintf(&b, "producer ids allocated below %d\n", im.nextProducerID)
	}
	for _, name := range im.TopicNames() {
		t := im.topics[name]
		fmt.Fprintf(&b, "topic %s min-isr %d unclean %t partitions %d created at %d\n", t.Name, t.MinISR, t.UncleanLeaderElection, t.Partitions, t.CreatedOffset)
		for _, k := range slices.Sorted(maps.Keys(t.Configs)) {
			fmt.Fprintf(&b, "  config %s=%s\n", k, t.Configs[k])
		}
		for _, p := range t.parts {
			fmt.Fprintf(&b, "  %s\n", p)
		}
	}
	return b.String()
}

// Apply applies one record, as the record at offset EndOffset(), and
// advances EndOffset by one. A record that would break the image's
// invariants is refused with an error matching ErrInvariant, and the image
// is left unchanged.
func (im *Image) Apply(r Record) error {
	var err error
	switch r := r.(type) {
	case RegisterBrokerRecord:
		err = im.applyRegisterBroker(r)
	case BrokerRegistrationChangeRecord:
		err = im.applyBrokerChange(r)
	case TopicRecord:
		err = im.applyTopic(r)
	case PartitionRecord:
		err = im.applyPartition(r)
	case PartitionChangeRecord:
		err = im.applyPartitionChange(r)
	case RemoveTopicRecord:
		err = im.applyRemoveTopic(r)
	case ConfigRecord:
		err = im.applyConfig(r)
	case ProducerIDsRecord:
		err = im.applyProducerIDs(r)
	default:
		err = invariant("unknown record %T", r)
	}
	if err != nil {
		return fmt.Errorf("%w (record at offset %d)", err, im.end)
	}
	im.end++
	return nil
}

func (im *Image) applyRegisterBroker(r RegisterBrokerRecord) error {
	if r.BrokerID < 0 {
		return invariant("broker id %d is negative", r.BrokerID)
	}
	// KRaft's broker epoch is the offset of the registration record, which
	// makes it unique and increasing with no counter to keep.
	if r.BrokerEpoch != int64(im.end) {
		return invariant("broker %d registers with epoch %d at offset %d; the epoch is the record's offset", r.BrokerID, r.BrokerEpoch, im.end)
	}
	if r.IncarnationID == ([16]byte{}) {
		return invariant("broker %d registers with the zero incarnation id", r.BrokerID)
	}
	im.brokers[r.BrokerID] = BrokerRegistration{
		ID:            r.BrokerID,
		Epoch:         r.BrokerEpoch,
		IncarnationID: r.IncarnationID,
		Endpoint:      r.Endpoint,
		KafkaEndpoint: r.KafkaEndpoint,
		Fenced:        r.Fenced,
	}
	return nil
}

func (im *Image) applyBrokerChange(r BrokerRegistrationChangeRecord) error {
	b, ok := im.brokers[r.BrokerID]
	switch {
	case !ok:
		return invariant("registration change for unregistered broker %d", r.BrokerID)
	case b.Epoch != r.BrokerEpoch:
		return invariant("registration change for broker %d epoch %d, registered epoch is %d", r.BrokerID, r.BrokerEpoch, b.Epoch)
	case !r.Fenced.valid() || !r.InControlledShutdown.valid():
		return invariant("registration change for broker %d has tri-states %d, %d", r.BrokerID, r.Fenced, r.InControlledShutdown)
	}
	b.Fenced = r.Fenced.apply(b.Fenced)
	b.InControlledShutdown = r.InControlledShutdown.apply(b.InControlledShutdown)
	im.brokers[r.BrokerID] = b
	return nil
}

func (im *Image) applyTopic(r TopicRecord) error {
	if err := validTopicName(r.Name); err != nil {
		return invariant("%v", err)
	}
	if _, ok := im.topics[r.Name]; ok {
		return invariant("topic %q exists", r.Name)
	}
	if r.MinISR < 1 {
		return invariant("topic %q has min ISR %d", r.Name, r.MinISR)
	}
	im.topics[r.Name] = &topicState{Topic: Topic{Name: r.Name, MinISR: r.MinISR, UncleanLeaderElection: r.UncleanLeaderElection, CreatedOffset: im.end}, created: r}
	return nil
}

// applyConfig sets or removes one of a topic's own configs. A config
// record whose value topicconfig refuses would be a config the brokers
// cannot apply: it is refused.
func (im *Image) applyConfig(r ConfigRecord) error {
	if r.ResourceType != ResourceTopic {
		return invariant("config %s for resource type %d; only topics (%d) have configs", r.Name, r.ResourceType, ResourceTopic)
	}
	t, ok := im.topics[r.ResourceName]
	if !ok {
		return invariant("config %s of topic %q, which does not exist", r.Name, r.ResourceName)
	}
	if _, ok := topicconfig.Lookup(r.Name); !ok {
		return invariant("topic %q: unknown config %s", r.ResourceName, r.Name)
	}
	if !r.Delete {
		if err := topicconfig.Validate(r.Name, r.Value); err != nil {
			return invariant("topic %q: %v", r.ResourceName, err)
		}
	}
	// Copy on write: Clone shares the map.
	configs := maps.Clone(t.Configs)
	if r.Delete {
		delete(configs, r.Name)
		if len(configs) == 0 {
			configs = nil
		}
	} else {
		if configs == nil {
			configs = map[string]string{}
		}
		configs[r.Name] = r.Value
	}
	t.Configs = configs
	t.MinISR, t.UncleanLeaderElection = t.created.MinISR, t.created.UncleanLeaderElection
	if v, ok := configs[topicconfig.MinInsyncReplicas]; ok {
		n, _ := strconv.ParseInt(v, 10, 32)
		t.MinISR = int32(n)
	}
	if v, ok := configs[topicconfig.UncleanLeaderElection]; ok {
		t.UncleanLeaderElection = v == "true"
	}
	return nil
}

func (im *Image) applyRemoveTopic(r RemoveTopicRecord) error {
	if _, ok := im.topics[r.Name]; !ok {
		return invariant("removal of topic %q, which does not exist", r.Name)
	}
	delete(im.topics, r.Name)
	return nil
}

func (im *Image) applyPartition(r PartitionRecord) error {
	t, ok := im.topics[r.Topic]
	if !ok {
		return invariant("partition %s-%d of an unknown topic", r.Topic, r.Partition)
	}
	if int(r.Partition) != len(t.parts) {
		return invariant("partition %s-%d created after %d partitions; they are created in order", r.Topic, r.Partition, len(t.parts))
	}
	p := PartitionState{
		Topic: r.Topic, Partition: r.Partition,
		Replicas: cloneIDs(r.Replicas), ISR: cloneIDs(r.ISR), ELR: cloneIDs(r.ELR), LastKnownELR: cloneIDs(r.LastKnownELR),
		Leader: r.Leader, LeaderEpoch: r.LeaderEpoch, PartitionEpoch: r.PartitionEpoch, LeaderRecoveryState: r.LeaderRecoveryState,
	}
	if err := checkPartition(p); err != nil {
		return err
	}
	t.parts = append(t.parts, p)
	t.Partitions++
	return nil
}

func (im *Image) applyPartitionChange(r PartitionChangeRecord) error {
	old := im.partition(r.Topic, r.Partition)
	if old == nil {
		return invariant("change to unknown partition %s-%d", r.Topic, r.Partition)
	}
	p := PartitionState{
		Topic: r.Topic, Partition: r.Partition,
		Replicas: old.Replicas, ISR: cloneIDs(r.ISR), ELR: cloneIDs(r.ELR), LastKnownELR: cloneIDs(r.LastKnownELR),
		Leader: r.Leader, LeaderEpoch: r.LeaderEpoch, PartitionEpoch: r.PartitionEpoch, LeaderRecoveryState: r.LeaderRecoveryState,
		AddingReplicas: cloneIDs(r.AddingReplicas), RemovingReplicas: cloneIDs(r.RemovingReplicas),
	}
	if r.Replicas != nil {
		p.Replicas = cloneIDs(r.Replicas)
	}
	if p.PartitionEpoch != old.PartitionEpoch+1 {
		return invariant("%s-%d: partition epoch %d after %d; every change adds exactly one", r.Topic, r.Partition, p.PartitionEpoch, old.PartitionEpoch)
	}
	wantLeaderEpoch := old.LeaderEpoch
	if p.Leader != old.Leader {
		wantLeaderEpoch++
	}
	if p.LeaderEpoch != wantLeaderEpoch {
		return invariant("%s-%d: leader %d→%d with leader epoch %d→%d; it goes up by one exactly when the leader changes",
			r.Topic, r.Partition, old.Leader, p.Leader, old.LeaderEpoch, p.LeaderEpoch)
	}
	if err := checkPartition(p); err != nil {
		return err
	}
	*old = p
	return nil
}

// applyProducerIDs allocates a block: the next block's start only goes up
// (KRaft's ProducerIdControlManager.replay refuses anything else), so no
// id is ever handed out twice.
func (im *Image) applyProducerIDs(r ProducerIDsRecord) error {
	switch {
	case r.NextProducerID <= im.nextProducerID:
		return invariant("producer ids: next block at %d, not above %d", r.NextProducerID, im.nextProducerID)
	case r.BrokerID < NoLeader || r.BrokerEpoch < -1:
		return invariant("producer ids for broker %d epoch %d", r.BrokerID, r.BrokerEpoch)
	}
	im.nextProducerID = r.NextProducerID
	return nil
}

// checkPartition checks one partition's invariants.
func checkPartition(p PartitionState) error {
	name := fmt.Sprintf("%s-%d", p.Topic, p.Partition)
	if len(p.Replicas) == 0 {
		return invariant("%s has no replicas", name)
	}
	for _, list := range []struct {
		name string
		ids  []int32
	}{{"replicas", p.Replicas}, {"ISR", p.ISR}, {"ELR", p.ELR}, {"last known ELR", p.LastKnownELR},
		{"adding replicas", p.AddingReplicas}, {"removing replicas", p.RemovingReplicas}} {
		for i, id := range list.ids {
			if id < 0 {
				return invariant("%s: %s holds broker id %d", name, list.name, id)
			}
			if slices.Contains(list.ids[:i], id) {
				return invariant("%s: %s holds broker %d twice", name, list.name, id)
			}
			if !slices.Contains(p.Replicas, id) {
				return invariant("%s: %s holds broker %d, which is not a replica %v", name, list.name, id, p.Replicas)
			}
		}
	}
	for _, id := range p.ISR {
		if slices.Contains(p.ELR, id) {
			return invariant("%s: broker %d is in both the ISR %v and the ELR %v", name, id, p.ISR, p.ELR)
		}
	}
	for _, id := range p.AddingReplicas {
		if slices.Contains(p.RemovingReplicas, id) {
			return invariant("%s: broker %d is both added %v and removed %v", name, id, p.AddingReplicas, p.RemovingReplicas)
		}
	}
	if p.Leader != NoLeader && !slices.Contains(p.ISR, p.Leader) {
		return invariant("%s: leader %d is not in the ISR %v", name, p.Leader, p.ISR)
	}
	if p.LeaderEpoch < 0 || p.PartitionEpoch < 0 {
		return invariant("%s: negative epoch %d/%d", name, p.LeaderEpoch, p.PartitionEpoch)
	}
	switch p.LeaderRecoveryState {
	case wire.LeaderRecovered:
	case wire.LeaderRecovering:
		if len(p.ISR) > 1 {
			return invariant("%s: recovering from an unclean election with ISR %v; it stays the leader alone until recovered", name, p.ISR)
		}
	default:
		return invariant("%s: leader recovery state %d", name, p.LeaderRecoveryState)
	}
	return nil
}

// Check verifies every invariant of the image: each partition's (replicas
// distinct; ISR, ELR and last known ELR inside them and distinct; ISR and
// ELR disjoint; the leader, if any, in the ISR; epochs not negative; a
// recovering leader alone in its ISR), every partition's topic and index,
// every broker epoch below the end offset, and a next producer id not
// below 0. Apply keeps these; Check is for tests and for a broker that
// wants to audit what it built.
func (im *Image) Check() error {
	if im.nextProducerID < 0 {
		return invariant("next producer id %d", im.nextProducerID)
	}
	for id, b := range im.brokers {
		if b.ID != id || id < 0 || b.Epoch < 0 || uint64(b.Epoch) >= im.end {
			return invariant("broker %d: registration %+v at end offset %d", id, b, im.end)
		}
	}
	for name, t := range im.topics {
		if t.Name != name || t.MinISR < 1 || int(t.Partitions) != len(t.parts) {
			return invariant("topic %q: %+v with %d partitions", name, t.Topic, len(t.parts))
		}
		for i, p := range t.parts {
			if p.Topic != name || int(p.Partition) != i {
				return invariant("topic %q holds %s-%d at index %d", name, p.Topic, p.Partition, i)
			}
			if err := checkPartition(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// ApplyBatches applies the metadata records in buf: whole RecordBatch v2
// batches as the controller's store (or a fetch of its metadata log)
// returns them, one metadata record per Kafka record value. Records below
// EndOffset are skipped, so re-reading from a batch start is harmless; a
// record past EndOffset is a gap and an error. It stops at the first error,
// which matches ErrBadRecord or ErrInvariant; records before it stay
// applied, so a broker should treat the error as fatal for its metadata.
func (im *Image) ApplyBatches(buf []byte) error {
	var b log.Batch
	for len(buf) > 0 {
		n, err := b.Decode(buf)
		if err != nil {
			return fmt.Errorf("%w: batch at offset %d: %w", ErrBadRecord, im.end, err)
		}
		buf = buf[n:]
		for _, rec := range b.Records {
			off := b.BaseOffset + uint64(rec.OffsetDelta)
			if off < im.end {
				continue
			}
			if off > im.end {
				return fmt.Errorf("%w: record at offset %d, want %d: the metadata log has a gap", ErrBadRecord, off, im.end)
			}
			r, err := DecodeRecord(rec.Value)
			if err != nil {
				return fmt.Errorf("%w (record at offset %d)", err, off)
			}
			if err := im.Apply(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// validTopicName is Kafka's Topic.validate: 1 to 249 characters from
// [a-zA-Z0-9._-], neither "." nor "..". The metadata log's own name,
// MetadataTopic, is reserved.
func validTopicName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("topic name is empty")
	case name == "." || name == "..":
		return fmt.Errorf("topic name %q is not allowed", name)
	case len(name) > maxTopicNameLength:
		return fmt.Errorf("topic name is %d characters, max %d", len(name), maxTopicNameLength)
	case name == MetadataTopic:
		return fmt.Errorf("topic name %q is the metadata log's", name)
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("topic name %q holds %q; allowed are [a-zA-Z0-9._-]", name, c)
		}
	}
	return nil
}

// maxTopicNameLength is Kafka's Topic.MAX_NAME_LENGTH.
const maxTopicNameLength = 249

// MetadataTopic is the name under which brokers fetch the controller's
// metadata log, partition 0 (KRaft's __cluster_metadata).
const MetadataTopic = "__cluster_metadata"
