package wire

import (
	"errors"
	"io"
)

// wireError is a sentinel that also matches a broader error, so a caller can
// test for the precise cause or only for the family (ErrMalformed,
// io.ErrUnexpectedEOF) without this package listing every cause twice.
type wireError struct {
	msg    string
	family error
}

func (e *wireError) Error() string { return e.msg }

// Unwrap exposes the family so errors.Is(err, family) holds.
func (e *wireError) Unwrap() error { return e.family }

// ErrMalformed is the family of every decoding error: errors.Is(err,
// ErrMalformed) holds for every error a DecodeXxx function or PeekHeader
// returns, and for ReadFrame's negative length prefix. It means the bytes
// are not a valid kaenlog message; a server answers such a request with
// CodeInvalidRequest, or CodeUnsupportedVersion when only the header's
// version is wrong (see CodeOf).
var ErrMalformed = errors.New("wire: malformed message")

// Decoding sentinels. Each matches ErrMalformed as well as itself. A header
// version kaenlog does not speak is the exception: its error matches
// ErrMalformed and ErrUnsupportedVersion, a code's sentinel (see
// errBadVersion).
var (
	// ErrTruncated is returned by decoders when the payload ends before
	// the last field of the message (or inside the Records it announces).
	ErrTruncated error = &wireError{"wire: payload truncated", ErrMalformed}

	// ErrTrailingBytes is returned by decoders when bytes remain after the
	// last field. Messages have a fixed layout, so extra bytes mean the
	// sender and receiver disagree about it.
	ErrTrailingBytes error = &wireError{"wire: trailing bytes after message", ErrMalformed}

	// ErrUnknownAPIKey is returned by PeekHeader, DecodeRequest and
	// DecodeResponse when the API key is not one this package knows (see
	// APIKey).
	ErrUnknownAPIKey error = &wireError{"wire: unknown API key", ErrMalformed}

	// ErrWrongAPIKey is returned by a DecodeXxx function when the payload
	// carries another message's API key.
	ErrWrongAPIKey error = &wireError{"wire: wrong API key for this message", ErrMalformed}

	// ErrNegativeLength is returned when a length, count or byte bound is
	// negative: ReadFrame's length prefix, a Records or string length, an
	// array count, FetchRequest.MinBytes and MaxBytes, or
	// FetchPartition.MaxBytes.
	ErrNegativeLength error = &wireError{"wire: negative length", ErrMalformed}

	// ErrNegativeOffset is returned by FromWireI64, and so by every
	// decoder, when an offset on the wire is negative where no -1
	// convention applies (or is below -1 where one does).
	ErrNegativeOffset error = &wireError{"wire: negative offset", ErrMalformed}

	// ErrInvalidEpoch is returned when a leader epoch on the wire is below
	// -1 (NoEpoch), or is -1 where an epoch is required: in a found
	// (epoch, end offset) pair only (-1, -1) may say "none".
	ErrInvalidEpoch error = &wireError{"wire: invalid leader epoch", ErrMalformed}

	// ErrNegativeTimeout is returned when ProduceRequest.TimeoutMs or
	// FetchRequest.MaxWaitMs is negative.
	ErrNegativeTimeout error = &wireError{"wire: negative timeout", ErrMalformed}

	// ErrInvalidPartition is returned when a partition index is negative.
	ErrInvalidPartition error = &wireError{"wire: invalid partition", ErrMalformed}
)

// ErrInvalidTopic is returned when a Topic field is not a name Kafka
// accepts (see ValidateTopic): empty, longer than MaxTopicLength, "." or
// "..", or with a byte outside [a-zA-Z0-9._-]. Like the other decoding
// sentinels it matches ErrMalformed; it also matches
// ErrInvalidTopicException, so CodeOf answers it with
// CodeInvalidTopicException, as Kafka answers an invalid topic name, rather
// than with CodeInvalidRequest.
var ErrInvalidTopic error = topicError{}

// topicError is ErrInvalidTopic's type: a decoding error that is also the
// INVALID_TOPIC_EXCEPTION condition.
type topicError struct{}

// topicFamilies is what topicError unwraps to, a variable so that Unwrap
// does not allocate.
var topicFamilies = []error{ErrMalformed, ErrInvalidTopicException}

func (topicError) Error() string { return "wire: invalid topic name" }

// Unwrap exposes both families so errors.Is matches either.
func (topicError) Unwrap() []error { return topicFamilies }

// versionError is errBadVersion's type: a decoding error that is also the
// UNSUPPORTED_VERSION condition.
type versionError struct{}

// versionFamilies is what versionError unwraps to. It is a variable so that
// Unwrap, which errors.Is calls, does not allocate.
var versionFamilies = []error{ErrMalformed, ErrUnsupportedVersion}

func (versionError) Error() string { return "wire: unsupported message version" }

// Unwrap exposes both families so errors.Is matches either.
func (versionError) Unwrap() []error { return versionFamilies }

// errBadVersion is what PeekHeader and the decoders wrap when a header's
// version is not messageVersion. It matches ErrMalformed, because the
// payload did not decode, and ErrUnsupportedVersion, so that CodeOf answers
// it with CodeUnsupportedVersion rather than CodeInvalidRequest: the peer
// learns it should speak another version, not that its bytes are broken.
// (Kafka's broker does the same for an ApiVersions request of a version it
// does not know; kaenlog has no ApiVersions, and every header carries the
// version.)
var errBadVersion error = versionError{}

// Framing and encoding sentinels. These are not ErrMalformed: they are a
// limit, a broken stream, or a value memory can hold and the wire cannot.
var (
	// ErrFrameTooLarge is returned by ReadFrame when a length prefix
	// exceeds maxSize (checked before any buffer is allocated), and by
	// AppendFrame, WriteFrame and encoders when a payload or Records field
	// is longer than an int32 length can describe.
	ErrFrameTooLarge = errors.New("wire: frame too large")

	// ErrShortFrame is returned by ReadFrame when the stream ends after the
	// first byte of a frame and before its last. It also matches
	// io.ErrUnexpectedEOF, so code written against io.ReadFull keeps
	// working. A stream that ends cleanly between frames gives io.EOF.
	ErrShortFrame error = &wireError{"wire: stream ended inside a frame", io.ErrUnexpectedEOF}

	// ErrOffsetOverflow is returned by ToWireI64, and so by every encoder,
	// when an in-memory offset is above math.MaxInt64 and cannot be written
	// as a wire int64.
	ErrOffsetOverflow = errors.New("wire: offset overflows int64")
)
