package controller

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/kaenlog/kaenlog/wire"
)

// RecordType identifies a metadata record's kind. The numbers are Kafka's
// apiKey values for the records of the same name
// (metadata/src/main/resources/common/metadata/*.json).
type RecordType uint8

const (
	// TypeRegisterBroker marks a RegisterBrokerRecord (Kafka's 0).
	TypeRegisterBroker RecordType = 0
	// TypeTopic marks a TopicRecord (Kafka's 2).
	TypeTopic RecordType = 2
	// TypePartition marks a PartitionRecord (Kafka's 3).
	TypePartition RecordType = 3
	// TypeConfig marks a ConfigRecord (Kafka's 4).
	TypeConfig RecordType = 4
	// TypePartitionChange marks a PartitionChangeRecord (Kafka's 5).
	TypePartitionChange RecordType = 5
	// TypeRemoveTopic marks a RemoveTopicRecord (Kafka's 9).
	TypeRemoveTopic RecordType = 9
	// TypeProducerIDs marks a ProducerIDsRecord (Kafka's 15,
	// ProducerIdsRecord).
	TypeProducerIDs RecordType = 15
	// TypeBrokerRegistrationChange marks a BrokerRegistrationChangeRecord
	// (Kafka's 17).
	TypeBrokerRegistrationChange RecordType = 17
)

// String returns the record type's name, or "RecordType(n)".
func (t RecordType) String() string {
	switch t {
	case TypeRegisterBroker:
		return "RegisterBroker"
	case TypeTopic:
		return "Topic"
	case TypePartition:
		return "Partition"
	case TypePartitionChange:
		return "PartitionChange"
	case TypeConfig:
		return "Config"
	case TypeRemoveTopic:
		return "RemoveTopic"
	case TypeBrokerRegistrationChange:
		return "BrokerRegistrationChange"
	case TypeProducerIDs:
		return "ProducerIDs"
	}
	return fmt.Sprintf("RecordType(%d)", uint8(t))
}

// recordVersion is the only version of every record this package writes and
// reads. It is in every record so a future layout can be told apart.
const recordVersion uint8 = 0

// Record is one metadata record: one of RegisterBrokerRecord,
// BrokerRegistrationChangeRecord, TopicRecord, PartitionRecord,
// PartitionChangeRecord, ConfigRecord, RemoveTopicRecord and
// ProducerIDsRecord. The set
// is closed.
type Record interface {
	// Type returns the record's kind.
	Type() RecordType
	// AppendTo appends the record's encoding (see the package doc) to dst.
	// It refuses, with dst unchanged, what DecodeRecord would refuse.
	AppendTo(dst []byte) ([]byte, error)
	isRecord()
}

// BoolChange is a tri-state field of BrokerRegistrationChangeRecord: leave
// the flag as it is, or set it. The values are Kafka's for the Fenced field
// of the same record (BrokerRegistrationFencingChange).
type BoolChange int8

const (
	// Unchanged (0) leaves the flag as it is.
	Unchanged BoolChange = 0
	// SetTrue (1) sets the flag.
	SetTrue BoolChange = 1
	// SetFalse (-1) clears the flag.
	SetFalse BoolChange = -1
)

func (c BoolChange) valid() bool { return c == Unchanged || c == SetTrue || c == SetFalse }

// apply returns the flag after the change.
func (c BoolChange) apply(v bool) bool {
	switch c {
	case SetTrue:
		return true
	case SetFalse:
		return false
	}
	return v
}

// String returns "unchanged", "true", "false" or "BoolChange(n)".
func (c BoolChange) String() string {
	switch c {
	case Unchanged:
		return "unchanged"
	case SetTrue:
		return "true"
	case SetFalse:
		return "false"
	}
	return fmt.Sprintf("BoolChange(%d)", int8(c))
}

// RegisterBrokerRecord registers a broker process: a new incarnation of a
// broker id, with a new broker epoch.
type RegisterBrokerRecord struct {
	// BrokerID is the broker's id.
	BrokerID int32
	// BrokerEpoch is the offset of this record in the metadata log, as in
	// KRaft: unique and increasing.
	BrokerEpoch int64
	// IncarnationID is the process's random id, as the broker sent it.
	IncarnationID [16]byte
	// Endpoint is where other brokers reach it.
	Endpoint string
	// Fenced is the registration's initial fencing; the controller always
	// writes true: a broker is unfenced by its first caught-up heartbeat.
	Fenced bool
	// KafkaEndpoint is where Kafka clients reach it, or empty. Encoded
	// last and only when set, so the records of brokers without a Kafka
	// listener, and metadata logs written before the field, are what they
	// were.
	KafkaEndpoint string
}

// BrokerRegistrationChangeRecord changes a registration's flags. It names
// the epoch it applies to, so it can never change a later incarnation.
type BrokerRegistrationChangeRecord struct {
	// BrokerID is the broker's id.
	BrokerID int32
	// BrokerEpoch is the registration's epoch.
	BrokerEpoch int64
	// Fenced fences (SetTrue) or unfences (SetFalse) the broker.
	Fenced BoolChange
	// InControlledShutdown marks the broker as shutting down (SetTrue).
	// The controller never clears it: a new registration does.
	InControlledShutdown BoolChange
}

// TopicRecord creates a topic, with the two settings replication needs. (In
// KRaft a topic's settings are ConfigRecords beside its TopicRecord; one
// record is enough here.)
type TopicRecord struct {
	// Name is the topic's name.
	Name string
	// MinISR is the topic's min.insync.replicas, resolved (never 0).
	MinISR int32
	// UncleanLeaderElection is unclean.leader.election.enable.
	UncleanLeaderElection bool
}

// PartitionRecord creates a partition with its whole initial state.
type PartitionRecord struct {
	// Topic and Partition name the partition.
	Topic string
	// Partition is the index within the topic.
	Partition int32
	// Replicas is the assignment, in preference order.
	Replicas []int32
	// ISR is the in-sync replica set.
	ISR []int32
	// ELR is KIP-966's eligible leader replicas.
	ELR []int32
	// LastKnownELR records the last leader once the ISR becomes empty.
	LastKnownELR []int32
	// Leader is the leader, or NoLeader.
	Leader int32
	// LeaderEpoch is the leader epoch.
	LeaderEpoch int32
	// PartitionEpoch is the partition epoch.
	PartitionEpoch int32
	// LeaderRecoveryState is RECOVERING after an unclean election.
	LeaderRecoveryState wire.LeaderRecoveryState
}

// PartitionChangeRecord changes a partition. Unlike KRaft's, which carries
// only the changed fields and leaves the epochs to be derived on replay, it
// carries the whole new state with its epochs written out, so replaying it
// needs no rule: the image only checks it.
type PartitionChangeRecord struct {
	// Topic and Partition name the partition.
	Topic string
	// Partition is the index within the topic.
	Partition int32
	// ISR is the new in-sync replica set.
	ISR []int32
	// ELR is the new eligible leader replica set.
	ELR []int32
	// LastKnownELR is the new last-known-leader record.
	LastKnownELR []int32
	// Leader is the new leader, or NoLeader.
	Leader int32
	// LeaderEpoch is the new leader epoch: the old one plus one exactly
	// when Leader changes.
	LeaderEpoch int32
	// PartitionEpoch is the new partition epoch: the old one plus one.
	PartitionEpoch int32
	// LeaderRecoveryState is the new leader recovery state.
	LeaderRecoveryState wire.LeaderRecoveryState
	// Replicas is the new assignment, or nil when it does not change
	// (a reassignment changes it).
	Replicas []int32
	// AddingReplicas and RemovingReplicas are the new in-flight
	// reassignment's replicas being added and being removed (KIP-455), both
	// empty when none is in flight.
	AddingReplicas, RemovingReplicas []int32
}

// ResourceTopic is ConfigRecord.ResourceType for a topic (Kafka's
// ConfigResource.Type TOPIC, 2), the only resource kaenlog's metadata log
// keeps configs for.
const ResourceTopic = wire.ResourceTopic

// ConfigRecord sets or removes one of a topic's own configs (Kafka's
// ConfigRecord). The topic's settings are its own configs over the
// defaults; see package replica/topicconfig.
type ConfigRecord struct {
	// ResourceType is ResourceTopic.
	ResourceType int8
	// ResourceName is the topic's name.
	ResourceName string
	// Name is the config's Kafka name.
	Name string
	// Value is the config's value; with Delete the topic's own value is
	// removed and the default applies again (Kafka's null value).
	Value string
	// Delete removes the topic's own value; Value is then empty.
	Delete bool
}

// RemoveTopicRecord deletes a topic with all its partitions (Kafka's
// RemoveTopicRecord, which names the topic by id: kaenlog's topics have
// none). A topic created later with the same name is a new topic: its
// partitions start again with empty logs and epochs 0.
type RemoveTopicRecord struct {
	// Name is the topic's name.
	Name string
}

// ProducerIDsRecord allocates a block of producer ids: every id below
// NextProducerID has been handed out or skipped, and the next block starts
// there (KRaft's ProducerIdsRecord). BrokerID and BrokerEpoch name who asked for
// the block; kaenlog's controller allocates for the clients it serves
// itself, and writes NoLeader (-1) and -1.
type ProducerIDsRecord struct {
	// BrokerID is the broker the block is for, or -1 (the controller's
	// own clients).
	BrokerID int32
	// BrokerEpoch is that broker's epoch, or -1.
	BrokerEpoch int64
	// NextProducerID is the end of the block allocated: the first id of
	// the next block.
	NextProducerID int64
}

// Type returns TypeRegisterBroker.
func (RegisterBrokerRecord) Type() RecordType { return TypeRegisterBroker }

// Type returns TypeBrokerRegistrationChange.
func (BrokerRegistrationChangeRecord) Type() RecordType { return TypeBrokerRegistrationChange }

// Type returns TypeTopic.
func (TopicRecord) Type() RecordType { return TypeTopic }

// Type returns TypePartition.
func (PartitionRecord) Type() RecordType { return TypePartition }

// Type returns TypePartitionChange.
func (PartitionChangeRecord) Type() RecordType { return TypePartitionChange }

// Type returns TypeConfig.
func (ConfigRecord) Type() RecordType { return TypeConfig }

// Type returns TypeRemoveTopic.
func (RemoveTopicRecord) Type() RecordType { return TypeRemoveTopic }

// Type returns TypeProducerIDs.
func (ProducerIDsRecord) Type() RecordType { return TypeProducerIDs }

func (RegisterBrokerRecord) isRecord()           {}
func (BrokerRegistrationChangeRecord) isRecord() {}
func (TopicRecord) isRecord()                    {}
func (PartitionRecord) isRecord()                {}
func (PartitionChangeRecord) isRecord()          {}
func (RemoveTopicRecord) isRecord()              {}
func (ConfigRecord) isRecord()                   {}
func (ProducerIDsRecord) isRecord()              {}

// maxLength is the longest string or array a record can hold: its length
// is a uint16.
const maxLength = math.MaxUint16

// Encoding. Every record is
//
//	type u8 | version u8 | body
//
// with big-endian fixed-width integers, uint16-length strings and
// uint16-counted int32 arrays, and one byte for booleans and enums.

func header(dst []byte, t RecordType) []byte { return append(dst, byte(t), recordVersion) }

func putI32(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }
func putI64(dst []byte, v int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(v)) }
func putBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}
func putStr(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(s)))
	return append(dst, s...)
}
func putI32s(dst []byte, vs []int32) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(vs)))
	for _, v := range vs {
		dst = putI32(dst, v)
	}
	return dst
}

// checkLengths refuses strings and arrays a uint16 cannot count, and enums
// outside their values, so that everything encoded decodes.
func checkLengths(t RecordType, strs []string, arrays ...[]int32) error {
	for _, s := range strs {
		if len(s) > maxLength {
			return badRecord(t, "a string of %d bytes is longer than %d", len(s), maxLength)
		}
	}
	for _, a := range arrays {
		if len(a) > maxLength {
			return badRecord(t, "an array of %d ids is longer than %d", len(a), maxLength)
		}
	}
	return nil
}

func checkRecoveryState(t RecordType, s wire.LeaderRecoveryState) error {
	if s != wire.LeaderRecovered && s != wire.LeaderRecovering {
		return badRecord(t, "LeaderRecoveryState = %d", int8(s))
	}
	return nil
}

// AppendTo appends the record's encoding to dst.
func (r RegisterBrokerRecord) AppendTo(dst []byte) ([]byte, error) {
	if err := checkLengths(r.Type(), []string{r.Endpoint, r.KafkaEndpoint}); err != nil {
		return dst, err
	}
	dst = header(dst, r.Type())
	dst = putI32(dst, r.BrokerID)
	dst = putI64(dst, r.BrokerEpoch)
	dst = append(dst, r.IncarnationID[:]...)
	dst = putBool(dst, r.Fenced)
	dst = putStr(dst, r.Endpoint)
	if r.KafkaEndpoint != "" {
		dst = putStr(dst, r.KafkaEndpoint)
	}
	return dst, nil
}

// AppendTo appends the record's encoding to dst.
func (r BrokerRegistrationChangeRecord) AppendTo(dst []byte) ([]byte, error) {
	if !r.Fenced.valid() || !r.InControlledShutdown.valid() {
		return dst, badRecord(r.Type(), "tri-state fields Fenced = %d, InControlledShutdown = %d", r.Fenced, r.InControlledShutdown)
	}
	dst = header(dst, r.Type())
	dst = putI32(dst, r.BrokerID)
	dst = putI64(dst, r.BrokerEpoch)
	return append(dst, byte(r.Fenced), byte(r.InControlledShutdown)), nil
}

// AppendTo appends the record's encoding to dst.
func (r TopicRecord) AppendTo(dst []byte) ([]byte, error) {
	if err := checkLengths(r.Type(), []string{r.Name}); err != nil {
		return dst, err
	}
	dst = header(dst, r.Type())
	dst = putStr(dst, r.Name)
	dst = putI32(dst, r.MinISR)
	return putBool(dst, r.UncleanLeaderElection), nil
}

// AppendTo appends the record's encoding to dst.
func (r PartitionRecord) AppendTo(dst []byte) ([]byte, error) {
	if err := checkLengths(r.Type(), []string{r.Topic}, r.Replicas, r.ISR, r.ELR, r.LastKnownELR); err != nil {
		return dst, err
	}
	if err := checkRecoveryState(r.Type(), r.LeaderRecoveryState); err != nil {
		return dst, err
	}
	dst = header(dst, r.Type())
	dst = putStr(dst, r.Topic)
	dst = putI32(dst, r.Partition)
	dst = putI32s(dst, r.Replicas)
	dst = putI32s(dst, r.ISR)
	dst = putI32s(dst, r.ELR)
	dst = putI32s(dst, r.LastKnownELR)
	dst = putI32(dst, r.Leader)
	dst = putI32(dst, r.LeaderEpoch)
	dst = putI32(dst, r.PartitionEpoch)
	return append(dst, byte(r.LeaderRecoveryState)), nil
}

// AppendTo appends the record's encoding to dst.
func (r PartitionChangeRecord) AppendTo(dst []byte) ([]byte, error) {
	if err := checkLengths(r.Type(), []string{r.Topic}, r.ISR, r.ELR, r.LastKnownELR, r.Replicas, r.AddingReplicas, r.RemovingReplicas); err != nil {
		return dst, err
	}
	if err := checkRecoveryState(r.Type(), r.LeaderRecoveryState); err != nil {
		return dst, err
	}
	dst = header(dst, r.Type())
	dst = putStr(dst, r.Topic)
	dst = putI32(dst, r.Partition)
	dst = putI32s(dst, r.ISR)
	dst = putI32s(dst, r.ELR)
	dst = putI32s(dst, r.LastKnownELR)
	dst = putI32(dst, r.Leader)
	dst = putI32(dst, r.LeaderEpoch)
	dst = putI32(dst, r.PartitionEpoch)
	dst = append(dst, byte(r.LeaderRecoveryState))
	if r.reassigns() {
		// Left out when all three are empty, as a change before
		// reassignments existed was written.
		dst = putI32s(dst, r.Replicas)
		dst = putI32s(dst, r.AddingReplicas)
		dst = putI32s(dst, r.RemovingReplicas)
	}
	return dst, nil
}

// reassigns reports whether r carries the reassignment fields.
func (r PartitionChangeRecord) reassigns() bool {
	return len(r.Replicas) > 0 || len(r.AddingReplicas) > 0 || len(r.RemovingReplicas) > 0
}

// AppendTo appends the record's encoding: ResourceType i8 | ResourceName
// | Name | Delete bool | Value (only without Delete).
func (r ConfigRecord) AppendTo(dst []byte) ([]byte, error) {
	if err := checkLengths(r.Type(), []string{r.ResourceName, r.Name, r.Value}); err != nil {
		return dst, err
	}
	if r.Delete && r.Value != "" {
		return dst, badRecord(r.Type(), "a deletion of %s carries a value", r.Name)
	}
	dst = header(dst, r.Type())
	dst = append(dst, byte(r.ResourceType))
	dst = putStr(dst, r.ResourceName)
	dst = putStr(dst, r.Name)
	dst = putBool(dst, r.Delete)
	if !r.Delete {
		dst = putStr(dst, r.Value)
	}
	return dst, nil
}

// AppendTo appends the record's encoding to dst.
func (r RemoveTopicRecord) AppendTo(dst []byte) ([]byte, error) {
	if err := checkLengths(r.Type(), []string{r.Name}); err != nil {
		return dst, err
	}
	return putStr(header(dst, r.Type()), r.Name), nil
}

// AppendTo appends the record's encoding to dst.
func (r ProducerIDsRecord) AppendTo(dst []byte) ([]byte, error) {
	dst = header(dst, r.Type())
	dst = putI32(dst, r.BrokerID)
	dst = putI64(dst, r.BrokerEpoch)
	return putI64(dst, r.NextProducerID), nil
}

// recordDecoder reads one record's fields. The first error sticks and later
// reads return zero values, so a decode function reads every field and
// checks once.
type recordDecoder struct {
	t   RecordType
	buf []byte
	off int
	err error
}

func (d *recordDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = badRecord(d.t, format, args...)
	}
}

func (d *recordDecoder) take(field string, n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.buf)-d.off {
		d.fail("%s: need %d bytes, have %d", field, n, len(d.buf)-d.off)
		return nil
	}
	b := d.buf[d.off : d.off+n]
	d.off += n
	return b
}

func (d *recordDecoder) u16(field string) int {
	b := d.take(field, 2)
	if b == nil {
		return 0
	}
	return int(binary.BigEndian.Uint16(b))
}

func (d *recordDecoder) i32(field string) int32 {
	b := d.take(field, 4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

func (d *recordDecoder) i64(field string) int64 {
	b := d.take(field, 8)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

func (d *recordDecoder) i8(field string) int8 {
	b := d.take(field, 1)
	if b == nil {
		return 0
	}
	return int8(b[0])
}

func (d *recordDecoder) boolean(field string) bool {
	switch v := d.i8(field); v {
	case 0:
		return false
	case 1:
		return true
	default:
		d.fail("%s = %d, want 0 or 1", field, v)
		return false
	}
}

func (d *recordDecoder) change(field string) BoolChange {
	c := BoolChange(d.i8(field))
	if d.err == nil && !c.valid() {
		d.fail("%s = %d, want -1, 0 or 1", field, int8(c))
	}
	return c
}

func (d *recordDecoder) recoveryState() wire.LeaderRecoveryState {
	s := wire.LeaderRecoveryState(d.i8("LeaderRecoveryState"))
	if d.err == nil && s != wire.LeaderRecovered && s != wire.LeaderRecovering {
		d.fail("LeaderRecoveryState = %d", int8(s))
	}
	return s
}

func (d *recordDecoder) str(field string) string {
	return string(d.take(field, d.u16(field)))
}

// i32s reads a counted array, checking the count against the bytes left
// before allocating. Empty decodes as nil.
func (d *recordDecoder) i32s(field string) []int32 {
	n := d.u16(field)
	if d.err != nil || n == 0 {
		return nil
	}
	if 4*n > len(d.buf)-d.off {
		d.fail("%s: %d ids need %d bytes, have %d", field, n, 4*n, len(d.buf)-d.off)
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = d.i32(field)
	}
	return out
}

func (d *recordDecoder) uuid(field string) [16]byte {
	var id [16]byte
	copy(id[:], d.take(field, 16))
	return id
}

// DecodeRecord decodes one metadata record (a Kafka record's value). It
// never panics; every error matches ErrBadRecord (and so
// wire.ErrCorruptMessage). Strings and arrays are copied: the result does
// not alias b.
func DecodeRecord(b []byte) (Record, error) {
	if len(b) < 2 {
		return nil, badRecord(0, "%d bytes, want at least a type and a version", len(b))
	}
	d := recordDecoder{t: RecordType(b[0]), buf: b, off: 2}
	if b[1] != recordVersion {
		return nil, badRecord(d.t, "version %d, want %d", b[1], recordVersion)
	}
	var r Record
	switch d.t {
	case TypeRegisterBroker:
		rb := RegisterBrokerRecord{
			BrokerID:      d.i32("BrokerID"),
			BrokerEpoch:   d.i64("BrokerEpoch"),
			IncarnationID: d.uuid("IncarnationID"),
			Fenced:        d.boolean("Fenced"),
			Endpoint:      d.str("Endpoint"),
		}
		if d.err == nil && d.off < len(b) {
			// Left out when empty: written out empty is not its encoding.
			if rb.KafkaEndpoint = d.str("KafkaEndpoint"); d.err == nil && rb.KafkaEndpoint == "" {
				d.fail("KafkaEndpoint: an empty string, which is encoded by leaving it out")
			}
		}
		r = rb
	case TypeBrokerRegistrationChange:
		r = BrokerRegistrationChangeRecord{
			BrokerID:             d.i32("BrokerID"),
			BrokerEpoch:          d.i64("BrokerEpoch"),
			Fenced:               d.change("Fenced"),
			InControlledShutdown: d.change("InControlledShutdown"),
		}
	case TypeTopic:
		r = TopicRecord{
			Name:                  d.str("Name"),
			MinISR:                d.i32("MinISR"),
			UncleanLeaderElection: d.boolean("UncleanLeaderElection"),
		}
	case TypePartition:
		r = PartitionRecord{
			Topic:               d.str("Topic"),
			Partition:           d.i32("Partition"),
			Replicas:            d.i32s("Replicas"),
			ISR:                 d.i32s("ISR"),
			ELR:                 d.i32s("ELR"),
			LastKnownELR:        d.i32s("LastKnownELR"),
			Leader:              d.i32("Leader"),
			LeaderEpoch:         d.i32("LeaderEpoch"),
			PartitionEpoch:      d.i32("PartitionEpoch"),
			LeaderRecoveryState: d.recoveryState(),
		}
	case TypePartitionChange:
		pc := PartitionChangeRecord{
			Topic:               d.str("Topic"),
			Partition:           d.i32("Partition"),
			ISR:                 d.i32s("ISR"),
			ELR:                 d.i32s("ELR"),
			LastKnownELR:        d.i32s("LastKnownELR"),
			Leader:              d.i32("Leader"),
			LeaderEpoch:         d.i32("LeaderEpoch"),
			PartitionEpoch:      d.i32("PartitionEpoch"),
			LeaderRecoveryState: d.recoveryState(),
		}
		if d.err == nil && d.off < len(b) {
			pc.Replicas = d.i32s("Replicas")
			pc.AddingReplicas = d.i32s("AddingReplicas")
			pc.RemovingReplicas = d.i32s("RemovingReplicas")
			if d.err == nil && !pc.reassigns() {
				d.fail("Replicas, AddingReplicas, RemovingReplicas: all empty, which is encoded by leaving them out")
			}
		}
		r = pc
	case TypeRemoveTopic:
		r = RemoveTopicRecord{Name: d.str("Name")}
	case TypeConfig:
		c := ConfigRecord{ResourceType: d.i8("ResourceType"), ResourceName: d.str("ResourceName"), Name: d.str("Name"), Delete: d.boolean("Delete")}
		if !c.Delete {
			c.Value = d.str("Value")
		}
		r = c
	case TypeProducerIDs:
		r = ProducerIDsRecord{
			BrokerID:       d.i32("BrokerID"),
			BrokerEpoch:    d.i64("BrokerEpoch"),
			NextProducerID: d.i64("NextProducerID"),
		}
	default:
		return nil, badRecord(d.t, "unknown record type")
	}
	if d.err == nil && d.off != len(b) {
		d.fail("%d bytes after the last field", len(b)-d.off)
	}
	if d.err != nil {
		return nil, d.err
	}
	return r, nil
}

// cloneIDs copies an id list, giving nil for an empty one so that "none"
// has one in-memory form.
func cloneIDs(ids []int32) []int32 {
	if len(ids) == 0 {
		return nil
	}
	return slices.Clone(ids)
}
