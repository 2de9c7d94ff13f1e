package wire

import "fmt"

// MetadataRequest asks the controller for the cluster's brokers and the
// state of some topics' partitions.
type MetadataRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Topics lists the topics wanted. nil means every topic (count -1 on
	// the wire, Kafka's null); an empty non-nil slice means none.
	Topics []string
	// AutoCreate, when set (Partitions > 0), asks a broker to create each
	// named topic that does not exist, through the controller, with these
	// partitions and replication factor: Kafka's AllowAutoTopicCreation
	// under auto.create.topics.enable. Encoded last, and only when set.
	AutoCreate AutoCreate
}

// AutoCreate is how a MetadataRequest's unknown topics are created; the
// zero value creates none.
type AutoCreate struct {
	// Partitions is the new topics' partition count: > 0 when set.
	Partitions int32
	// ReplicationFactor is their replication factor: > 0 when set.
	ReplicationFactor int16
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a topic name longer than 32767 bytes (ErrFrameTooLarge).
func (m MetadataRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "MetadataRequest"
	if err := checkCount(name, "Topics", len(m.Topics)); err != nil {
		return dst, err
	}
	if a := m.AutoCreate; a != (AutoCreate{}) && (a.Partitions < 1 || a.ReplicationFactor < 1) {
		return dst, fieldError(ErrInvalidValue, name, "AutoCreate", fmt.Sprintf(" = %+v, want both > 0 or both 0", a))
	}
	size := headerSize + 4 + 6
	for _, t := range m.Topics {
		if err := checkString(name, "Topics", t); err != nil {
			return dst, err
		}
		size += encodedString(t)
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIMetadata, m.CorrelationID)
	if m.Topics == nil {
		dst = appendInt32(dst, -1)
	} else {
		dst = appendInt32(dst, int32(len(m.Topics)))
		for _, t := range m.Topics {
			dst = appendString(dst, t)
		}
	}
	if m.AutoCreate != (AutoCreate{}) {
		dst = appendInt32(dst, m.AutoCreate.Partitions)
		dst = appendInt16(dst, m.AutoCreate.ReplicationFactor)
	}
	return dst, nil
}

// TopicSet returns the topics m names, each once, in the order first
// named, or nil when m names none (every topic): a Metadata request is
// answered for the set of its names, as Kafka's KafkaApis answers it, so
// a request naming one topic many times cannot make its answer many
// times the topic's metadata.
func (m MetadataRequest) TopicSet() []string {
	if len(m.Topics) < 2 {
		return m.Topics
	}
	seen := make(map[string]struct{}, min(len(m.Topics), 1024))
	out := make([]string, 0, min(len(m.Topics), 1024))
	for _, n := range m.Topics {
		if _, ok := seen[n]; !ok {
			seen[n] = struct{}{}
			out = append(out, n)
		}
	}
	return out
}

// DecodeMetadataRequest decodes a MetadataRequest payload. A Topics count of
// -1 decodes as nil (every topic) and 0 as an empty non-nil slice; any other
// negative count is malformed. Errors match ErrMalformed and name the field.
func DecodeMetadataRequest(payload []byte) (MetadataRequest, error) {
	d := decoder{msg: "MetadataRequest", buf: payload}
	var m MetadataRequest
	m.CorrelationID = d.header(APIMetadata)
	if n, null := d.nullableCount("Topics", 2); !null && d.err == nil {
		m.Topics = make([]string, n)
		for i := range m.Topics {
			m.Topics[i] = d.str("Topics")
		}
	}
	if d.err == nil && d.off < len(d.buf) {
		// Present only when set: zeros written out are not its encoding.
		m.AutoCreate = AutoCreate{Partitions: d.int32("AutoCreate.Partitions"), ReplicationFactor: d.int16("AutoCreate.ReplicationFactor")}
		if d.err == nil && (m.AutoCreate.Partitions < 1 || m.AutoCreate.ReplicationFactor < 1) {
			d.fail(ErrInvalidValue, "AutoCreate", fmt.Sprintf(" = %+v, want both > 0", m.AutoCreate))
		}
	}
	if err := d.finish(); err != nil {
		return MetadataRequest{}, err
	}
	return m, nil
}

// MetadataBroker is one registered broker in a MetadataResponse.
type MetadataBroker struct {
	// ID is the broker's id.
	ID int32
	// Endpoint is where the broker is reached.
	Endpoint string
	// Fenced says the broker may not lead or join an ISR right now.
	Fenced bool
}

// MetadataPartition is one partition's state in a MetadataResponse.
type MetadataPartition struct {
	// Partition is the partition index.
	Partition int32
	// ErrorCode is CodeNone, or e.g. CodeLeaderNotAvailable when the
	// partition has no leader. Any int16 decodes.
	ErrorCode ErrorCode
	// Leader is the partition's leader, or NoLeader.
	Leader int32
	// LeaderEpoch is the leader epoch. Never below NoEpoch.
	LeaderEpoch int32
	// PartitionEpoch is the partition epoch. Never below NoEpoch.
	PartitionEpoch int32
	// Replicas is the replica assignment in preference order.
	Replicas []int32
	// ISR is the in-sync replica set.
	ISR []int32
	// ELR is KIP-966's eligible leader replicas.
	ELR []int32
}

// MetadataTopic is one topic in a MetadataResponse.
type MetadataTopic struct {
	// Name is the topic's name.
	Name string
	// ErrorCode is CodeNone, or CodeUnknownTopicOrPartition for a topic
	// that does not exist. Any int16 decodes.
	ErrorCode ErrorCode
	// Partitions lists the topic's partitions in index order. Empty
	// decodes as nil.
	Partitions []MetadataPartition
}

// MetadataResponse answers a MetadataRequest.
type MetadataResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone unless the whole request failed (e.g. the
	// controller has failed). Any int16 decodes.
	ErrorCode ErrorCode
	// Brokers lists every registered broker, by id. Empty decodes as nil.
	Brokers []MetadataBroker
	// Topics lists the topics asked for. Empty decodes as nil.
	Topics []MetadataTopic
}

// Minimum encoded sizes of MetadataResponse's array elements, for bounding
// counts before allocation.
const (
	minMetadataBrokerSize    = 4 + 2 + 1
	minMetadataTopicSize     = 2 + 2 + 4
	minMetadataPartitionSize = 4 + 2 + 4 + 4 + 4 + 4 + 4 + 4
)

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge) or an
// epoch below NoEpoch (ErrInvalidEpoch).
func (m MetadataResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "MetadataResponse"
	size := headerSize + 2 + 4 + 4
	if err := checkCount(name, "Brokers", len(m.Brokers)); err != nil {
		return dst, err
	}
	for _, b := range m.Brokers {
		if err := checkString(name, "Brokers.Endpoint", b.Endpoint); err != nil {
			return dst, err
		}
		size += minMetadataBrokerSize + len(b.Endpoint)
	}
	if err := checkCount(name, "Topics", len(m.Topics)); err != nil {
		return dst, err
	}
	for _, t := range m.Topics {
		if err := checkString(name, "Topics.Name", t.Name); err != nil {
			return dst, err
		}
		if err := checkCount(name, "Topics.Partitions", len(t.Partitions)); err != nil {
			return dst, err
		}
		size += minMetadataTopicSize + len(t.Name)
		for _, p := range t.Partitions {
			if err := checkEpoch(name, "Topics.Partitions.LeaderEpoch", p.LeaderEpoch, NoEpoch); err != nil {
				return dst, err
			}
			if err := checkEpoch(name, "Topics.Partitions.PartitionEpoch", p.PartitionEpoch, NoEpoch); err != nil {
				return dst, err
			}
			for _, f := range [...]struct {
				field string
				n     int
			}{{"Replicas", len(p.Replicas)}, {"ISR", len(p.ISR)}, {"ELR", len(p.ELR)}} {
				if err := checkCount(name, "Topics.Partitions."+f.field, f.n); err != nil {
					return dst, err
				}
			}
			size += minMetadataPartitionSize + 4*(len(p.Replicas)+len(p.ISR)+len(p.ELR))
		}
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIMetadata, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, int32(len(m.Brokers)))
	for _, b := range m.Brokers {
		dst = appendInt32(dst, b.ID)
		dst = appendString(dst, b.Endpoint)
		dst = appendBool(dst, b.Fenced)
	}
	dst = appendInt32(dst, int32(len(m.Topics)))
	for _, t := range m.Topics {
		dst = appendString(dst, t.Name)
		dst = appendInt16(dst, int16(t.ErrorCode))
		dst = appendInt32(dst, int32(len(t.Partitions)))
		for _, p := range t.Partitions {
			dst = appendInt32(dst, p.Partition)
			dst = appendInt16(dst, int16(p.ErrorCode))
			dst = appendInt32(dst, p.Leader)
			dst = appendInt32(dst, p.LeaderEpoch)
			dst = appendInt32(dst, p.PartitionEpoch)
			dst = appendInt32s(dst, p.Replicas)
			dst = appendInt32s(dst, p.ISR)
			dst = appendInt32s(dst, p.ELR)
		}
	}
	return dst, nil
}

// DecodeMetadataResponse decodes a MetadataResponse payload. Errors match
// ErrMalformed and name the field.
func DecodeMetadataResponse(payload []byte) (MetadataResponse, error) {
	d := decoder{msg: "MetadataResponse", buf: payload}
	var m MetadataResponse
	m.CorrelationID = d.header(APIMetadata)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	if n := d.count("Brokers", minMetadataBrokerSize); n > 0 {
		m.Brokers = make([]MetadataBroker, n)
		for i := range m.Brokers {
			m.Brokers[i] = MetadataBroker{
				ID:       d.int32("Brokers.ID"),
				Endpoint: d.str("Brokers.Endpoint"),
				Fenced:   d.boolean("Brokers.Fenced"),
			}
		}
	}
	if n := d.count("Topics", minMetadataTopicSize); n > 0 {
		m.Topics = make([]MetadataTopic, n)
		for i := range m.Topics {
			t := &m.Topics[i]
			t.Name = d.str("Topics.Name")
			t.ErrorCode = ErrorCode(d.int16("Topics.ErrorCode"))
			if n := d.count("Topics.Partitions", minMetadataPartitionSize); n > 0 {
				t.Partitions = make([]MetadataPartition, n)
				for j := range t.Partitions {
					t.Partitions[j] = MetadataPartition{
						Partition:      d.int32("Topics.Partitions.Partition"),
						ErrorCode:      ErrorCode(d.int16("Topics.Partitions.ErrorCode")),
						Leader:         d.int32("Topics.Partitions.Leader"),
						LeaderEpoch:    d.epoch("Topics.Partitions.LeaderEpoch"),
						PartitionEpoch: d.epoch("Topics.Partitions.PartitionEpoch"),
						Replicas:       d.int32s("Topics.Partitions.Replicas"),
						ISR:            d.int32s("Topics.Partitions.ISR"),
						ELR:            d.int32s("Topics.Partitions.ELR"),
					}
				}
			}
		}
	}
	if err := d.finish(); err != nil {
		return MetadataResponse{}, err
	}
	return m, nil
}
