package wire

import "fmt"

// APIIncrementalAlterConfigs marks IncrementalAlterConfigsRequest and
// IncrementalAlterConfigsResponse (Kafka's key 44).
const APIIncrementalAlterConfigs APIKey = 44

// ResourceTopic is a config resource's type for a topic (Kafka's
// ConfigResource.Type TOPIC, 2).
const ResourceTopic int8 = 2

// The operations of an AlterableConfig (Kafka's AlterConfigOp.OpType).
const (
	// ConfigSet sets the config to Value.
	ConfigSet int8 = 0
	// ConfigDelete removes the resource's own value: the default applies.
	ConfigDelete int8 = 1
	// ConfigAppend adds Value's items to a list config.
	ConfigAppend int8 = 2
	// ConfigSubtract removes Value's items from a list config.
	ConfigSubtract int8 = 3
)

// IncrementalAlterConfigsRequest asks the controller to change configs,
// as Kafka's IncrementalAlterConfigs does: each resource is changed, or
// refused, on its own, all its operations together or none.
type IncrementalAlterConfigsRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Resources are the resources to change. Empty decodes as nil.
	Resources []AlterConfigsResource
	// ValidateOnly checks the changes and answers as if made, changing
	// nothing.
	ValidateOnly bool
}

// AlterConfigsResource is one resource's changes.
type AlterConfigsResource struct {
	// ResourceType is the resource's type (ResourceTopic; the controller
	// refuses any other). Any int8 decodes.
	ResourceType int8
	// ResourceName is the resource's name: the topic's.
	ResourceName string
	// Configs are the operations, applied in order. Empty decodes as nil.
	Configs []AlterableConfig
}

// AlterableConfig is one operation on one config.
type AlterableConfig struct {
	// Name is the config's Kafka name.
	Name string
	// Op is ConfigSet, ConfigDelete, ConfigAppend or ConfigSubtract. Any
	// int8 decodes; the controller refuses another.
	Op int8
	// Value is the operation's value (empty for ConfigDelete).
	Value string
}

// AlterConfigsResourceResponse is one resource's answer.
type AlterConfigsResourceResponse struct {
	// ErrorCode is CodeNone once the changes are in the metadata log.
	// Any int16 decodes.
	ErrorCode ErrorCode
	// ErrorMessage says why, when ErrorCode is not CodeNone.
	ErrorMessage string
	// ResourceType and ResourceName name the resource as the request did.
	ResourceType int8
	// ResourceName: see ResourceType.
	ResourceName string
}

// IncrementalAlterConfigsResponse answers an
// IncrementalAlterConfigsRequest.
type IncrementalAlterConfigsResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode refuses the whole request (it did not decode, or a
	// forwarding broker got no answer in time), Resources then empty.
	ErrorCode ErrorCode
	// ErrorMessage says why the whole request was refused, or is empty.
	ErrorMessage string
	// Resources answer the request's, one each, in its order. Empty
	// decodes as nil.
	Resources []AlterConfigsResourceResponse
}

// Err returns nil when the request and every resource succeeded, or an
// error for the first refusal, matching its code's sentinel.
func (m IncrementalAlterConfigsResponse) Err() error {
	if m.ErrorCode != CodeNone {
		return fmt.Errorf("alter configs: %w: %s", m.ErrorCode.Err(), m.ErrorMessage)
	}
	for _, r := range m.Resources {
		if r.ErrorCode != CodeNone {
			return fmt.Errorf("alter configs of %q: %w: %s", r.ResourceName, r.ErrorCode.Err(), r.ErrorMessage)
		}
	}
	return nil
}

func (d *decoder) int8(field string) int8 {
	b := d.take(field, 1)
	if b == nil {
		return 0
	}
	return int8(b[0])
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m IncrementalAlterConfigsRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "IncrementalAlterConfigsRequest"
	if err := checkCount(name, "Resources", len(m.Resources)); err != nil {
		return dst, err
	}
	size := headerSize + 4 + 1
	for _, r := range m.Resources {
		if err := checkString(name, "Resources.ResourceName", r.ResourceName); err != nil {
			return dst, err
		}
		if err := checkCount(name, "Resources.Configs", len(r.Configs)); err != nil {
			return dst, err
		}
		size += 1 + encodedString(r.ResourceName) + 4
		for _, c := range r.Configs {
			if err := checkString(name, "Resources.Configs.Name", c.Name); err != nil {
				return dst, err
			}
			if err := checkString(name, "Resources.Configs.Value", c.Value); err != nil {
				return dst, err
			}
			size += encodedString(c.Name) + 1 + encodedString(c.Value)
		}
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIIncrementalAlterConfigs, m.CorrelationID)
	dst = appendInt32(dst, int32(len(m.Resources)))
	for _, r := range m.Resources {
		dst = appendInt8(dst, r.ResourceType)
		dst = appendString(dst, r.ResourceName)
		dst = appendInt32(dst, int32(len(r.Configs)))
		for _, c := range r.Configs {
			dst = appendString(dst, c.Name)
			dst = appendInt8(dst, c.Op)
			dst = appendString(dst, c.Value)
		}
	}
	return appendBool(dst, m.ValidateOnly), nil
}

// DecodeIncrementalAlterConfigsRequest decodes an
// IncrementalAlterConfigsRequest payload. Errors match ErrMalformed and
// name the field.
func DecodeIncrementalAlterConfigsRequest(payload []byte) (IncrementalAlterConfigsRequest, error) {
	d := decoder{msg: "IncrementalAlterConfigsRequest", buf: payload}
	var m IncrementalAlterConfigsRequest
	m.CorrelationID = d.header(APIIncrementalAlterConfigs)
	// A resource is at least its type, an empty name and a count: 1+2+4.
	if n := d.count("Resources", 7); n > 0 {
		m.Resources = make([]AlterConfigsResource, n)
		for i := range m.Resources {
			r := &m.Resources[i]
			r.ResourceType = d.int8("Resources.ResourceType")
			r.ResourceName = d.str("Resources.ResourceName")
			// An operation is at least 2+1+2 bytes.
			if n := d.count("Resources.Configs", 5); n > 0 {
				r.Configs = make([]AlterableConfig, n)
				for j := range r.Configs {
					r.Configs[j] = AlterableConfig{Name: d.str("Resources.Configs.Name"), Op: d.int8("Resources.Configs.Op"), Value: d.str("Resources.Configs.Value")}
				}
			}
		}
	}
	m.ValidateOnly = d.boolean("ValidateOnly")
	if err := d.finish(); err != nil {
		return IncrementalAlterConfigsRequest{}, err
	}
	return m, nil
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m IncrementalAlterConfigsResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "IncrementalAlterConfigsResponse"
	if err := checkString(name, "ErrorMessage", m.ErrorMessage); err != nil {
		return dst, err
	}
	if err := checkCount(name, "Resources", len(m.Resources)); err != nil {
		return dst, err
	}
	size := headerSize + 2 + encodedString(m.ErrorMessage) + 4
	for _, r := range m.Resources {
		if err := checkString(name, "Resources.ErrorMessage", r.ErrorMessage); err != nil {
			return dst, err
		}
		if err := checkString(name, "Resources.ResourceName", r.ResourceName); err != nil {
			return dst, err
		}
		size += 2 + encodedString(r.ErrorMessage) + 1 + encodedString(r.ResourceName)
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIIncrementalAlterConfigs, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendString(dst, m.ErrorMessage)
	dst = appendInt32(dst, int32(len(m.Resources)))
	for _, r := range m.Resources {
		dst = appendInt16(dst, int16(r.ErrorCode))
		dst = appendString(dst, r.ErrorMessage)
		dst = appendInt8(dst, r.ResourceType)
		dst = appendString(dst, r.ResourceName)
	}
	return dst, nil
}

// DecodeIncrementalAlterConfigsResponse decodes an
// IncrementalAlterConfigsResponse payload. Errors match ErrMalformed and
// name the field.
func DecodeIncrementalAlterConfigsResponse(payload []byte) (IncrementalAlterConfigsResponse, error) {
	d := decoder{msg: "IncrementalAlterConfigsResponse", buf: payload}
	m := IncrementalAlterConfigsResponse{
		CorrelationID: d.header(APIIncrementalAlterConfigs),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
		ErrorMessage:  d.str("ErrorMessage"),
	}
	// A resource's answer is at least 2+2+1+2 bytes.
	if n := d.count("Resources", 7); n > 0 {
		m.Resources = make([]AlterConfigsResourceResponse, n)
		for i := range m.Resources {
			m.Resources[i] = AlterConfigsResourceResponse{
				ErrorCode:    ErrorCode(d.int16("Resources.ErrorCode")),
				ErrorMessage: d.str("Resources.ErrorMessage"),
				ResourceType: d.int8("Resources.ResourceType"),
				ResourceName: d.str("Resources.ResourceName"),
			}
		}
	}
	if err := d.finish(); err != nil {
		return IncrementalAlterConfigsResponse{}, err
	}
	return m, nil
}

// APIKey returns APIIncrementalAlterConfigs.
func (IncrementalAlterConfigsRequest) APIKey() APIKey { return APIIncrementalAlterConfigs }

// Correlation returns m.CorrelationID.
func (m IncrementalAlterConfigsRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIIncrementalAlterConfigs.
func (IncrementalAlterConfigsResponse) APIKey() APIKey { return APIIncrementalAlterConfigs }

// Correlation returns m.CorrelationID.
func (m IncrementalAlterConfigsResponse) Correlation() int32 { return m.CorrelationID }
