package wire

import "fmt"

// The group APIs on kaenlog's protocol: the requests a client sends to a
// group's coordinator (a broker, replica/group's state machine) to find
// it, join, sync, heartbeat, leave, commit and fetch offsets. The keys
// are Kafka's; each message names one group (Kafka's FindCoordinator v0
// to v3 and OffsetFetch v0 to v7 shape). The fields are Kafka's, the
// layouts kaenlog's own. These are wire's own structs, with codes where
// replica/group's messages carry Go errors: wire imports nothing of the
// broker's, and replica/server translates between the two.
const (
	// APIOffsetCommit marks OffsetCommitRequest and OffsetCommitResponse.
	APIOffsetCommit APIKey = 8
	// APIOffsetFetch marks OffsetFetchRequest and OffsetFetchResponse.
	APIOffsetFetch APIKey = 9
	// APIFindCoordinator marks FindCoordinatorRequest and
	// FindCoordinatorResponse.
	APIFindCoordinator APIKey = 10
	// APIJoinGroup marks JoinGroupRequest and JoinGroupResponse.
	APIJoinGroup APIKey = 11
	// APIHeartbeat marks HeartbeatRequest and HeartbeatResponse.
	APIHeartbeat APIKey = 12
	// APILeaveGroup marks LeaveGroupRequest and LeaveGroupResponse.
	APILeaveGroup APIKey = 13
	// APISyncGroup marks SyncGroupRequest and SyncGroupResponse.
	APISyncGroup APIKey = 14
)

// The smallest encodings of the group messages' array elements, which
// bound a count before anything is allocated for it.
const (
	minGroupProtocol   = 2 + 4     // Name, Metadata
	minGroupMember     = 2 + 2 + 4 // MemberID, GroupInstanceID, Metadata
	minGroupAssignment = 2 + 4     // MemberID, Assignment
	minLeavingMember   = 2 + 2
	minLeftMember      = 2 + 2 + 2
	minCommitPartition = 2 + 4 + 8 + 4 + 2
	minCommitResult    = 2 + 4 + 2
	minGroupPartition  = 2 + 4
	minFetchedOffset   = 2 + 4 + 8 + 4 + 2 + 2
)

// str refuses a string an int16 length cannot describe.
func (c *checker) str(field, s string) {
	if len(s) > maxStringLength {
		c.fail(ErrFrameTooLarge, field, fmt.Sprintf(" length = %d, max %d", len(s), maxStringLength))
	}
}

// topic reads a Topic field as a string (topicBytes' checks).
func (d *decoder) topic(field string) string {
	if b := d.topicBytes(field); b != nil {
		return string(b)
	}
	return ""
}

// appendBytes appends an int32-length-prefixed byte string (a checked
// length).
func appendBytes(dst, b []byte) []byte {
	dst = appendInt32(dst, int32(len(b)))
	return append(dst, b...)
}

// FindCoordinatorRequest asks a broker which broker coordinates a group
// (Kafka's FindCoordinator, key type 0). The first one for a cluster
// creates __consumer_offsets, as Kafka's does.
type FindCoordinatorRequest struct {
	// CorrelationID is echoed in the response.
	CorrelationID int32
	// Group is the group id.
	Group string
}

// AppendTo appends the encoded request to dst.
func (m FindCoordinatorRequest) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "FindCoordinatorRequest"}
	c.str("Group", m.Group)
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, headerSize+encodedString(m.Group))
	dst = appendHeader(dst, APIFindCoordinator, m.CorrelationID)
	return appendString(dst, m.Group), nil
}

// DecodeFindCoordinatorRequest decodes a FindCoordinatorRequest payload.
// Errors match ErrMalformed and name the field.
func DecodeFindCoordinatorRequest(payload []byte) (FindCoordinatorRequest, error) {
	d := decoder{msg: "FindCoordinatorRequest", buf: payload}
	var m FindCoordinatorRequest
	m.CorrelationID = d.header(APIFindCoordinator)
	m.Group = d.str("Group")
	if err := d.finish(); err != nil {
		return FindCoordinatorRequest{}, err
	}
	return m, nil
}

// FindCoordinatorResponse answers a FindCoordinatorRequest: the broker id
// of the leader of the group's partition of __consumer_offsets (its
// address is in the metadata), or CodeCoordinatorNotAvailable while that
// partition has none or the topic is being created.
type FindCoordinatorResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone or why no coordinator was found.
	ErrorCode ErrorCode
	// NodeID is the coordinator's broker id, NoLeader with an error.
	NodeID int32
}

// AppendTo appends the encoded response to dst.
func (m FindCoordinatorResponse) AppendTo(dst []byte) ([]byte, error) {
	dst = grow(dst, headerSize+2+4)
	dst = appendHeader(dst, APIFindCoordinator, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	return appendInt32(dst, m.NodeID), nil
}

// DecodeFindCoordinatorResponse decodes a FindCoordinatorResponse
// payload. Errors match ErrMalformed and name the field.
func DecodeFindCoordinatorResponse(payload []byte) (FindCoordinatorResponse, error) {
	d := decoder{msg: "FindCoordinatorResponse", buf: payload}
	var m FindCoordinatorResponse
	m.CorrelationID = d.header(APIFindCoordinator)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	m.NodeID = d.int32("NodeID")
	if err := d.finish(); err != nil {
		return FindCoordinatorResponse{}, err
	}
	return m, nil
}

// GroupProtocol is one protocol a joining member supports, with its
// metadata (for the "consumer" protocol type, Kafka's
// ConsumerProtocolSubscription).
type GroupProtocol struct {
	// Name is the protocol's name, an assignor such as "range".
	Name string
	// Metadata is opaque to the coordinator. Empty decodes as nil.
	Metadata []byte
}

// JoinGroupRequest asks to join a group (Kafka's JoinGroup). The
// coordinator answers a dynamic member's first join, with no MemberID,
// with CodeMemberIDRequired and the id to join with (KIP-394, Kafka's
// JoinGroup v4+: kaenlog's protocol always requires it). The answer waits
// for the rebalance, up to RebalanceTimeoutMs.
type JoinGroupRequest struct {
	// CorrelationID is echoed in the response.
	CorrelationID int32
	// Group is the group id.
	Group string
	// SessionTimeoutMs is how long the member may go without a heartbeat.
	SessionTimeoutMs int32
	// RebalanceTimeoutMs is how long the coordinator waits for members to
	// join again once a rebalance starts.
	RebalanceTimeoutMs int32
	// MemberID is the member's id, "" on a dynamic member's first join.
	MemberID string
	// GroupInstanceID is a static member's group.instance.id (KIP-345),
	// "" for a dynamic member.
	GroupInstanceID string
	// ProtocolType is the members' protocol type, such as "consumer".
	ProtocolType string
	// Protocols are the protocols the member supports, preferred first.
	Protocols []GroupProtocol
	// ClientID names the client; a new member id starts with it.
	ClientID string
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a negative timeout (ErrNegativeTimeout) or a string longer
// than 32767 bytes (ErrFrameTooLarge).
func (m JoinGroupRequest) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "JoinGroupRequest"}
	c.str("Group", m.Group)
	c.nonNegative("SessionTimeoutMs", m.SessionTimeoutMs, ErrNegativeTimeout)
	c.nonNegative("RebalanceTimeoutMs", m.RebalanceTimeoutMs, ErrNegativeTimeout)
	c.str("MemberID", m.MemberID)
	c.str("GroupInstanceID", m.GroupInstanceID)
	c.str("ProtocolType", m.ProtocolType)
	c.count("Protocols", len(m.Protocols))
	size := headerSize + encodedString(m.Group) + 8 + encodedString(m.MemberID) + encodedString(m.GroupInstanceID) +
		encodedString(m.ProtocolType) + 4 + encodedString(m.ClientID)
	for i, p := range m.Protocols {
		c.elem = i + 1
		c.str("Protocols.Name", p.Name)
		c.records("Protocols.Metadata", p.Metadata)
		size += encodedString(p.Name) + 4 + len(p.Metadata)
	}
	c.elem = 0
	c.str("ClientID", m.ClientID)
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIJoinGroup, m.CorrelationID)
	dst = appendString(dst, m.Group)
	dst = appendInt32(dst, m.SessionTimeoutMs)
	dst = appendInt32(dst, m.RebalanceTimeoutMs)
	dst = appendString(dst, m.MemberID)
	dst = appendString(dst, m.GroupInstanceID)
	dst = appendString(dst, m.ProtocolType)
	dst = appendInt32(dst, int32(len(m.Protocols)))
	for _, p := range m.Protocols {
		dst = appendString(dst, p.Name)
		dst = appendBytes(dst, p.Metadata)
	}
	return appendString(dst, m.ClientID), nil
}

// DecodeJoinGroupRequest decodes a JoinGroupRequest payload. Errors match
// ErrMalformed and name the field.
func DecodeJoinGroupRequest(payload []byte) (JoinGroupRequest, error) {
	d := decoder{msg: "JoinGroupRequest", buf: payload}
	var m JoinGroupRequest
	m.CorrelationID = d.header(APIJoinGroup)
	m.Group = d.str("Group")
	m.SessionTimeoutMs = d.nonNegative32("SessionTimeoutMs", ErrNegativeTimeout)
	m.RebalanceTimeoutMs = d.nonNegative32("RebalanceTimeoutMs", ErrNegativeTimeout)
	m.MemberID = d.str("MemberID")
	m.GroupInstanceID = d.str("GroupInstanceID")
	m.ProtocolType = d.str("ProtocolType")
	if n := d.count("Protocols", minGroupProtocol); n > 0 {
		m.Protocols = make([]GroupProtocol, n)
		for i := range m.Protocols {
			d.elem = i + 1
			m.Protocols[i] = GroupProtocol{Name: d.str("Protocols.Name"), Metadata: d.records("Protocols.Metadata")}
		}
		d.elem = 0
	}
	m.ClientID = d.str("ClientID")
	if err := d.finish(); err != nil {
		return JoinGroupRequest{}, err
	}
	return m, nil
}

// GroupMember is a member as the leader's JoinGroupResponse lists it.
type GroupMember struct {
	// MemberID is the member's id.
	MemberID string
	// GroupInstanceID is its group.instance.id, "" for a dynamic member.
	GroupInstanceID string
	// Metadata is its metadata for the selected protocol. Empty decodes
	// as nil.
	Metadata []byte
}

// JoinGroupResponse answers a JoinGroupRequest once the group's rebalance
// has its members, or at once with an error.
type JoinGroupResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone, or why the join was refused;
	// CodeMemberIDRequired comes with the MemberID to join with.
	ErrorCode ErrorCode
	// Generation is the generation joined, -1 with an error.
	Generation int32
	// ProtocolType is the group's protocol type.
	ProtocolType string
	// Protocol is the selected protocol.
	Protocol string
	// Leader is the leader's member id.
	Leader string
	// SkipAssignment tells a static leader that joined again in a stable
	// group not to assign (KIP-814).
	SkipAssignment bool
	// MemberID is the member's id.
	MemberID string
	// Members lists every member, for the leader only. Empty decodes as
	// nil.
	Members []GroupMember
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m JoinGroupResponse) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "JoinGroupResponse"}
	c.str("ProtocolType", m.ProtocolType)
	c.str("Protocol", m.Protocol)
	c.str("Leader", m.Leader)
	c.str("MemberID", m.MemberID)
	c.count("Members", len(m.Members))
	size := headerSize + 2 + 4 + encodedString(m.ProtocolType) + encodedString(m.Protocol) + encodedString(m.Leader) + 1 +
		encodedString(m.MemberID) + 4
	for i, mb := range m.Members {
		c.elem = i + 1
		c.str("Members.MemberID", mb.MemberID)
		c.str("Members.GroupInstanceID", mb.GroupInstanceID)
		c.records("Members.Metadata", mb.Metadata)
		size += encodedString(mb.MemberID) + encodedString(mb.GroupInstanceID) + 4 + len(mb.Metadata)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIJoinGroup, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, m.Generation)
	dst = appendString(dst, m.ProtocolType)
	dst = appendString(dst, m.Protocol)
	dst = appendString(dst, m.Leader)
	dst = appendBool(dst, m.SkipAssignment)
	dst = appendString(dst, m.MemberID)
	dst = appendInt32(dst, int32(len(m.Members)))
	for _, mb := range m.Members {
		dst = appendString(dst, mb.MemberID)
		dst = appendString(dst, mb.GroupInstanceID)
		dst = appendBytes(dst, mb.Metadata)
	}
	return dst, nil
}

// DecodeJoinGroupResponse decodes a JoinGroupResponse payload. Errors
// match ErrMalformed and name the field.
func DecodeJoinGroupResponse(payload []byte) (JoinGroupResponse, error) {
	d := decoder{msg: "JoinGroupResponse", buf: payload}
	var m JoinGroupResponse
	m.CorrelationID = d.header(APIJoinGroup)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	m.Generation = d.int32("Generation")
	m.ProtocolType = d.str("ProtocolType")
	m.Protocol = d.str("Protocol")
	m.Leader = d.str("Leader")
	m.SkipAssignment = d.boolean("SkipAssignment")
	m.MemberID = d.str("MemberID")
	if n := d.count("Members", minGroupMember); n > 0 {
		m.Members = make([]GroupMember, n)
		for i := range m.Members {
			d.elem = i + 1
			m.Members[i] = GroupMember{MemberID: d.str("Members.MemberID"), GroupInstanceID: d.str("Members.GroupInstanceID"),
				Metadata: d.records("Members.Metadata")}
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return JoinGroupResponse{}, err
	}
	return m, nil
}

// GroupAssignment is the leader's assignment for one member, opaque to
// the coordinator (for the "consumer" protocol type, Kafka's
// ConsumerProtocolAssignment).
type GroupAssignment struct {
	// MemberID is the member the assignment is for.
	MemberID string
	// Assignment is what the leader assigned it. Empty decodes as nil.
	Assignment []byte
}

// SyncGroupRequest ends a member's part of a rebalance (Kafka's
// SyncGroup); the leader's carries every member's assignment. The answer
// waits for the leader's.
type SyncGroupRequest struct {
	// CorrelationID is echoed in the response.
	CorrelationID int32
	// Group is the group id.
	Group string
	// Generation is the generation the member joined.
	Generation int32
	// MemberID is the member's id.
	MemberID string
	// GroupInstanceID is a static member's group.instance.id, or "".
	GroupInstanceID string
	// ProtocolType, when not "", must be the group's.
	ProtocolType string
	// Protocol, when not "", must be the selected protocol.
	Protocol string
	// Assignments is the leader's assignment; followers send none. Empty
	// decodes as nil.
	Assignments []GroupAssignment
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m SyncGroupRequest) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "SyncGroupRequest"}
	c.str("Group", m.Group)
	c.str("MemberID", m.MemberID)
	c.str("GroupInstanceID", m.GroupInstanceID)
	c.str("ProtocolType", m.ProtocolType)
	c.str("Protocol", m.Protocol)
	c.count("Assignments", len(m.Assignments))
	size := headerSize + encodedString(m.Group) + 4 + encodedString(m.MemberID) + encodedString(m.GroupInstanceID) +
		encodedString(m.ProtocolType) + encodedString(m.Protocol) + 4
	for i, a := range m.Assignments {
		c.elem = i + 1
		c.str("Assignments.MemberID", a.MemberID)
		c.records("Assignments.Assignment", a.Assignment)
		size += encodedString(a.MemberID) + 4 + len(a.Assignment)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APISyncGroup, m.CorrelationID)
	dst = appendString(dst, m.Group)
	dst = appendInt32(dst, m.Generation)
	dst = appendString(dst, m.MemberID)
	dst = appendString(dst, m.GroupInstanceID)
	dst = appendString(dst, m.ProtocolType)
	dst = appendString(dst, m.Protocol)
	dst = appendInt32(dst, int32(len(m.Assignments)))
	for _, a := range m.Assignments {
		dst = appendString(dst, a.MemberID)
		dst = appendBytes(dst, a.Assignment)
	}
	return dst, nil
}

// DecodeSyncGroupRequest decodes a SyncGroupRequest payload. Errors match
// ErrMalformed and name the field.
func DecodeSyncGroupRequest(payload []byte) (SyncGroupRequest, error) {
	d := decoder{msg: "SyncGroupRequest", buf: payload}
	var m SyncGroupRequest
	m.CorrelationID = d.header(APISyncGroup)
	m.Group = d.str("Group")
	m.Generation = d.int32("Generation")
	m.MemberID = d.str("MemberID")
	m.GroupInstanceID = d.str("GroupInstanceID")
	m.ProtocolType = d.str("ProtocolType")
	m.Protocol = d.str("Protocol")
	if n := d.count("Assignments", minGroupAssignment); n > 0 {
		m.Assignments = make([]GroupAssignment, n)
		for i := range m.Assignments {
			d.elem = i + 1
			m.Assignments[i] = GroupAssignment{MemberID: d.str("Assignments.MemberID"), Assignment: d.records("Assignments.Assignment")}
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return SyncGroupRequest{}, err
	}
	return m, nil
}

// SyncGroupResponse answers a SyncGroupRequest with the member's
// assignment.
type SyncGroupResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone, or why the member has no assignment.
	ErrorCode ErrorCode
	// ProtocolType is the group's protocol type.
	ProtocolType string
	// Protocol is the selected protocol.
	Protocol string
	// Assignment is the leader's bytes for this member. Empty decodes as
	// nil.
	Assignment []byte
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m SyncGroupResponse) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "SyncGroupResponse"}
	c.str("ProtocolType", m.ProtocolType)
	c.str("Protocol", m.Protocol)
	c.records("Assignment", m.Assignment)
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, headerSize+2+encodedString(m.ProtocolType)+encodedString(m.Protocol)+4+len(m.Assignment))
	dst = appendHeader(dst, APISyncGroup, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendString(dst, m.ProtocolType)
	dst = appendString(dst, m.Protocol)
	return appendBytes(dst, m.Assignment), nil
}

// DecodeSyncGroupResponse decodes a SyncGroupResponse payload. Errors
// match ErrMalformed and name the field.
func DecodeSyncGroupResponse(payload []byte) (SyncGroupResponse, error) {
	d := decoder{msg: "SyncGroupResponse", buf: payload}
	var m SyncGroupResponse
	m.CorrelationID = d.header(APISyncGroup)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	m.ProtocolType = d.str("ProtocolType")
	m.Protocol = d.str("Protocol")
	m.Assignment = d.records("Assignment")
	if err := d.finish(); err != nil {
		return SyncGroupResponse{}, err
	}
	return m, nil
}

// HeartbeatRequest keeps a member's session alive (Kafka's Heartbeat);
// CodeRebalanceInProgress in the answer tells the member to join again.
type HeartbeatRequest struct {
	// CorrelationID is echoed in the response.
	CorrelationID int32
	// Group is the group id.
	Group string
	// Generation is the member's generation.
	Generation int32
	// MemberID is the member's id.
	MemberID string
	// GroupInstanceID is a static member's group.instance.id, or "".
	GroupInstanceID string
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m HeartbeatRequest) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "HeartbeatRequest"}
	c.str("Group", m.Group)
	c.str("MemberID", m.MemberID)
	c.str("GroupInstanceID", m.GroupInstanceID)
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, headerSize+encodedString(m.Group)+4+encodedString(m.MemberID)+encodedString(m.GroupInstanceID))
	dst = appendHeader(dst, APIHeartbeat, m.CorrelationID)
	dst = appendString(dst, m.Group)
	dst = appendInt32(dst, m.Generation)
	dst = appendString(dst, m.MemberID)
	return appendString(dst, m.GroupInstanceID), nil
}

// DecodeHeartbeatRequest decodes a HeartbeatRequest payload. Errors match
// ErrMalformed and name the field.
func DecodeHeartbeatRequest(payload []byte) (HeartbeatRequest, error) {
	d := decoder{msg: "HeartbeatRequest", buf: payload}
	var m HeartbeatRequest
	m.CorrelationID = d.header(APIHeartbeat)
	m.Group = d.str("Group")
	m.Generation = d.int32("Generation")
	m.MemberID = d.str("MemberID")
	m.GroupInstanceID = d.str("GroupInstanceID")
	if err := d.finish(); err != nil {
		return HeartbeatRequest{}, err
	}
	return m, nil
}

// HeartbeatResponse answers a HeartbeatRequest.
type HeartbeatResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone, or why the heartbeat was refused.
	ErrorCode ErrorCode
}

// AppendTo appends the encoded response to dst.
func (m HeartbeatResponse) AppendTo(dst []byte) ([]byte, error) {
	dst = grow(dst, headerSize+2)
	dst = appendHeader(dst, APIHeartbeat, m.CorrelationID)
	return appendInt16(dst, int16(m.ErrorCode)), nil
}

// DecodeHeartbeatResponse decodes a HeartbeatResponse payload. Errors
// match ErrMalformed and name the field.
func DecodeHeartbeatResponse(payload []byte) (HeartbeatResponse, error) {
	d := decoder{msg: "HeartbeatResponse", buf: payload}
	var m HeartbeatResponse
	m.CorrelationID = d.header(APIHeartbeat)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	if err := d.finish(); err != nil {
		return HeartbeatResponse{}, err
	}
	return m, nil
}

// LeavingMember names one member of a LeaveGroupRequest: by member id, or
// a static member by group.instance.id alone.
type LeavingMember struct {
	// MemberID is the member's id, or "" to name it by instance id.
	MemberID string
	// GroupInstanceID is a static member's group.instance.id, or "".
	GroupInstanceID string
}

// LeaveGroupRequest removes members from a group (Kafka's LeaveGroup v3+,
// a batch), which rebalances without waiting for their sessions to end.
type LeaveGroupRequest struct {
	// CorrelationID is echoed in the response.
	CorrelationID int32
	// Group is the group id.
	Group string
	// Members are the members leaving. Empty decodes as nil.
	Members []LeavingMember
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m LeaveGroupRequest) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "LeaveGroupRequest"}
	c.str("Group", m.Group)
	c.count("Members", len(m.Members))
	size := headerSize + encodedString(m.Group) + 4
	for i, mb := range m.Members {
		c.elem = i + 1
		c.str("Members.MemberID", mb.MemberID)
		c.str("Members.GroupInstanceID", mb.GroupInstanceID)
		size += encodedString(mb.MemberID) + encodedString(mb.GroupInstanceID)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APILeaveGroup, m.CorrelationID)
	dst = appendString(dst, m.Group)
	dst = appendInt32(dst, int32(len(m.Members)))
	for _, mb := range m.Members {
		dst = appendString(dst, mb.MemberID)
		dst = appendString(dst, mb.GroupInstanceID)
	}
	return dst, nil
}

// DecodeLeaveGroupRequest decodes a LeaveGroupRequest payload. Errors
// match ErrMalformed and name the field.
func DecodeLeaveGroupRequest(payload []byte) (LeaveGroupRequest, error) {
	d := decoder{msg: "LeaveGroupRequest", buf: payload}
	var m LeaveGroupRequest
	m.CorrelationID = d.header(APILeaveGroup)
	m.Group = d.str("Group")
	if n := d.count("Members", minLeavingMember); n > 0 {
		m.Members = make([]LeavingMember, n)
		for i := range m.Members {
			d.elem = i + 1
			m.Members[i] = LeavingMember{MemberID: d.str("Members.MemberID"), GroupInstanceID: d.str("Members.GroupInstanceID")}
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return LeaveGroupRequest{}, err
	}
	return m, nil
}

// LeftMember is one member's result in a LeaveGroupResponse.
type LeftMember struct {
	// MemberID is the member id as the request named it.
	MemberID string
	// GroupInstanceID is the instance id as the request named it.
	GroupInstanceID string
	// ErrorCode is CodeNone, or why this member was not removed.
	ErrorCode ErrorCode
}

// LeaveGroupResponse answers a LeaveGroupRequest.
type LeaveGroupResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is the error of the whole request (a coordinator's).
	ErrorCode ErrorCode
	// Members are the per-member results, in request order. Empty
	// decodes as nil.
	Members []LeftMember
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge).
func (m LeaveGroupResponse) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "LeaveGroupResponse"}
	c.count("Members", len(m.Members))
	size := headerSize + 2 + 4
	for i, mb := range m.Members {
		c.elem = i + 1
		c.str("Members.MemberID", mb.MemberID)
		c.str("Members.GroupInstanceID", mb.GroupInstanceID)
		size += encodedString(mb.MemberID) + encodedString(mb.GroupInstanceID) + 2
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APILeaveGroup, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, int32(len(m.Members)))
	for _, mb := range m.Members {
		dst = appendString(dst, mb.MemberID)
		dst = appendString(dst, mb.GroupInstanceID)
		dst = appendInt16(dst, int16(mb.ErrorCode))
	}
	return dst, nil
}

// DecodeLeaveGroupResponse decodes a LeaveGroupResponse payload. Errors
// match ErrMalformed and name the field.
func DecodeLeaveGroupResponse(payload []byte) (LeaveGroupResponse, error) {
	d := decoder{msg: "LeaveGroupResponse", buf: payload}
	var m LeaveGroupResponse
	m.CorrelationID = d.header(APILeaveGroup)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	if n := d.count("Members", minLeftMember); n > 0 {
		m.Members = make([]LeftMember, n)
		for i := range m.Members {
			d.elem = i + 1
			m.Members[i] = LeftMember{MemberID: d.str("Members.MemberID"), GroupInstanceID: d.str("Members.GroupInstanceID"),
				ErrorCode: ErrorCode(d.int16("Members.ErrorCode"))}
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return LeaveGroupResponse{}, err
	}
	return m, nil
}

// OffsetCommitPartition is one partition's offset in an
// OffsetCommitRequest.
type OffsetCommitPartition struct {
	// Topic is the topic's name.
	Topic string
	// Partition is the partition's index.
	Partition int32
	// Offset is the offset committed: the next one to consume.
	Offset uint64
	// LeaderEpoch is the leader epoch of the record before Offset
	// (KIP-320), or NoEpoch.
	LeaderEpoch int32
	// Metadata is kept with the offset, opaque.
	Metadata string
}

// OffsetCommitRequest commits a group's offsets (Kafka's OffsetCommit).
// The answer comes once the offsets are committed in __consumer_offsets
// (its high watermark has passed them). Generation -1 with no MemberID
// commits outside group management, accepted while the group is Empty.
type OffsetCommitRequest struct {
	// CorrelationID is echoed in the response.
	CorrelationID int32
	// Group is the group id.
	Group string
	// Generation is the committer's generation, or -1.
	Generation int32
	// MemberID is the committer's member id, or "".
	MemberID string
	// GroupInstanceID is a static member's group.instance.id, or "".
	GroupInstanceID string
	// Partitions are the offsets to commit. Empty decodes as nil.
	Partitions []OffsetCommitPartition
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, an invalid topic name (ErrInvalidTopic), a negative
// partition (ErrInvalidPartition), an offset above math.MaxInt64
// (ErrOffsetOverflow), an epoch below NoEpoch (ErrInvalidEpoch) or a
// string longer than 32767 bytes (ErrFrameTooLarge).
func (m OffsetCommitRequest) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "OffsetCommitRequest"}
	c.str("Group", m.Group)
	c.str("MemberID", m.MemberID)
	c.str("GroupInstanceID", m.GroupInstanceID)
	c.count("Partitions", len(m.Partitions))
	size := headerSize + encodedString(m.Group) + 4 + encodedString(m.MemberID) + encodedString(m.GroupInstanceID) + 4
	for i, p := range m.Partitions {
		c.elem = i + 1
		c.topic("Partitions.Topic", p.Topic)
		c.partition("Partitions.Partition", p.Partition)
		c.offset("Partitions.Offset", p.Offset)
		c.epoch("Partitions.LeaderEpoch", p.LeaderEpoch, NoEpoch)
		c.str("Partitions.Metadata", p.Metadata)
		size += encodedString(p.Topic) + 4 + 8 + 4 + encodedString(p.Metadata)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIOffsetCommit, m.CorrelationID)
	dst = appendString(dst, m.Group)
	dst = appendInt32(dst, m.Generation)
	dst = appendString(dst, m.MemberID)
	dst = appendString(dst, m.GroupInstanceID)
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for _, p := range m.Partitions {
		dst = appendString(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
		dst = appendInt64(dst, int64(p.Offset))
		dst = appendInt32(dst, p.LeaderEpoch)
		dst = appendString(dst, p.Metadata)
	}
	return dst, nil
}

// DecodeOffsetCommitRequest decodes an OffsetCommitRequest payload.
// Errors match ErrMalformed and name the field.
func DecodeOffsetCommitRequest(payload []byte) (OffsetCommitRequest, error) {
	d := decoder{msg: "OffsetCommitRequest", buf: payload}
	var m OffsetCommitRequest
	m.CorrelationID = d.header(APIOffsetCommit)
	m.Group = d.str("Group")
	m.Generation = d.int32("Generation")
	m.MemberID = d.str("MemberID")
	m.GroupInstanceID = d.str("GroupInstanceID")
	if n := d.count("Partitions", minCommitPartition); n > 0 {
		m.Partitions = make([]OffsetCommitPartition, n)
		for i := range m.Partitions {
			d.elem = i + 1
			p := &m.Partitions[i]
			p.Topic = d.topic("Partitions.Topic")
			p.Partition = d.partition("Partitions.Partition")
			p.Offset = d.offset("Partitions.Offset")
			p.LeaderEpoch = d.epoch("Partitions.LeaderEpoch")
			p.Metadata = d.str("Partitions.Metadata")
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return OffsetCommitRequest{}, err
	}
	return m, nil
}

// GroupPartitionResult is one partition's result of a group request.
type GroupPartitionResult struct {
	// Topic is the topic's name.
	Topic string
	// Partition is the partition's index.
	Partition int32
	// ErrorCode is CodeNone, or why the partition's operation failed.
	ErrorCode ErrorCode
}

// OffsetCommitResponse answers an OffsetCommitRequest, partition by
// partition in request order. A refusal of the whole request is repeated
// on every partition, as in Kafka's response.
type OffsetCommitResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// Partitions are the results. Empty decodes as nil.
	Partitions []GroupPartitionResult
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, what OffsetCommitRequest refuses of a topic and partition.
func (m OffsetCommitResponse) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "OffsetCommitResponse"}
	c.count("Partitions", len(m.Partitions))
	size := headerSize + 4
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
	dst = appendHeader(dst, APIOffsetCommit, m.CorrelationID)
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for _, p := range m.Partitions {
		dst = appendString(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
		dst = appendInt16(dst, int16(p.ErrorCode))
	}
	return dst, nil
}

// DecodeOffsetCommitResponse decodes an OffsetCommitResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeOffsetCommitResponse(payload []byte) (OffsetCommitResponse, error) {
	d := decoder{msg: "OffsetCommitResponse", buf: payload}
	var m OffsetCommitResponse
	m.CorrelationID = d.header(APIOffsetCommit)
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
		return OffsetCommitResponse{}, err
	}
	return m, nil
}

// GroupPartition names a partition in an OffsetFetchRequest.
type GroupPartition struct {
	// Topic is the topic's name.
	Topic string
	// Partition is the partition's index.
	Partition int32
}

// OffsetFetchRequest reads a group's committed offsets (Kafka's
// OffsetFetch). Only committed offsets are answered: the coordinator
// serves what the high watermark of its partition has passed.
type OffsetFetchRequest struct {
	// CorrelationID is echoed in the response.
	CorrelationID int32
	// Group is the group id.
	Group string
	// Partitions are the partitions to read; nil (a null array on the
	// wire) reads every offset the group has.
	Partitions []GroupPartition
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, what OffsetCommitRequest refuses of a topic and partition.
func (m OffsetFetchRequest) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "OffsetFetchRequest"}
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
	dst = appendHeader(dst, APIOffsetFetch, m.CorrelationID)
	dst = appendString(dst, m.Group)
	if m.Partitions == nil {
		return appendInt32(dst, -1), nil
	}
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for _, p := range m.Partitions {
		dst = appendString(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
	}
	return dst, nil
}

// DecodeOffsetFetchRequest decodes an OffsetFetchRequest payload. Errors
// match ErrMalformed and name the field.
func DecodeOffsetFetchRequest(payload []byte) (OffsetFetchRequest, error) {
	d := decoder{msg: "OffsetFetchRequest", buf: payload}
	var m OffsetFetchRequest
	m.CorrelationID = d.header(APIOffsetFetch)
	m.Group = d.str("Group")
	n, null := d.nullableCount("Partitions", minGroupPartition)
	if !null && d.err == nil {
		m.Partitions = make([]GroupPartition, n)
		for i := range m.Partitions {
			d.elem = i + 1
			m.Partitions[i] = GroupPartition{Topic: d.topic("Partitions.Topic"), Partition: d.partition("Partitions.Partition")}
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return OffsetFetchRequest{}, err
	}
	return m, nil
}

// FetchedOffset is one partition's committed offset in an
// OffsetFetchResponse.
type FetchedOffset struct {
	// Topic is the topic's name.
	Topic string
	// Partition is the partition's index.
	Partition int32
	// Offset is the committed offset, meaningful only when HasOffset.
	Offset uint64
	// HasOffset is false when the group has committed none for the
	// partition (Kafka's -1, which is the wire's form of it).
	HasOffset bool
	// LeaderEpoch is the committed leader epoch, or NoEpoch.
	LeaderEpoch int32
	// Metadata is the committed metadata, "" when none.
	Metadata string
	// ErrorCode is CodeNone, or why the partition was not read.
	ErrorCode ErrorCode
}

// OffsetFetchResponse answers an OffsetFetchRequest. A group with no
// state answers every partition with no offset and no error, as Kafka's
// coordinator does.
type OffsetFetchResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone, or the coordinator's refusal.
	ErrorCode ErrorCode
	// Partitions are the offsets, in request order (by topic and
	// partition for a request for all). Empty decodes as nil.
	Partitions []FetchedOffset
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, what OffsetCommitRequest refuses of a partition's fields.
func (m OffsetFetchResponse) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "OffsetFetchResponse"}
	c.count("Partitions", len(m.Partitions))
	size := headerSize + 2 + 4
	for i, p := range m.Partitions {
		c.elem = i + 1
		c.topic("Partitions.Topic", p.Topic)
		c.partition("Partitions.Partition", p.Partition)
		if p.HasOffset {
			c.offset("Partitions.Offset", p.Offset)
		} else if p.Offset != 0 {
			c.fail(ErrInvalidValue, "Partitions.Offset", fmt.Sprintf(" = %d without HasOffset", p.Offset))
		}
		c.epoch("Partitions.LeaderEpoch", p.LeaderEpoch, NoEpoch)
		c.str("Partitions.Metadata", p.Metadata)
		size += encodedString(p.Topic) + 4 + 8 + 4 + encodedString(p.Metadata) + 2
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIOffsetFetch, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for _, p := range m.Partitions {
		dst = appendString(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
		dst = appendInt64(dst, wireOrNone(p.Offset, p.HasOffset))
		dst = appendInt32(dst, p.LeaderEpoch)
		dst = appendString(dst, p.Metadata)
		dst = appendInt16(dst, int16(p.ErrorCode))
	}
	return dst, nil
}

// DecodeOffsetFetchResponse decodes an OffsetFetchResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeOffsetFetchResponse(payload []byte) (OffsetFetchResponse, error) {
	d := decoder{msg: "OffsetFetchResponse", buf: payload}
	var m OffsetFetchResponse
	m.CorrelationID = d.header(APIOffsetFetch)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	if n := d.count("Partitions", minFetchedOffset); n > 0 {
		m.Partitions = make([]FetchedOffset, n)
		for i := range m.Partitions {
			d.elem = i + 1
			p := &m.Partitions[i]
			p.Topic = d.topic("Partitions.Topic")
			p.Partition = d.partition("Partitions.Partition")
			p.Offset, p.HasOffset = d.optionalOffset("Partitions.Offset")
			p.LeaderEpoch = d.epoch("Partitions.LeaderEpoch")
			p.Metadata = d.str("Partitions.Metadata")
			p.ErrorCode = ErrorCode(d.int16("Partitions.ErrorCode"))
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return OffsetFetchResponse{}, err
	}
	return m, nil
}

// APIKey returns APIFindCoordinator.
func (FindCoordinatorRequest) APIKey() APIKey { return APIFindCoordinator }

// Correlation returns m.CorrelationID.
func (m FindCoordinatorRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIFindCoordinator.
func (FindCoordinatorResponse) APIKey() APIKey { return APIFindCoordinator }

// Correlation returns m.CorrelationID.
func (m FindCoordinatorResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIJoinGroup.
func (JoinGroupRequest) APIKey() APIKey { return APIJoinGroup }

// Correlation returns m.CorrelationID.
func (m JoinGroupRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIJoinGroup.
func (JoinGroupResponse) APIKey() APIKey { return APIJoinGroup }

// Correlation returns m.CorrelationID.
func (m JoinGroupResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APISyncGroup.
func (SyncGroupRequest) APIKey() APIKey { return APISyncGroup }

// Correlation returns m.CorrelationID.
func (m SyncGroupRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APISyncGroup.
func (SyncGroupResponse) APIKey() APIKey { return APISyncGroup }

// Correlation returns m.CorrelationID.
func (m SyncGroupResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIHeartbeat.
func (HeartbeatRequest) APIKey() APIKey { return APIHeartbeat }

// Correlation returns m.CorrelationID.
func (m HeartbeatRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIHeartbeat.
func (HeartbeatResponse) APIKey() APIKey { return APIHeartbeat }

// Correlation returns m.CorrelationID.
func (m HeartbeatResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APILeaveGroup.
func (LeaveGroupRequest) APIKey() APIKey { return APILeaveGroup }

// Correlation returns m.CorrelationID.
func (m LeaveGroupRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APILeaveGroup.
func (LeaveGroupResponse) APIKey() APIKey { return APILeaveGroup }

// Correlation returns m.CorrelationID.
func (m LeaveGroupResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIOffsetCommit.
func (OffsetCommitRequest) APIKey() APIKey { return APIOffsetCommit }

// Correlation returns m.CorrelationID.
func (m OffsetCommitRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIOffsetCommit.
func (OffsetCommitResponse) APIKey() APIKey { return APIOffsetCommit }

// Correlation returns m.CorrelationID.
func (m OffsetCommitResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIOffsetFetch.
func (OffsetFetchRequest) APIKey() APIKey { return APIOffsetFetch }

// Correlation returns m.CorrelationID.
func (m OffsetFetchRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIOffsetFetch.
func (OffsetFetchResponse) APIKey() APIKey { return APIOffsetFetch }

// Correlation returns m.CorrelationID.
func (m OffsetFetchResponse) Correlation() int32 { return m.CorrelationID }
