package wire

import (
	"errors"
	"testing"
)

// A MetadataRequest's AutoCreate is encoded only when set, both values
// positive; a request without it is what it always was.
func TestMetadataRequestAutoCreateIsEncodedOnlyWhenSet(t *testing.T) {
	for _, m := range []MetadataRequest{
		{Topics: []string{"a"}, AutoCreate: AutoCreate{Partitions: 1, ReplicationFactor: 1}},
		{AutoCreate: AutoCreate{Partitions: 3, ReplicationFactor: 2}},
		{Topics: []string{}, AutoCreate: AutoCreate{Partitions: 1 << 30, ReplicationFactor: 7}},
	} {
		checkRoundTrip(t, m, DecodeMetadataRequest)
	}
	plain, with := mustEncode(t, MetadataRequest{Topics: []string{"a"}}), mustEncode(t, MetadataRequest{Topics: []string{"a"}, AutoCreate: AutoCreate{Partitions: 1, ReplicationFactor: 1}})
	if len(with) != len(plain)+6 {
		t.Fatalf("AutoCreate takes %d bytes, want 6", len(with)-len(plain))
	}
	for _, a := range []AutoCreate{{Partitions: 1}, {ReplicationFactor: 1}, {Partitions: -1, ReplicationFactor: 1}} {
		if _, err := (MetadataRequest{AutoCreate: a}).AppendTo(nil); !errors.Is(err, ErrInvalidValue) {
			t.Errorf("AutoCreate %+v: AppendTo err = %v, want ErrInvalidValue", a, err)
		}
	}
	zeros := append(append([]byte(nil), plain...), 0, 0, 0, 0, 0, 0)
	if _, err := DecodeMetadataRequest(zeros); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("AutoCreate written out as zeros: err = %v, want ErrInvalidValue", err)
	}
	if _, err := DecodeMetadataRequest(with[:len(with)-1]); !errors.Is(err, ErrTruncated) {
		t.Errorf("AutoCreate cut short: err = %v, want ErrTruncated", err)
	}
}
