// Package wire is kaenlog's network format: length-prefixed frames; the
// data plane's messages (Produce, Fetch, ListOffsets,
// OffsetsForLeaderEpoch), which name topics and partitions; the
// controller's messages; the group APIs' (group.go: FindCoordinator,
// JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch;
// group_admin.go: ListGroups, DescribeGroups, DeleteGroups, OffsetDelete;
// served by a broker's group coordinators); one Message interface for all
// of them; and kaenlog's error-code table.
//
// The package is pure: no clock, no goroutines, no connections, and no
// other kaenlog package (a test keeps it so). Encoders append to a
// caller's buffer; decoders read a payload the caller already holds and
// never copy record bytes. Record batches travel as opaque bytes; package
// log parses them.
//
// A broker's request handling takes these Go values, never frames: it is
// handed a *FetchRequest or a *ProduceRequest and returns a FetchResponse
// or a ProduceResponse, and only the transport turns values into frames and
// frames into values (DecodeRequest, DecodeResponse, AppendFrameBuffers).
// So a second listener speaking Kafka's own protocol can later decode
// Kafka's bytes into the same structs and reuse everything behind them;
// the field names and meanings follow Kafka's JSON schemas for that reason.
//
// # Frames
//
// A stream is a sequence of frames. A frame is a big-endian int32 length
// followed by that many payload bytes:
//
//	+--------+--------+--------+--------+---------------------+
//	|     length (int32, big-endian)    |  payload (length B)  |
//	+--------+--------+--------+--------+---------------------+
//
// ReadFrame checks the length against a limit (DefaultMaxFrameSize, 100
// MiB, is Kafka's socket.request.max.bytes default) before allocating, and
// refuses a negative length. It then grows its buffer only as payload bytes
// arrive, from at most 64 KiB, so a length prefix alone never makes it hold
// the memory the prefix announces.
//
// WriteFrame writes a frame to any io.Writer in two writes. A TCP runtime
// puts each frame out in one system call without copying records:
// AppendFrameBuffers lays a message out as net.Buffers — length prefix,
// header and fixed fields in a scratch buffer, each partition's Records by
// reference — for one writev (AppendFrameHeader alone serves a payload
// that is already encoded).
//
// # Messages
//
// Every payload starts with the same 8-byte header. All integers are
// big-endian and signed, as in Kafka. The header does not say whether a
// payload is a request or a response; the direction of the connection does.
//
//	 0      2      4             8
//	+------+------+-------------+
//	|APIKey|Vers. |CorrelationID|   APIKey int16, Version int16 (always 0),
//	+------+------+-------------+   CorrelationID int32
//
// The body follows, fixed-layout, with no trailing bytes allowed, built
// from these shapes:
//
//	i8 i16 i32 i64  big-endian signed integers
//	bool            one byte, 0 or 1 and nothing else
//	string          i16 length, then that many bytes (no null string)
//	topic           a string holding a Kafka topic name: 1..249 bytes of
//	                [a-zA-Z0-9._-], neither "." nor ".." (ValidateTopic)
//	records         i32 length, then that many bytes of record batches
//	[n]{...}        i32 count n, then n elements; an empty array decodes
//	                as nil (the Into decoders keep the emptied slice)
//	[n]?{...}       the same, but count -1 means null (nil in memory) and
//	                0 an empty non-nil slice
//
// Offsets are uint64 in memory and i64 on the wire (FromWireI64,
// ToWireI64). Partition indexes are never negative. The layouts, after the
// header, with Kafka's API key numbers:
//
//	ProduceRequest (APIKey 0):
//	  Acks i16 | TimeoutMs i32
//	  | Partitions [n]{Topic topic | Partition i32 | Records records}
//	ProduceResponse (0):
//	  Partitions [n]{Topic topic | Partition i32 | ErrorCode i16
//	    | BaseOffset i64 | LogStartOffset i64}
//	FetchRequest (1):
//	  ReplicaID i32 | ReplicaEpoch i64 | MaxWaitMs i32 | MinBytes i32
//	  | MaxBytes i32
//	  | Partitions [n]{Topic topic | Partition i32 | CurrentLeaderEpoch i32
//	    | FetchOffset i64 | LastFetchedEpoch i32 | LogStartOffset i64
//	    | MaxBytes i32}
//	FetchResponse (1):
//	  ErrorCode i16
//	  | Partitions [n]{Topic topic | Partition i32 | ErrorCode i16
//	    | HighWatermark i64 | LogStartOffset i64
//	    | DivergingEpoch.Epoch i32 | DivergingEpoch.EndOffset i64
//	    | CurrentLeader.LeaderID i32 | CurrentLeader.LeaderEpoch i32
//	    | Records records}
//	ListOffsetsRequest (2):
//	  ReplicaID i32
//	  | Partitions [n]{Topic topic | Partition i32 | CurrentLeaderEpoch i32
//	    | Timestamp i64}
//	ListOffsetsResponse (2):
//	  Partitions [n]{Topic topic | Partition i32 | ErrorCode i16
//	    | Offset i64 | LeaderEpoch i32}
//	OffsetsForLeaderEpochRequest (23):
//	  ReplicaID i32
//	  | Partitions [n]{Topic topic | Partition i32 | CurrentLeaderEpoch i32
//	    | LeaderEpoch i32}
//	OffsetsForLeaderEpochResponse (23):
//	  Partitions [n]{Topic topic | Partition i32 | ErrorCode i16
//	    | Epoch i32 | EndOffset i64}
//
//	MetadataRequest (3):
//	  Topics [n]?{string}, null = every topic
//	  [| AutoCreate{Partitions i32 | ReplicationFactor i16}, only when set]
//	MetadataResponse (3):
//	  ErrorCode i16 | Brokers [n]{ID i32 | Endpoint string | Fenced bool}
//	  | Topics [n]{Name string | ErrorCode i16
//	    | Partitions [n]{Partition i32 | ErrorCode i16 | Leader i32
//	      | LeaderEpoch i32 | PartitionEpoch i32 | Replicas [n]{i32}
//	      | ISR [n]{i32} | ELR [n]{i32}}}
//	CreateTopicsRequest (19):
//	  Topics [n]{Name string | Partitions i32 | ReplicationFactor i16
//	    | Assignment [n]{[n]{i32}} | Configs [n]{Name string | Value string}}
//	  | ValidateOnly bool
//	CreateTopicsResponse (19):
//	  ErrorCode i16 | ErrorMessage string
//	  | Topics [n]{Name string | ErrorCode i16 | ErrorMessage string
//	    | Partitions i32 | ReplicationFactor i16}
//	DeleteTopicsRequest (20):
//	  Names [n]{string}
//	DeleteTopicsResponse (20):
//	  Topics [n]{Name string | ErrorCode i16}
//	IncrementalAlterConfigsRequest (44):
//	  Resources [n]{ResourceType i8 | ResourceName string
//	    | Configs [n]{Name string | Op i8 | Value string}} | ValidateOnly bool
//	IncrementalAlterConfigsResponse (44):
//	  ErrorCode i16 | ErrorMessage string
//	  | Resources [n]{ErrorCode i16 | ErrorMessage string | ResourceType i8
//	    | ResourceName string}
//	InitProducerIDRequest (22):
//	  TransactionTimeoutMs i32 | ProducerID i64 | ProducerEpoch i16
//	InitProducerIDResponse (22):
//	  ErrorCode i16 | ProducerID i64 | ProducerEpoch i16
//	CreatePartitionsRequest (37):
//	  Topic string | Count i32 | Assignment [n]{[n]{i32}} | ValidateOnly bool
//	CreatePartitionsResponse (37):
//	  ErrorCode i16 | ErrorMessage string
//	AlterPartitionReassignmentsRequest (45):
//	  Topic string | Partition i32 | Replicas [n]{i32} | Cancel bool
//	AlterPartitionReassignmentsResponse (45):
//	  ErrorCode i16 | ErrorMessage string
//	ListPartitionReassignmentsRequest (46):
//	  Topics [n]{string}
//	ListPartitionReassignmentsResponse (46):
//	  ErrorCode i16 | Reassignments [n]{Topic string | Partition i32 |
//	  Replicas [n]{i32} | AddingReplicas [n]{i32} | RemovingReplicas [n]{i32}}
//
//	OffsetCommitRequest (8):
//	  Group string | Generation i32 | MemberID string | GroupInstanceID string
//	  | Partitions [n]{Topic topic | Partition i32 | Offset i64
//	    | LeaderEpoch i32 | Metadata string}
//	OffsetCommitResponse (8):
//	  Partitions [n]{Topic topic | Partition i32 | ErrorCode i16}
//	OffsetFetchRequest (9):
//	  Group string | Partitions [n]?{Topic topic | Partition i32}, null = all
//	OffsetFetchResponse (9):
//	  ErrorCode i16 | Partitions [n]{Topic topic | Partition i32
//	    | Offset i64 (-1: none) | LeaderEpoch i32 | Metadata string
//	    | ErrorCode i16}
//	FindCoordinatorRequest (10):
//	  Group string
//	FindCoordinatorResponse (10):
//	  ErrorCode i16 | NodeID i32
//	JoinGroupRequest (11):
//	  Group string | SessionTimeoutMs i32 | RebalanceTimeoutMs i32
//	  | MemberID string | GroupInstanceID string | ProtocolType string
//	  | Protocols [n]{Name string | Metadata bytes} | ClientID string
//	JoinGroupResponse (11):
//	  ErrorCode i16 | Generation i32 | ProtocolType string | Protocol string
//	  | Leader string | SkipAssignment bool | MemberID string
//	  | Members [n]{MemberID string | GroupInstanceID string | Metadata bytes}
//	HeartbeatRequest (12):
//	  Group string | Generation i32 | MemberID string | GroupInstanceID string
//	HeartbeatResponse (12):
//	  ErrorCode i16
//	LeaveGroupRequest (13):
//	  Group string | Members [n]{MemberID string | GroupInstanceID string}
//	LeaveGroupResponse (13):
//	  ErrorCode i16 | Members [n]{MemberID string | GroupInstanceID string
//	    | ErrorCode i16}
//	SyncGroupRequest (14):
//	  Group string | Generation i32 | MemberID string | GroupInstanceID string
//	  | ProtocolType string | Protocol string
//	  | Assignments [n]{MemberID string | Assignment bytes}
//	SyncGroupResponse (14):
//	  ErrorCode i16 | ProtocolType string | Protocol string | Assignment bytes
//	DescribeGroupsRequest (15):
//	  Groups [n]{string}
//	DescribeGroupsResponse (15):
//	  Groups [n]{Group string | ErrorCode i16 | State string
//	    | ProtocolType string | Protocol string
//	    | Members [n]{MemberID string | GroupInstanceID string
//	      | ClientID string | ClientHost string | Metadata bytes
//	      | Assignment bytes}}
//	ListGroupsRequest (16):
//	  States [n]{string}
//	ListGroupsResponse (16):
//	  ErrorCode i16 | Groups [n]{Group string | ProtocolType string
//	    | State string}
//	DeleteGroupsRequest (42):
//	  Groups [n]{string}
//	DeleteGroupsResponse (42):
//	  Results [n]{Group string | ErrorCode i16}
//	OffsetDeleteRequest (47):
//	  Group string | Partitions [n]{Topic topic | Partition i32}
//	OffsetDeleteResponse (47):
//	  ErrorCode i16 | Partitions [n]{Topic topic | Partition i32
//	    | ErrorCode i16}
//
//	(bytes: i32 length, then that many opaque bytes; empty decodes as nil)
//	ElectLeadersRequest (43):
//	  Topic string | Partition i32 | Election i8 (0 clean, 1 unclean, 2 preferred)
//	ElectLeadersResponse (43):
//	  ErrorCode i16 | Leader i32 | LeaderEpoch i32 | DataMayBeLost bool
//	AlterPartitionRequest (56):
//	  BrokerID i32 | BrokerEpoch i64 | Topic string | Partition i32
//	  | LeaderEpoch i32 | PartitionEpoch i32
//	  | NewISR [n]{BrokerID i32 | BrokerEpoch i64} | LeaderRecoveryState i8
//	AlterPartitionResponse (56):
//	  ErrorCode i16 | Leader i32 | LeaderEpoch i32 | ISR [n]{i32}
//	  | PartitionEpoch i32 | LeaderRecoveryState i8
//	BrokerRegistrationRequest (62):
//	  BrokerID i32 | IncarnationID [16]byte | PreviousBrokerEpoch i64
//	  | LostData bool | Endpoint string | ClusterID string
//	BrokerRegistrationResponse (62):
//	  ErrorCode i16 | BrokerEpoch i64 | ClusterID string
//	BrokerHeartbeatRequest (63):
//	  BrokerID i32 | BrokerEpoch i64 | MetadataOffset i64 | WantShutDown bool
//	BrokerHeartbeatResponse (63):
//	  ErrorCode i16 | IsFenced bool | ShouldShutDown bool
//	  | MetadataEndOffset i64
//
// The API key numbers are Kafka's; the bodies are kaenlog's own. Where
// Kafka nests partitions inside topics, the data plane's arrays are flat:
// one element per partition, each naming its topic. That keeps one Go
// element per wire element, one allocation per array and one encoding per
// value (no topic grouping to canonicalise); the price is a topic name
// repeated per partition on the wire, which the decoders do not pay for in
// memory (see below).
//
// Every count and length is checked against the bytes left before
// anything is allocated for it: an array's count times its element's
// smallest encoding must fit, so a hostile count costs an error, not
// memory.
//
// # Message and dispatch
//
// Every request and response implements Message (APIKey, Correlation,
// AppendTo). DecodeRequest and DecodeResponse read the header and return a
// pointer to the decoded value (*FetchRequest, *MetadataResponse, ...);
// PeekHeader reads the header alone, for a server that routes by key;
// PeekProduceAcks a produce's Acks alone, for a server that must know
// whether a produce it cannot decode expects an answer.
//
// # Decoding without allocating
//
// DecodeFetchRequest and the other DecodeXxx functions allocate the
// message's arrays, one slice per array, and one string per distinct
// topic. The hot path has Into variants — DecodeFetchRequestInto,
// DecodeFetchResponseInto, DecodeProduceRequestInto,
// DecodeProduceResponseInto — that decode into a value the caller keeps
// per connection. They reuse its Partitions array when it is large enough,
// and take each topic string from what is already at hand when one is
// equal: the previous partition's (a topic's partitions are usually
// adjacent), the same element's before it is overwritten (a follower's
// fetcher names the same partitions on every fetch), or a 16-entry cache of
// recent distinct topics, seeded from the first ones the value's array
// held (its previous length plus 64 elements). Only a topic found in none
// of these is allocated. So once warm, a broker's stream of fetches and
// produces decodes with no allocation at all, records included, which
// alias the payload; a connection whose requests cycle through more than
// 16 topics in no stable order pays one string per topic it misses. Every
// step is bounded: decoding stays linear in the bytes received, whatever
// topics a payload names and however large an earlier one was.
//
// # -1 only at the edge
//
// Kafka writes -1 for "none" in several places. Here -1 exists only in the
// encoded bytes; in memory "none" is a bool beside the value, in the comma-ok
// spirit:
//
//	wire                                 memory
//	FetchPartition.LogStartOffset -1     HasLogStartOffset == false
//	DivergingEpoch (-1, -1)              HasDivergingEpoch == false
//	CurrentLeader (-1, -1)               HasCurrentLeader == false
//	BaseOffset -1                        HasBaseOffset == false
//	(Epoch, EndOffset) (-1, -1)          Found == false (OffsetsForLeaderEpoch)
//	(Timestamp, Offset) (-1, -1)         Found == false (ListOffsets)
//
// Any other negative offset, or a pair with only one -1, is malformed.
// Identifiers keep Kafka's -1 in memory, because they are names, not
// quantities: ReplicaID (ConsumerReplicaID, a consumer), leader ids
// (NoLeader), broker epochs (NoBrokerEpoch), producer ids and epochs
// (NoProducerID, NoProducerEpoch), request epochs (NoEpoch,
// "none" or "do not check"), ListOffsets' Timestamp selectors
// (LatestTimestamp, EarliestTimestamp, MaxTimestamp) and a record
// timestamp's -1 (none). Epochs below -1 are malformed.
//
// # Errors
//
// Decoding errors match ErrMalformed plus one precise sentinel
// (ErrTruncated, ErrTrailingBytes, ErrWrongAPIKey, ErrUnknownAPIKey,
// ErrUnsupportedVersion, ErrNegativeLength, ErrNegativeOffset,
// ErrInvalidEpoch, ErrNegativeTimeout, ErrInvalidTopic,
// ErrInvalidPartition, ErrInvalidValue) and name the message and the field,
// with the element's index inside an array
// ("FetchRequest.Partitions[3].FetchOffset = -2"). Framing has ErrFrameTooLarge and ErrShortFrame
// (which also matches io.ErrUnexpectedEOF); encoding has
// ErrOffsetOverflow. Encoders refuse exactly what decoders refuse, with the
// same sentinels where the value exists in memory, so anything encoded
// decodes.
//
// Responses carry kaenlog's own ErrorCode numbers, not Kafka's. Each code
// is one row of one table, printed here: kaenlog's number, the Kafka name,
// Kafka's number in Errors.java ("-" where Kafka has no such code),
// whether Kafka calls it retriable (its exception extends
// RetriableException: the same request may succeed later), and what it
// means. A test keeps this block equal to the table.
//
//	code  name                              Kafka  retriable  meaning
//	  -1  UNKNOWN_SERVER_ERROR                 -1             unexpected broker error
//	   0  NONE                                  0             no error
//	   1  OFFSET_OUT_OF_RANGE                   1             fetch offset outside the log
//	   2  NOT_ENOUGH_REPLICAS                  19  yes        ISR below min.insync.replicas, checked before append
//	   3  NOT_ENOUGH_REPLICAS_AFTER_APPEND     20  yes        written, but ISR shrank below min.insync.replicas
//	   4  NOT_LEADER_OR_FOLLOWER                6  yes        broker is not the partition leader
//	   5  FENCED_LEADER_EPOCH                  74  yes        request epoch older than the broker's
//	   6  UNKNOWN_LEADER_EPOCH                 75  yes        request epoch newer than the broker's
//	   7  CORRUPT_MESSAGE                       2  yes        record batches failed validation
//	   8  UNKNOWN_REPLICA                       -  yes        replica id is not assigned to the partition
//	   9  REQUEST_TIMED_OUT                     7  yes        not committed within the timeout
//	  10  INVALID_REQUIRED_ACKS                21             acks must be -1, 0 or 1
//	  11  INVALID_REQUEST                      42             request did not decode
//	  12  MESSAGE_TOO_LARGE                    10             record batch larger than the broker accepts
//	  13  INVALID_RECORD                       87             records failed the broker's validation
//	  14  UNSUPPORTED_COMPRESSION_TYPE         76             compression codec not supported
//	  15  KAFKA_STORAGE_ERROR                  56  yes        the partition's log directory failed
//	  16  UNKNOWN_TOPIC_OR_PARTITION            3  yes        broker does not host the partition
//	  17  LEADER_NOT_AVAILABLE                  5  yes        partition has no leader
//	  18  STALE_BROKER_EPOCH                   77             broker epoch older than the registration
//	  19  INVALID_UPDATE_VERSION               95             partition epoch is stale
//	  20  NEW_LEADER_ELECTED                  108             ISR change applied, but the leader changed
//	  21  INELIGIBLE_REPLICA                  107             proposed ISR has an ineligible replica
//	  22  OPERATION_NOT_ATTEMPTED              55             not attempted: another part of the request failed
//	  23  ELIGIBLE_LEADERS_NOT_AVAILABLE       83  yes        no replica is eligible to lead
//	  24  TOPIC_ALREADY_EXISTS                 36             topic exists
//	  25  INVALID_REPLICATION_FACTOR           38             replication factor below 1 or above the broker count
//	  26  INVALID_PARTITIONS                   37             partition count below 1
//	  27  NOT_CONTROLLER                       41  yes        broker is not the controller
//	  28  BROKER_ID_NOT_REGISTERED            102             broker id has no registration
//	  29  OUT_OF_ORDER_SEQUENCE_NUMBER         45             producer sequence number out of order
//	  30  DUPLICATE_SEQUENCE_NUMBER            46             producer sequence number already written
//	  31  INVALID_PRODUCER_EPOCH               47             producer epoch is stale
//	  32  UNKNOWN_PRODUCER_ID                  59             no state for the producer id
//	  33  INVALID_TOPIC_EXCEPTION              17             invalid topic name
//	  34  UNSUPPORTED_VERSION                  35             message version not supported
//	  35  NETWORK_EXCEPTION                    13  yes        connection closed before the response
//	  36  OFFSET_NOT_AVAILABLE                 78  yes        new leader's high watermark not caught up yet
//	  37  DUPLICATE_BROKER_REGISTRATION       101             another incarnation of the broker id has a live session
//	  38  INCONSISTENT_CLUSTER_ID             104             cluster id differs from the controller's
//	  39  COORDINATOR_LOAD_IN_PROGRESS         14  yes        group coordinator still loading its partition
//	  40  COORDINATOR_NOT_AVAILABLE            15  yes        group coordinator not available
//	  41  NOT_COORDINATOR                      16  yes        broker is not the group's coordinator
//	  42  ILLEGAL_GENERATION                   22             group generation is not the current one
//	  43  INCONSISTENT_GROUP_PROTOCOL          23             member's protocols incompatible with the group's
//	  44  INVALID_GROUP_ID                     24             invalid group id
//	  45  UNKNOWN_MEMBER_ID                    25             coordinator does not know the member
//	  46  INVALID_SESSION_TIMEOUT              26             session timeout outside the coordinator's bounds
//	  47  REBALANCE_IN_PROGRESS                27             group is rebalancing, rejoin needed
//	  48  INVALID_COMMIT_OFFSET_SIZE           28             offset commit too large to write
//	  49  OFFSET_METADATA_TOO_LARGE            12             offset metadata longer than the coordinator accepts
//	  50  NON_EMPTY_GROUP                      68             group has members
//	  51  GROUP_ID_NOT_FOUND                   69             group does not exist
//	  52  MEMBER_ID_REQUIRED                   79             member must join again with the member id given
//	  53  GROUP_MAX_SIZE_REACHED               81             group has reached its maximum size
//	  54  FENCED_INSTANCE_ID                   82             static member replaced by another member id
//	  55  GROUP_SUBSCRIBED_TO_TOPIC            86             group is subscribed to the topic
//	  56  INVALID_CONFIG                       40             a config kaenlog does not apply, or an invalid value
//	  57  ELECTION_NOT_NEEDED                  84  yes        the election would change nothing
//	  58  PREFERRED_LEADER_NOT_AVAILABLE       80  yes        the preferred replica cannot lead
//	  59  NO_REASSIGNMENT_IN_PROGRESS          85             no reassignment of the partition is in flight
//
// Each code's sentinel error is an *Error: ErrorCode.Err and CodeOf convert
// between codes and sentinels at the wire edge, errors.Is matches a
// wrapped sentinel, and IsRetriable(err) and (*Error).Retriable read the
// flag. A code not in the table decodes fine (a newer peer) and survives
// Err and CodeOf unchanged. The one sentinel shared with decoding is
// ErrUnsupportedVersion: our own version failure matches it as well as
// ErrMalformed, and CodeOf answers it with CodeUnsupportedVersion.
package wire
