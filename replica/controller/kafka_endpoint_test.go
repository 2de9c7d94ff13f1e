package controller

import (
	"errors"
	"testing"
)

// TestARegistrationRecordCarriesItsKafkaEndpointOnlyWhenSet: the Kafka
// endpoint round-trips and reaches the image; a record without it is the
// encoding from before the field; an empty one written out is refused.
func TestARegistrationRecordCarriesItsKafkaEndpointOnlyWhenSet(t *testing.T) {
	base := RegisterBrokerRecord{BrokerID: 1, BrokerEpoch: 0, IncarnationID: [16]byte{1}, Endpoint: "127.0.0.1:9093", Fenced: true}
	without, err := base.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	with := base
	with.KafkaEndpoint = "127.0.0.1:9092"
	enc, err := with.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) != len(without)+2+len(with.KafkaEndpoint) {
		t.Fatalf("with a KafkaEndpoint: %d bytes, without %d", len(enc), len(without))
	}
	got, err := DecodeRecord(enc)
	if err != nil || got != Record(with) {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, with)
	}
	if _, err := DecodeRecord(append(without, 0, 0)); !errors.Is(err, ErrBadRecord) {
		t.Fatalf("an empty KafkaEndpoint written out: %v, want ErrBadRecord", err)
	}
	im := NewImage()
	if err := im.Apply(with); err != nil {
		t.Fatal(err)
	}
	if reg, _ := im.Broker(1); reg.KafkaEndpoint != with.KafkaEndpoint {
		t.Fatalf("image: %+v", reg)
	}
}
