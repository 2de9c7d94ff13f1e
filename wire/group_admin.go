package wire

// The group coordinator's admin APIs on kaenlog's protocol: ListGroups,
// DescribeGroups, DeleteGroups and OffsetDelete, with Kafka's keys and
// fields, as group.go's member APIs.
const (
	// APIDescribeGroups marks DescribeGroupsRequest and
	// DescribeGroupsResponse.
	APIDescribeGroups APIKey = 15
	// APIListGroups marks ListGroupsRequest and ListGroupsResponse.
	APIListGroups APIKey = 16
	// APIDeleteGroups marks DeleteGroupsRequest and DeleteGroupsResponse.
	APIDeleteGroups APIKey = 42
	// APIOffsetDelete marks OffsetDeleteRequest and OffsetDeleteResponse.
	APIOffsetDelete APIKey = 47
)

const (
	minListedGroup     = 2 + 2 + 2
	minDescribedGroup  = 2 + 2 + 2 + 2 + 2 + 4
	minDescribedMember = 2 + 2 + 2 + 2 + 4 + 4
	minGroupResult     = 2 + 2
)

// ListGroupsRequest lists the groups of a broker's coordinators (Kafka's
// ListGroups). A broker lists the groups of the __consumer_offsets
// partitions it leads; a client asks every broker for all of them.
type ListGroupsRequest struct {
	// CorrelationID is echoed in the response.
	CorrelationID int32
	// States keeps only the groups in one of these states, by Kafka's
	// names ("Stable", ...; KIP-518), matched regardless of case. Empty
	// keeps all and decodes as nil.
	States []string
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m ListGroupsRequest) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "ListGroupsRequest"}
	c.count("States", len(m.States))
	size := headerSize + 4
	for i, s := range m.States {
		c.elem = i + 1
		c.str("States", s)
		size += encodedString(s)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIListGroups, m.CorrelationID)
	dst = appendInt32(dst, int32(len(m.States)))
	for _, s := range m.States {
		dst = appendString(dst, s)
	}
	return dst, nil
}

// DecodeListGroupsRequest decodes a ListGroupsRequest payload. Errors
// match ErrMalformed and name the field.
func DecodeListGroupsRequest(payload []byte) (ListGroupsRequest, error) {
	d := decoder{msg: "ListGroupsRequest", buf: payload}
	var m ListGroupsRequest
	m.CorrelationID = d.header(APIListGroups)
	if n := d.count("States", 2); n > 0 {
		m.States = make([]string, n)
		for i := range m.States {
			d.elem = i + 1
			m.States[i] = d.str("States")
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return ListGroupsRequest{}, err
	}
	return m, nil
}

// ListedGroup is one group of a ListGroupsResponse.
type ListedGroup struct {
	// Group is the group id.
	Group string
	// ProtocolType is the group's protocol type.
	ProtocolType string
	// State is the group's state, by Kafka's name.
	State string
}

// ListGroupsResponse answers a ListGroupsRequest.
type ListGroupsResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone, or the refusal (COORDINATOR_LOAD_IN_PROGRESS
	// while a coordinator loads).
	ErrorCode ErrorCode
	// Groups are the groups, by id. Empty decodes as nil.
	Groups []ListedGroup
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m ListGroupsResponse) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "ListGroupsResponse"}
	c.count("Groups", len(m.Groups))
	size := headerSize + 2 + 4
	for i, g := range m.Groups {
		c.elem = i + 1
		c.str("Groups.Group", g.Group)
		c.str("Groups.ProtocolType", g.ProtocolType)
		c.str("Groups.State", g.State)
		size += encodedString(g.Group) + encodedString(g.ProtocolType) + encodedString(g.State)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIListGroups, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, int32(len(m.Groups)))
	for _, g := range m.Groups {
		dst = appendString(dst, g.Group)
		dst = appendString(dst, g.ProtocolType)
		dst = appendString(dst, g.State)
	}
	return dst, nil
}

// DecodeListGroupsResponse decodes a ListGroupsResponse payload. Errors
// match ErrMalformed and name the field.
func DecodeListGroupsResponse(payload []byte) (ListGroupsResponse, error) {
	d := decoder{msg: "ListGroupsResponse", buf: payload}
	var m ListGroupsResponse
	m.CorrelationID = d.header(APIListGroups)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	if n := d.count("Groups", minListedGroup); n > 0 {
		m.Groups = make([]ListedGroup, n)
		for i := range m.Groups {
			d.elem = i + 1
			m.Groups[i] = ListedGroup{Group: d.str("Groups.Group"), ProtocolType: d.str("Groups.ProtocolType"), State: d.str("Groups.State")}
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return ListGroupsResponse{}, err
	}
	return m, nil
}

// DescribeGroupsRequest describes groups (Kafka's DescribeGroups), each at
// its coordinator.
type DescribeGroupsRequest struct {
	// CorrelationID is echoed in the response.
	CorrelationID int32
	// Groups are the group ids. Empty decodes as nil.
	Groups []string
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m DescribeGroupsRequest) AppendTo(dst []byte) ([]byte, error) {
	return appendGroupIDs(dst, "DescribeGroupsRequest", APIDescribeGroups, m.CorrelationID, m.Groups)
}

// DecodeDescribeGroupsRequest decodes a DescribeGroupsRequest payload.
// Errors match ErrMalformed and name the field.
func DecodeDescribeGroupsRequest(payload []byte) (DescribeGroupsRequest, error) {
	corr, groups, err := decodeGroupIDs(payload, "DescribeGroupsRequest", APIDescribeGroups)
	return DescribeGroupsRequest{CorrelationID: corr, Groups: groups}, err
}

// DescribedMember is one member of a DescribedGroup.
type DescribedMember struct {
	// MemberID is the member's id.
	MemberID string
	// GroupInstanceID is its group.instance.id, or "".
	GroupInstanceID string
	// ClientID is its client.id.
	ClientID string
	// ClientHost is its address, "" when the listener does not know it.
	ClientHost string
	// Metadata is its metadata for the selected protocol (Stable only).
	// Empty decodes as nil.
	Metadata []byte
	// Assignment is its assignment (Stable only). Empty decodes as nil.
	Assignment []byte
}

// DescribedGroup is one group of a DescribeGroupsResponse.
type DescribedGroup struct {
	// Group is the group id.
	Group string
	// ErrorCode is CodeNone, or the coordinator's refusal.
	ErrorCode ErrorCode
	// State is the group's state by Kafka's name; a group with no state
	// is "Dead".
	State string
	// ProtocolType is the group's protocol type.
	ProtocolType string
	// Protocol is the selected protocol (Stable only).
	Protocol string
	// Members are the group's members, in join order. Empty decodes as
	// nil.
	Members []DescribedMember
}

// DescribeGroupsResponse answers a DescribeGroupsRequest, group by group
// in request order.
type DescribeGroupsResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// Groups are the groups. Empty decodes as nil.
	Groups []DescribedGroup
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m DescribeGroupsResponse) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "DescribeGroupsResponse"}
	c.count("Groups", len(m.Groups))
	size := headerSize + 4
	for i, g := range m.Groups {
		c.elem = i + 1
		c.str("Groups.Group", g.Group)
		c.str("Groups.State", g.State)
		c.str("Groups.ProtocolType", g.ProtocolType)
		c.str("Groups.Protocol", g.Protocol)
		c.count("Groups.Members", len(g.Members))
		size += encodedString(g.Group) + 2 + encodedString(g.State) + encodedString(g.ProtocolType) + encodedString(g.Protocol) + 4
		for _, mb := range g.Members {
			c.str("Groups.Members.MemberID", mb.MemberID)
			c.str("Groups.Members.GroupInstanceID", mb.GroupInstanceID)
			c.str("Groups.Members.ClientID", mb.ClientID)
			c.str("Groups.Members.ClientHost", mb.ClientHost)
			c.records("Groups.Members.Metadata", mb.Metadata)
			c.records("Groups.Members.Assignment", mb.Assignment)
			size += encodedString(mb.MemberID) + encodedString(mb.GroupInstanceID) + encodedString(mb.ClientID) +
				encodedString(mb.ClientHost) + 8 + len(mb.Metadata) + len(mb.Assignment)
		}
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIDescribeGroups, m.CorrelationID)
	dst = appendInt32(dst, int32(len(m.Groups)))
	for _, g := range m.Groups {
		dst = appendString(dst, g.Group)
		dst = appendInt16(dst, int16(g.ErrorCode))
		dst = appendString(dst, g.State)
		dst = appendString(dst, g.ProtocolType)
		dst = appendString(dst, g.Protocol)
		dst = appendInt32(dst, int32(len(g.Members)))
		for _, mb := range g.Members {
			dst = appendString(dst, mb.MemberID)
			dst = appendString(dst, mb.GroupInstanceID)
			dst = appendString(dst, mb.ClientID)
			dst = appendString(dst, mb.ClientHost)
			dst = appendBytes(dst, mb.Metadata)
			dst = appendBytes(dst, mb.Assignment)
		}
	}
	return dst, nil
}

// DecodeDescribeGroupsResponse decodes a DescribeGroupsResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeDescribeGroupsResponse(payload []byte) (DescribeGroupsResponse, error) {
	d := decoder{msg: "DescribeGroupsResponse", buf: payload}
	var m DescribeGroupsResponse
	m.CorrelationID = d.header(APIDescribeGroups)
	if n := d.count("Groups", minDescribedGroup); n > 0 {
		m.Groups = make([]DescribedGroup, n)
		for i := range m.Groups {
			d.elem = i + 1
			g := &m.Groups[i]
			g.Group = d.str("Groups.Group")
			g.ErrorCode = ErrorCode(d.int16("Groups.ErrorCode"))
			g.State = d.str("Groups.State")
			g.ProtocolType = d.str("Groups.ProtocolType")
			g.Protocol = d.str("Groups.Protocol")
			if k := d.count("Groups.Members", minDescribedMember); k > 0 {
				g.Members = make([]DescribedMember, k)
				for j := range g.Members {
					g.Members[j] = DescribedMember{
						MemberID: d.str("Groups.Members.MemberID"), GroupInstanceID: d.str("Groups.Members.GroupInstanceID"),
						ClientID: d.str("Groups.Members.ClientID"), ClientHost: d.str("Groups.Members.ClientHost"),
						Metadata: d.records("Groups.Members.Metadata"), Assignment: d.records("Groups.Members.Assignment"),
					}
				}
			}
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return DescribeGroupsResponse{}, err
	}
	return m, nil
}

// DeleteGroupsRequest deletes Empty groups and their offsets (Kafka's
// DeleteGroups); the answer comes once their tombstones are committed.
type DeleteGroupsRequest struct {
	// CorrelationID is echoed in the response.
	CorrelationID int32
	// Groups are the group ids. Empty decodes as nil.
	Groups []string
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m DeleteGroupsRequest) AppendTo(dst []byte) ([]byte, error) {
	return appendGroupIDs(dst, "DeleteGroupsRequest", APIDeleteGroups, m.CorrelationID, m.Groups)
}

// DecodeDeleteGroupsRequest decodes a DeleteGroupsRequest payload. Errors
// match ErrMalformed and name the field.
func DecodeDeleteGroupsRequest(payload []byte) (DeleteGroupsRequest, error) {
	corr, groups, err := decodeGroupIDs(payload, "DeleteGroupsRequest", APIDeleteGroups)
	return DeleteGroupsRequest{CorrelationID: corr, Groups: groups}, err
}

// GroupResult is one group's result in a DeleteGroupsResponse.
type GroupResult struct {
	// Group is the group id.
	Group string
	// ErrorCode is CodeNone, or why the group was not deleted
	// (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, a coordinator's error).
	ErrorCode ErrorCode
}

// DeleteGroupsResponse answers a DeleteGroupsRequest, group by group in
// request order.
type DeleteGroupsResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// Results are the results. Empty decodes as nil.
	Results []GroupResult
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m DeleteGroupsResponse) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "DeleteGroupsResponse"}
	c.count("Results", len(m.Results))
	size := headerSize + 4
	for i, r := range m.Results {
		c.elem = i + 1
		c.str("Results.Group", r.Group)
		size += encodedString(r.Group) + 2
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIDeleteGroups, m.CorrelationID)
	dst = appendInt32(dst, int32(len(m.Results)))
	for _, r := range m.Results {
		dst = appendString(dst, r.Group)
		dst = appendInt16(dst, int16(r.ErrorCode))
	}
	return dst, nil
}

// DecodeDeleteGroupsResponse decodes a DeleteGroupsResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeDeleteGroupsResponse(payload []byte) (DeleteGroupsResponse, error) {
	d := decoder{msg: "DeleteGroupsResponse", buf: payload}
	var m DeleteGroupsResponse
	m.CorrelationID = d.header(APIDeleteGroups)
	if n := d.count("Results", minGroupResult); n > 0 {
		m.Results = make([]GroupResult, n)
		for i := range m.Results {
			d.elem = i + 1
			m.Results[i] = GroupResult{Group: d.str("Results.Group"), ErrorCode: ErrorCode(d.int16("Results.ErrorCode"))}
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return DeleteGroupsResponse{}, err
	}
	return m, nil
}

// OffsetDeleteRequest deletes a group's committed offsets of partitions
// no member is subscribed to (Kafka's OffsetDelete, KIP-496); the answer
// comes once the tombstones are committed.
type OffsetDeleteRequest struct {
	// CorrelationID is echoed in the response.
	CorrelationID int32
	// Group is the group id.
	Group string
	// Partitions are the partitions whose offsets to delete. Empty
	// decodes as nil.
	Partitions []GroupPartition
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, an invalid topic name (ErrInvalidTopic), a negative
// partition (ErrInvalidPartition) or a string longer than 32767 bytes
// (ErrFrameTooLarge).
func (m OffsetDeleteRequest) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "OffsetDeleteRequest"}
	c.str("Group", m.Group)
	c.count("Partitions", len(m.Partitions))
	size := headerSize + encodedString(m.Group) + 4
	for i, p := range m.Partitions {
		c.elem = i + 1
		c.topic("Partitions.Topic", p.Topic)
		c.partition("Partitions.Partition", p.Partition)
		size += encodedString(p.Topic) + 4
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIOffsetDelete, m.CorrelationID)
	dst = appendString(dst, m.Group)
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for _, p := range m.Partitions {
		dst = appendString(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
	}
	return dst, nil
}

// DecodeOffsetDeleteRequest decodes an OffsetDeleteRequest payload.
// Errors match ErrMalformed and name the field.
func DecodeOffsetDeleteRequest(payload []byte) (OffsetDeleteRequest, error) {
	d := decoder{msg: "OffsetDeleteRequest", buf: payload}
	var m OffsetDeleteRequest
	m.CorrelationID = d.header(APIOffsetDelete)
	m.Group = d.str("Group")
	if n := d.count("Partitions", minGroupPartition); n > 0 {
		m.Partitions = make([]GroupPartition, n)
		for i := range m.Partitions {
			d.elem = i + 1
			m.Partitions[i] = GroupPartition{Topic: d.topic("Partitions.Topic"), Partition: d.partition("Partitions.Partition")}
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return OffsetDeleteRequest{}, err
	}
	return m, nil
}

// OffsetDeleteResponse answers an OffsetDeleteRequest.
type OffsetDeleteResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is the error of the whole request.
	ErrorCode ErrorCode
	// Partitions are the per-partition results, in request order. Empty
	// decodes as nil.
	Partitions []GroupPartitionResult
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, what OffsetDeleteRequest refuses of a topic and partition.
func (m OffsetDeleteResponse) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "OffsetDeleteResponse"}
	c.count("Partitions", len(m.Partitions))
	size := headerSize + 2 + 4
	for i, p := range m.Partitions {
		c.elem = i + 1
		c.topic("Partitions.Topic", p.Topic)
		c.partition("Partitions.Partition", p.Partition)
		size += encodedString(p.Topic) + 4 + 2
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIOffsetDelete, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for _, p := range m.Partitions {
		dst = appendString(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
		dst = appendInt16(dst, int16(p.ErrorCode))
	}
	return dst, nil
}

// DecodeOffsetDeleteResponse decodes an OffsetDeleteResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeOffsetDeleteResponse(payload []byte) (OffsetDeleteResponse, error) {
	d := decoder{msg: "OffsetDeleteResponse", buf: payload}
	var m OffsetDeleteResponse
	m.CorrelationID = d.header(APIOffsetDelete)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	if n := d.count("Partitions", minCommitResult); n > 0 {
		m.Partitions = make([]GroupPartitionResult, n)
		for i := range m.Partitions {
			d.elem = i + 1
			m.Partitions[i] = GroupPartitionResult{Topic: d.topic("Partitions.Topic"), Partition: d.partition("Partitions.Partition"),
				ErrorCode: ErrorCode(d.int16("Partitions.ErrorCode"))}
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return OffsetDeleteResponse{}, err
	}
	return m, nil
}

// appendGroupIDs encodes a request that is a list of group ids.
func appendGroupIDs(dst []byte, name string, key APIKey, corr int32, groups []string) ([]byte, error) {
	c := checker{msg: name}
	c.count("Groups", len(groups))
	size := headerSize + 4
	for i, g := range groups {
		c.elem = i + 1
		c.str("Groups", g)
		size += encodedString(g)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, key, corr)
	dst = appendInt32(dst, int32(len(groups)))
	for _, g := range groups {
		dst = appendString(dst, g)
	}
	return dst, nil
}

// decodeGroupIDs decodes a request that is a list of group ids.
func decodeGroupIDs(payload []byte, name string, key APIKey) (int32, []string, error) {
	d := decoder{msg: name, buf: payload}
	corr := d.header(key)
	var groups []string
	if n := d.count("Groups", 2); n > 0 {
		groups = make([]string, n)
		for i := range groups {
			d.elem = i + 1
			groups[i] = d.str("Groups")
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return 0, nil, err
	}
	return corr, groups, nil
}

// APIKey returns APIListGroups.
func (ListGroupsRequest) APIKey() APIKey { return APIListGroups }

// Correlation returns m.CorrelationID.
func (m ListGroupsRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIListGroups.
func (ListGroupsResponse) APIKey() APIKey { return APIListGroups }

// Correlation returns m.CorrelationID.
func (m ListGroupsResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIDescribeGroups.
func (DescribeGroupsRequest) APIKey() APIKey { return APIDescribeGroups }

// Correlation returns m.CorrelationID.
func (m DescribeGroupsRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIDescribeGroups.
func (DescribeGroupsResponse) APIKey() APIKey { return APIDescribeGroups }

// Correlation returns m.CorrelationID.
func (m DescribeGroupsResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIDeleteGroups.
func (DeleteGroupsRequest) APIKey() APIKey { return APIDeleteGroups }

// Correlation returns m.CorrelationID.
func (m DeleteGroupsRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIDeleteGroups.
func (DeleteGroupsResponse) APIKey() APIKey { return APIDeleteGroups }

// Correlation returns m.CorrelationID.
func (m DeleteGroupsResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIOffsetDelete.
func (OffsetDeleteRequest) APIKey() APIKey { return APIOffsetDelete }

// Correlation returns m.CorrelationID.
func (m OffsetDeleteRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIOffsetDelete.
func (OffsetDeleteResponse) APIKey() APIKey { return APIOffsetDelete }

// Correlation returns m.CorrelationID.
func (m OffsetDeleteResponse) Correlation() int32 { return m.CorrelationID }
