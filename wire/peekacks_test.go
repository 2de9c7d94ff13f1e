package wire

import (
	"errors"
	"testing"
)

// TestPeekProduceAcksOfAnUndecodableProduce: a produce whose body does not
// decode still tells its Acks when they were sent whole, and refuses,
// matching the decoder's errors, when they were not: a server can then
// tell an acks=0 produce it must not answer from one it must.
func TestPeekProduceAcksOfAnUndecodableProduce(t *testing.T) {
	whole, err := ProduceRequest{CorrelationID: 8, Acks: AcksNone, TimeoutMs: 1000, Partitions: []ProducePartition{
		{Topic: "t", Records: []byte("records")}}}.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	cut := whole[:len(whole)-3]
	if _, err := DecodeProduceRequest(cut); err == nil {
		t.Fatal("a produce cut short decoded")
	}
	if acks, err := PeekProduceAcks(cut); err != nil || acks != AcksNone {
		t.Fatalf("PeekProduceAcks of a produce cut in its records = %d, %v; want %d", acks, err, AcksNone)
	}
	other := append([]byte(nil), whole...)
	other[3] = 3 // version 3
	fetch, err := FetchRequest{}.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		payload []byte
		want    error
	}{
		{"cut before its acks", whole[:headerSize+1], ErrTruncated},
		{"cut in its header", whole[:headerSize-1], ErrTruncated},
		{"another version", other, ErrUnsupportedVersion},
		{"a fetch", fetch, ErrWrongAPIKey},
	} {
		if _, err := PeekProduceAcks(tc.payload); !errors.Is(err, tc.want) || !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: PeekProduceAcks error %v, want one matching %v and ErrMalformed", tc.name, err, tc.want)
		}
	}
}
