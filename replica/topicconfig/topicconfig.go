package topicconfig

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kaenlog/kaenlog/wire"
)

// Kafka's names of the topic configs kaenlog keeps.
const (
	RetentionMs           = "retention.ms"
	RetentionBytes        = "retention.bytes"
	SegmentBytes          = "segment.bytes"
	SegmentMs             = "segment.ms"
	CleanupPolicy         = "cleanup.policy"
	MinCompactionLagMs    = "min.compaction.lag.ms"
	DeleteRetentionMs     = "delete.retention.ms"
	MinInsyncReplicas     = "min.insync.replicas"
	MaxMessageBytes       = "max.message.bytes"
	UncleanLeaderElection = "unclean.leader.election.enable"
	MessageTimestampType  = "message.timestamp.type"
)

// The values of cleanup.policy's list and of message.timestamp.type.
const (
	PolicyDelete  = "delete"
	PolicyCompact = "compact"
	CreateTime    = "CreateTime"
	LogAppendTime = "LogAppendTime"
)

// Type is a config's type, as Kafka's ConfigDef types it.
type Type uint8

const (
	// Long is a 64-bit integer.
	Long Type = iota
	// Int is a 32-bit integer.
	Int
	// Boolean is true or false.
	Boolean
	// String is one of a set of words.
	String
	// List is a comma-separated list of words.
	List
)

// Def is one config: its name, type, Kafka's default, and the range Kafka
// validates it with.
type Def struct {
	// Name is Kafka's name.
	Name string
	// Type is its type.
	Type Type
	// Default is Kafka's default, as Kafka writes it.
	Default string
	// BrokerName is the broker config that holds the cluster default
	// (Kafka's synonym: log.retention.ms for retention.ms, ...).
	BrokerName string
	min, max   int64    // integer range, inclusive
	words      []string // String and List values
}

var defs = []Def{
	{Name: CleanupPolicy, Type: List, Default: PolicyDelete, BrokerName: "log.cleanup.policy", words: []string{PolicyCompact, PolicyDelete}},
	{Name: DeleteRetentionMs, Type: Long, Default: "86400000", BrokerName: "log.cleaner.delete.retention.ms", min: 0, max: math.MaxInt64},
	{Name: MaxMessageBytes, Type: Int, Default: "1048588", BrokerName: "message.max.bytes", min: 0, max: math.MaxInt32},
	{Name: MessageTimestampType, Type: String, Default: CreateTime, BrokerName: "log.message.timestamp.type", words: []string{CreateTime, LogAppendTime}},
	{Name: MinCompactionLagMs, Type: Long, Default: "0", BrokerName: "log.cleaner.min.compaction.lag.ms", min: 0, max: math.MaxInt64},
	{Name: MinInsyncReplicas, Type: Int, Default: "1", BrokerName: "min.insync.replicas", min: 1, max: math.MaxInt32},
	{Name: RetentionBytes, Type: Long, Default: "-1", BrokerName: "log.retention.bytes", min: -1, max: math.MaxInt64},
	{Name: RetentionMs, Type: Long, Default: "604800000", BrokerName: "log.retention.ms", min: -1, max: math.MaxInt64},
	// Kafka 3's lower bound (LegacyRecord.RECORD_OVERHEAD_V0); the
	// upper is the log's (MaxSegmentBytes, an int32).
	{Name: SegmentBytes, Type: Int, Default: "1073741824", BrokerName: "log.segment.bytes", min: 14, max: math.MaxInt32},
	{Name: SegmentMs, Type: Long, Default: "604800000", BrokerName: "log.roll.ms", min: 1, max: math.MaxInt64},
	{Name: UncleanLeaderElection, Type: Boolean, Default: "false", BrokerName: "unclean.leader.election.enable"},
}

// Defs returns every config kaenlog keeps, by name.
func Defs() []Def { return slices.Clone(defs) }

// Lookup returns the config named name.
func Lookup(name string) (Def, bool) {
	i := slices.IndexFunc(defs, func(d Def) bool { return d.Name == name })
	if i < 0 {
		return Def{}, false
	}
	return defs[i], true
}

// Validate checks value for the config name as Kafka's LogConfig does. A
// refusal matches wire.ErrInvalidConfig and says why.
func Validate(name, value string) error {
	d, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("%w: config %s is not a topic config kaenlog keeps", wire.ErrInvalidConfig, name)
	}
	return d.Validate(value)
}

// Validate checks value for d. A refusal matches wire.ErrInvalidConfig.
func (d Def) Validate(value string) error {
	switch d.Type {
	case Long, Int:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < d.min || n > d.max {
			return fmt.Errorf("%w: %s = %q: want an integer in [%d, %d]", wire.ErrInvalidConfig, d.Name, value, d.min, d.max)
		}
	case Boolean:
		if value != "true" && value != "false" {
			return fmt.Errorf("%w: %s = %q: want true or false", wire.ErrInvalidConfig, d.Name, value)
		}
	case String:
		if !slices.Contains(d.words, value) {
			return fmt.Errorf("%w: %s = %q: want one of %s", wire.ErrInvalidConfig, d.Name, value, strings.Join(d.words, ", "))
		}
	case List:
		items := SplitList(value)
		if len(items) == 0 {
			return fmt.Errorf("%w: %s is empty: want %s", wire.ErrInvalidConfig, d.Name, strings.Join(d.words, ", "))
		}
		for _, it := range items {
			if !slices.Contains(d.words, it) {
				return fmt.Errorf("%w: %s = %q: %q is not one of %s", wire.ErrInvalidConfig, d.Name, value, it, strings.Join(d.words, ", "))
			}
		}
	}
	return nil
}

// SplitList splits a list config's value at its commas, trimming spaces
// and dropping empty items, as Kafka's ConfigDef parses a LIST.
func SplitList(value string) []string {
	var out []string
	for _, it := range strings.Split(value, ",") {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

// Config is a topic's configs resolved: its own values over the broker's
// defaults, parsed.
type Config struct {
	// RetentionMs is retention.ms: a segment whose newest record is older
	// is deleted; -1 keeps every segment by time.
	RetentionMs int64
	// RetentionBytes is retention.bytes: the oldest segments are deleted
	// while the partition stays at least this size; -1 keeps every
	// segment by size.
	RetentionBytes int64
	// SegmentBytes is segment.bytes: the size at which a segment rolls.
	SegmentBytes int64
	// SegmentMs is segment.ms: the age at which a segment rolls.
	SegmentMs int64
	// Delete and Compact are cleanup.policy's two words.
	Delete, Compact bool
	// MinCompactionLagMs is min.compaction.lag.ms.
	MinCompactionLagMs int64
	// DeleteRetentionMs is delete.retention.ms.
	DeleteRetentionMs int64
	// MinInsyncReplicas is min.insync.replicas.
	MinInsyncReplicas int32
	// MaxMessageBytes is max.message.bytes: the largest batch a leader
	// accepts.
	MaxMessageBytes int32
	// UncleanLeaderElection is unclean.leader.election.enable.
	UncleanLeaderElection bool
	// LogAppendTime is message.timestamp.type LogAppendTime.
	LogAppendTime bool
}

// Source says where a resolved value came from, as DescribeConfigs
// reports it.
type Source uint8

const (
	// Default is Kafka's default: nobody set it.
	Default Source = iota
	// Broker is the broker's own default (Kafka's STATIC_BROKER_CONFIG).
	Broker
	// Topic is the topic's own value (Kafka's DYNAMIC_TOPIC_CONFIG).
	Topic
)

// Value returns the value of config name for a topic whose own configs
// are own, over the broker defaults brokerDefaults (by topic config name),
// and where it came from. ok is false for a name Lookup does not know.
func Value(name string, own, brokerDefaults map[string]string) (value string, src Source, ok bool) {
	d, ok := Lookup(name)
	if !ok {
		return "", Default, false
	}
	if v, ok := own[name]; ok {
		return v, Topic, true
	}
	if v, ok := brokerDefaults[name]; ok {
		return v, Broker, true
	}
	return d.Default, Default, true
}

// Resolve parses a topic's configs: its own values over brokerDefaults
// over Kafka's defaults. Values are assumed valid (Validate); one that is
// not takes Kafka's default.
func Resolve(own, brokerDefaults map[string]string) Config {
	get := func(name string) string {
		v, _, _ := Value(name, own, brokerDefaults)
		if Validate(name, v) != nil {
			d, _ := Lookup(name)
			return d.Default
		}
		return v
	}
	num := func(name string) int64 {
		n, _ := strconv.ParseInt(get(name), 10, 64)
		return n
	}
	policy := SplitList(get(CleanupPolicy))
	return Config{
		RetentionMs:           num(RetentionMs),
		RetentionBytes:        num(RetentionBytes),
		SegmentBytes:          num(SegmentBytes),
		SegmentMs:             num(SegmentMs),
		Delete:                slices.Contains(policy, PolicyDelete),
		Compact:               slices.Contains(policy, PolicyCompact),
		MinCompactionLagMs:    num(MinCompactionLagMs),
		DeleteRetentionMs:     num(DeleteRetentionMs),
		MinInsyncReplicas:     int32(num(MinInsyncReplicas)),
		MaxMessageBytes:       int32(num(MaxMessageBytes)),
		UncleanLeaderElection: get(UncleanLeaderElection) == "true",
		LogAppendTime:         get(MessageTimestampType) == LogAppendTime,
	}
}

// AlterOp is one operation of an IncrementalAlterConfigs, Kafka's
// AlterConfigOp.OpType.
type AlterOp int8

const (
	// OpSet sets the value.
	OpSet AlterOp = 0
	// OpDelete removes the topic's own value: the default applies again.
	OpDelete AlterOp = 1
	// OpAppend adds the value's items to a list config.
	OpAppend AlterOp = 2
	// OpSubtract removes the value's items from a list config.
	OpSubtract AlterOp = 3
)

// Alter applies one operation to a topic's config name whose current
// value (own or default) is current, and returns the topic's new own
// value, or deleted for OpDelete. It validates the result; a refusal
// matches wire.ErrInvalidConfig (wire.ErrInvalidRequest for an unknown
// operation, APPEND or SUBTRACT on a config that is not a list).
func Alter(name string, op AlterOp, value, current string) (result string, deleted bool, err error) {
	d, ok := Lookup(name)
	if !ok {
		return "", false, fmt.Errorf("%w: config %s is not a topic config kaenlog keeps", wire.ErrInvalidConfig, name)
	}
	switch op {
	case OpSet:
		result = value
	case OpDelete:
		return "", true, nil
	case OpAppend, OpSubtract:
		if d.Type != List {
			return "", false, fmt.Errorf("%w: %s is not a list: APPEND and SUBTRACT apply to lists", wire.ErrInvalidConfig, name)
		}
		items := SplitList(current)
		for _, it := range SplitList(value) {
			has := slices.Contains(items, it)
			switch {
			case op == OpAppend && !has:
				items = append(items, it)
			case op == OpSubtract && has:
				items = slices.DeleteFunc(items, func(s string) bool { return s == it })
			}
		}
		result = strings.Join(items, ",")
	default:
		return "", false, fmt.Errorf("%w: config operation %d", wire.ErrInvalidRequest, op)
	}
	if err := d.Validate(result); err != nil {
		return "", false, err
	}
	return result, false, nil
}
