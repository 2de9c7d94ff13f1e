package wire

import (
	"bytes"
	"errors"
	"testing"
)

// TestARegistrationCarriesItsKafkaEndpointOnlyWhenSet: KafkaEndpoint
// round-trips; a registration without it ends at its ClusterID, as before the
// field existed; an empty one written out is refused (one encoding).
func TestARegistrationCarriesItsKafkaEndpointOnlyWhenSet(t *testing.T) {
	base := BrokerRegistrationRequest{CorrelationID: 7, BrokerID: 1, IncarnationID: [16]byte{1}, PreviousBrokerEpoch: NoBrokerEpoch, Endpoint: "127.0.0.1:9093"}
	without, err := base.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := headerSize + 4 + 16 + 8 + 1 + 2 + len(base.Endpoint) + 2 + len(base.ClusterID); len(without) != want {
		t.Fatalf("without a KafkaEndpoint: %d bytes, want %d", len(without), want)
	}
	with := base
	with.KafkaEndpoint = "127.0.0.1:9092"
	enc, err := with.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(enc, without) {
		t.Fatal("the KafkaEndpoint is not a trailer")
	}
	got, err := DecodeBrokerRegistrationRequest(enc)
	if err != nil || got != with {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, with)
	}
	if got, err := DecodeBrokerRegistrationRequest(without); err != nil || got != base {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, base)
	}
	if _, err := DecodeBrokerRegistrationRequest(append(without, 0, 0)); !errors.Is(err, ErrTrailingBytes) {
		t.Fatalf("an empty KafkaEndpoint written out: %v, want ErrTrailingBytes", err)
	}
}
