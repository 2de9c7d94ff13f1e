package wire

import (
	"fmt"
	"strconv"
)

// CreateTopicsRequest asks the controller to create topics, as Kafka's
// CreateTopics does: each topic is created, or refused, on its own and
// answered in the response's Topics, in the request's order.
type CreateTopicsRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Topics are the topics to create. Empty decodes as nil.
	Topics []CreatableTopic
	// ValidateOnly asks the controller to check the request as it would
	// create the topics, and answer so, without creating any (Kafka's
	// CreateTopics validateOnly).
	ValidateOnly bool
}

// CreatableTopic is one topic of a CreateTopicsRequest (Kafka's
// CreatableTopic).
type CreatableTopic struct {
	// Name is the topic's name.
	Name string
	// Partitions is the number of partitions. With an Assignment it must
	// be 0 or len(Assignment).
	Partitions int32
	// ReplicationFactor is the number of replicas per partition. With an
	// Assignment it must be 0 or the length of every replica list.
	ReplicationFactor int16
	// Assignment optionally gives each partition's replica list
	// explicitly, in preference order; nil lets the controller place them.
	// Empty decodes as nil, as does each empty replica list.
	Assignment [][]int32
	// Configs are the topic's own configs, by Kafka's names
	// (min.insync.replicas, retention.ms, ...); a config left out takes
	// the cluster's default. Empty decodes as nil.
	Configs []TopicConfig
}

// TopicConfig is one topic config: Kafka's name and its value as Kafka
// writes it (a decimal number, true or false, a comma-separated list).
type TopicConfig struct {
	// Name is the config's Kafka name.
	Name string
	// Value is its value.
	Value string
}

// CreateTopicResult is one topic's answer in a CreateTopicsResponse
// (Kafka's CreatableTopicResult).
type CreateTopicResult struct {
	// Name is the topic, as the request named it.
	Name string
	// ErrorCode is CodeNone once the topic is in the metadata log (or,
	// with ValidateOnly, would be). Any int16 decodes.
	ErrorCode ErrorCode
	// ErrorMessage says why, in English, when ErrorCode is not CodeNone;
	// empty otherwise.
	ErrorMessage string
	// Partitions and ReplicationFactor are the topic's as created
	// (resolved from an Assignment), or -1 when it was refused.
	Partitions int32
	// ReplicationFactor: see Partitions.
	ReplicationFactor int16
}

// CreateTopicsResponse answers a CreateTopicsRequest.
type CreateTopicsResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode refuses the whole request — it did not decode, or a
	// forwarding broker got no answer from the controller in time — with
	// Topics then empty; CodeNone otherwise, each topic answered in
	// Topics. Any int16 decodes.
	ErrorCode ErrorCode
	// ErrorMessage says why the whole request was refused, or is empty.
	ErrorMessage string
	// Topics answer the request's topics, one each, in its order. Empty
	// decodes as nil.
	Topics []CreateTopicResult
}

// Err returns nil when the request and every topic in it succeeded, or an
// error for the first refusal: the whole request's, else the first
// topic's. errors.Is matches the refusal's code sentinel, and the message
// names the topic and says why.
func (m CreateTopicsResponse) Err() error {
	if m.ErrorCode != CodeNone {
		return fmt.Errorf("create topics: %w: %s", m.ErrorCode.Err(), m.ErrorMessage)
	}
	for _, t := range m.Topics {
		if t.ErrorCode != CodeNone {
			return fmt.Errorf("create topic %q: %w: %s", t.Name, t.ErrorCode.Err(), t.ErrorMessage)
		}
	}
	return nil
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m CreateTopicsRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "CreateTopicsRequest"
	if err := checkCount(name, "Topics", len(m.Topics)); err != nil {
		return dst, err
	}
	size := headerSize + 4 + 1
	for _, t := range m.Topics {
		if err := checkString(name, "Topics.Name", t.Name); err != nil {
			return dst, err
		}
		if err := checkCount(name, "Topics.Assignment", len(t.Assignment)); err != nil {
			return dst, err
		}
		if err := checkCount(name, "Topics.Configs", len(t.Configs)); err != nil {
			return dst, err
		}
		size += encodedString(t.Name) + 4 + 2 + 4 + 4
		for _, replicas := range t.Assignment {
			if err := checkCount(name, "Topics.Assignment.Replicas", len(replicas)); err != nil {
				return dst, err
			}
			size += 4 + 4*len(replicas)
		}
		for _, c := range t.Configs {
			if err := checkString(name, "Topics.Configs.Name", c.Name); err != nil {
				return dst, err
			}
			if err := checkString(name, "Topics.Configs.Value", c.Value); err != nil {
				return dst, err
			}
			size += encodedString(c.Name) + encodedString(c.Value)
		}
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APICreateTopics, m.CorrelationID)
	dst = appendInt32(dst, int32(len(m.Topics)))
	for _, t := range m.Topics {
		dst = appendString(dst, t.Name)
		dst = appendInt32(dst, t.Partitions)
		dst = appendInt16(dst, t.ReplicationFactor)
		dst = appendInt32(dst, int32(len(t.Assignment)))
		for _, replicas := range t.Assignment {
			dst = appendInt32s(dst, replicas)
		}
		dst = appendInt32(dst, int32(len(t.Configs)))
		for _, c := range t.Configs {
			dst = appendString(dst, c.Name)
			dst = appendString(dst, c.Value)
		}
	}
	return appendBool(dst, m.ValidateOnly), nil
}

// DecodeCreateTopicsRequest decodes a CreateTopicsRequest payload. Errors
// match ErrMalformed and name the field.
func DecodeCreateTopicsRequest(payload []byte) (CreateTopicsRequest, error) {
	d := decoder{msg: "CreateTopicsRequest", buf: payload}
	var m CreateTopicsRequest
	m.CorrelationID = d.header(APICreateTopics)
	// A topic is at least an empty name, the two counts and two empty
	// arrays: 2+4+2+4+4 bytes.
	if n := d.count("Topics", 16); n > 0 {
		m.Topics = make([]CreatableTopic, n)
		for i := range m.Topics {
			t := &m.Topics[i]
			t.Name = d.str("Topics.Name")
			t.Partitions = d.int32("Topics.Partitions")
			t.ReplicationFactor = d.int16("Topics.ReplicationFactor")
			if n := d.count("Topics.Assignment", 4); n > 0 {
				t.Assignment = make([][]int32, n)
				for p := range t.Assignment {
					t.Assignment[p] = d.int32s("Topics.Assignment.Replicas")
				}
			}
			if n := d.count("Topics.Configs", 4); n > 0 {
				t.Configs = make([]TopicConfig, n)
				for c := range t.Configs {
					t.Configs[c] = TopicConfig{Name: d.str("Topics.Configs.Name"), Value: d.str("Topics.Configs.Value")}
				}
			}
		}
	}
	m.ValidateOnly = d.boolean("ValidateOnly")
	if err := d.finish(); err != nil {
		return CreateTopicsRequest{}, err
	}
	return m, nil
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m CreateTopicsResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "CreateTopicsResponse"
	if err := checkString(name, "ErrorMessage", m.ErrorMessage); err != nil {
		return dst, err
	}
	if err := checkCount(name, "Topics", len(m.Topics)); err != nil {
		return dst, err
	}
	size := headerSize + 2 + encodedString(m.ErrorMessage) + 4
	for _, t := range m.Topics {
		if err := checkString(name, "Topics.Name", t.Name); err != nil {
			return dst, err
		}
		if err := checkString(name, "Topics.ErrorMessage", t.ErrorMessage); err != nil {
			return dst, err
		}
		size += encodedString(t.Name) + 2 + encodedString(t.ErrorMessage) + 4 + 2
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APICreateTopics, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendString(dst, m.ErrorMessage)
	dst = appendInt32(dst, int32(len(m.Topics)))
	for _, t := range m.Topics {
		dst = appendString(dst, t.Name)
		dst = appendInt16(dst, int16(t.ErrorCode))
		dst = appendString(dst, t.ErrorMessage)
		dst = appendInt32(dst, t.Partitions)
		dst = appendInt16(dst, t.ReplicationFactor)
	}
	return dst, nil
}

// DecodeCreateTopicsResponse decodes a CreateTopicsResponse payload. Errors
// match ErrMalformed and name the field.
func DecodeCreateTopicsResponse(payload []byte) (CreateTopicsResponse, error) {
	d := decoder{msg: "CreateTopicsResponse", buf: payload}
	m := CreateTopicsResponse{
		CorrelationID: d.header(APICreateTopics),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
		ErrorMessage:  d.str("ErrorMessage"),
	}
	// A topic's answer is at least 2+2+2+4+2 bytes.
	if n := d.count("Topics", 12); n > 0 {
		m.Topics = make([]CreateTopicResult, n)
		for i := range m.Topics {
			m.Topics[i] = CreateTopicResult{
				Name:              d.str("Topics.Name"),
				ErrorCode:         ErrorCode(d.int16("Topics.ErrorCode")),
				ErrorMessage:      d.str("Topics.ErrorMessage"),
				Partitions:        d.int32("Topics.Partitions"),
				ReplicationFactor: d.int16("Topics.ReplicationFactor"),
			}
		}
	}
	if err := d.finish(); err != nil {
		return CreateTopicsResponse{}, err
	}
	return m, nil
}

// APIKey returns APICreateTopics.
func (CreateTopicsRequest) APIKey() APIKey { return APICreateTopics }

// Correlation returns m.CorrelationID.
func (m CreateTopicsRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APICreateTopics.
func (CreateTopicsResponse) APIKey() APIKey { return APICreateTopics }

// Correlation returns m.CorrelationID.
func (m CreateTopicsResponse) Correlation() int32 { return m.CorrelationID }

// MinInsyncReplicas returns the Configs of a topic whose
// min.insync.replicas is n, or nil (the cluster's default) for n <= 0:
// the config most callers of CreateTopics set.
func MinInsyncReplicas(n int32) []TopicConfig {
	if n <= 0 {
		return nil
	}
	return []TopicConfig{{Name: "min.insync.replicas", Value: strconv.Itoa(int(n))}}
}
