package wire

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEveryMessageIsAMessage: each message's APIKey and Correlation agree
// with the header it encodes, and DecodeRequest or DecodeResponse (by the
// type's name) gives back a pointer to an equal value.
func TestEveryMessageIsAMessage(t *testing.T) {
	r := newRand(t)
	seen := map[string]bool{}
	for _, mk := range allMessages() {
		for range 15 {
			m := mk.gen(r)
			b := mustEncode(t, m)
			key, corr, err := PeekHeader(b)
			if err != nil {
				t.Fatalf("%s: PeekHeader: %v", mk.name, err)
			}
			if m.APIKey() != key || m.Correlation() != corr {
				t.Fatalf("%s: APIKey() = %v, Correlation() = %d; header says %v, %d", mk.name, m.APIKey(), m.Correlation(), key, corr)
			}
			if typ := reflect.TypeOf(m).Name(); typ != mk.name {
				t.Fatalf("generator for %s made a %s", mk.name, typ)
			}
			decode := DecodeRequest
			if strings.HasSuffix(mk.name, "Response") {
				decode = DecodeResponse
			}
			got, err := decode(b)
			if err != nil {
				t.Fatalf("%s: dispatch: %v", mk.name, err)
			}
			if reflect.TypeOf(got) != reflect.PointerTo(reflect.TypeOf(m)) {
				t.Fatalf("%s: dispatch returned %T, want *%s", mk.name, got, mk.name)
			}
			if diff := cmp.Diff(m, derefMessage(got)); diff != "" {
				t.Fatalf("%s: dispatch decoded (-want +got):\n%s", mk.name, diff)
			}
			if got.APIKey() != key || got.Correlation() != corr {
				t.Fatalf("%s: the pointer's methods disagree with the value's", mk.name)
			}
		}
		seen[mk.name] = true
	}
	if len(seen) != 52 {
		t.Fatalf("%d message kinds tested, want 52 (26 APIs × request and response)", len(seen))
	}
}

// TestDispatchCoversEveryKnownKey: every key PeekHeader accepts has a
// request and a response decoder, and no other key does. A header alone
// reaches the decoder, which finds the body missing.
func TestDispatchCoversEveryKnownKey(t *testing.T) {
	known := 0
	for k := math.MinInt16; k <= math.MaxInt16; k++ {
		key := APIKey(k)
		if !key.known() && k%251 != 0 {
			continue // PeekHeader's refusal is the same for every unknown key: sample them
		}
		header := appendHeader(nil, key, 1)
		for _, decode := range []func([]byte) (Message, error){DecodeRequest, DecodeResponse} {
			_, err := decode(header)
			switch {
			case key.known():
				// Every body has at least one field, so a bare header
				// is truncated: the message's own decoder said so.
				if !errors.Is(err, ErrTruncated) {
					t.Fatalf("%v: bare header: err = %v, want ErrTruncated from the message's decoder", key, err)
				}
			case !errors.Is(err, ErrUnknownAPIKey) || !errors.Is(err, ErrMalformed):
				t.Fatalf("key %d: err = %v, want ErrUnknownAPIKey", k, err)
			}
		}
		if key.known() {
			known++
			if strings.HasPrefix(key.String(), "APIKey(") {
				t.Errorf("known key %d has no name", k)
			}
		}
	}
	if known != 27 {
		t.Fatalf("%d known API keys, want 27", known)
	}
}

func TestDispatchErrors(t *testing.T) {
	fetch := mustEncode(t, FetchRequest{CorrelationID: 3, Partitions: []FetchPartition{{Topic: "t"}}})
	for _, tc := range []struct {
		name    string
		payload []byte
		want    error
	}{
		{"empty", nil, ErrTruncated},
		{"short header", fetch[:7], ErrTruncated},
		{"unknown key", patch(fetch, 0, int16(1000)), ErrUnknownAPIKey},
		{"version 1", patch(fetch, 2, int16(1)), ErrUnsupportedVersion},
		{"bad body", patch(fetch, 39, int32(-1)), ErrInvalidPartition},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := DecodeRequest(tc.payload)
			if m != nil || !errors.Is(err, tc.want) || !errors.Is(err, ErrMalformed) {
				t.Fatalf("DecodeRequest = %v, %v; want nil, %v", m, err, tc.want)
			}
		})
	}
	// A request handed to DecodeResponse decodes as the response with its
	// key, which its layout makes malformed.
	if _, err := DecodeResponse(fetch); !errors.Is(err, ErrMalformed) {
		t.Fatalf("DecodeResponse(a FetchRequest) err = %v, want ErrMalformed", err)
	}
}
