package wire

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestValidateTopic(t *testing.T) {
	for _, name := range []string{"a", "orders", "__consumer_offsets", "x.y-z_1", "...", ".a", "-", strings.Repeat("t", MaxTopicLength), topicAlphabet} {
		if err := ValidateTopic(name); err != nil {
			t.Errorf("ValidateTopic(%q) = %v, want nil", name, err)
		}
	}
	for _, name := range []string{"", ".", "..", strings.Repeat("t", MaxTopicLength+1), "a b", "a/b", "é", "a\x00", "a:b", "a+b", "\xff"} {
		err := ValidateTopic(name)
		if !errors.Is(err, ErrInvalidTopic) || !errors.Is(err, ErrMalformed) || !errors.Is(err, ErrInvalidTopicException) {
			t.Errorf("ValidateTopic(%q) = %v, want ErrInvalidTopic (ErrMalformed, ErrInvalidTopicException)", name, err)
		}
		if CodeOf(err) != CodeInvalidTopicException {
			t.Errorf("CodeOf(ValidateTopic(%q)) = %v", name, CodeOf(err))
		}
	}
	// Every byte, alone: exactly Kafka's 65 legal characters pass ('.' alone
	// is the one legal character that is not a legal name).
	legal := 0
	for c := range 256 {
		if ValidateTopic(string([]byte{byte(c)})) == nil {
			legal++
		}
	}
	if legal != len(topicAlphabet)-1 {
		t.Fatalf("%d one-byte names pass, want %d", legal, len(topicAlphabet)-1)
	}
}

// TestEncodersAndDecodersShareTheTopicRule: for many names, valid or not,
// the encoder accepts exactly when ValidateTopic does, and the decoder
// accepts the same bytes exactly then too.
func TestEncodersAndDecodersShareTheTopicRule(t *testing.T) {
	r := newRand(t)
	for range 3000 {
		b := make([]byte, r.IntN(MaxTopicLength+3))
		for i := range b {
			if r.IntN(20) == 0 {
				b[i] = byte(r.Uint32())
			} else {
				b[i] = topicAlphabet[r.IntN(len(topicAlphabet))]
			}
		}
		name := string(b)
		valid := ValidateTopic(name) == nil
		m := ProduceRequest{Partitions: []ProducePartition{{Topic: name}}}
		_, encErr := m.AppendTo(nil)
		if (encErr == nil) != valid {
			t.Fatalf("topic %q: ValidateTopic says %v, encoder err %v", name, valid, encErr)
		}
		// The same bytes on the wire, written without the encoder's check.
		o := &oracle{t: t}
		o.header(0, 0).put(int16(0), int32(0), int32(1)).str(name).put(int32(0), int32(0))
		_, decErr := DecodeProduceRequest(o.buf.Bytes())
		if (decErr == nil) != valid {
			t.Fatalf("topic %q: ValidateTopic says %v, decoder err %v", name, valid, decErr)
		}
		if !valid && (!errors.Is(encErr, ErrInvalidTopic) || !errors.Is(decErr, ErrInvalidTopic)) {
			t.Fatalf("topic %q: encoder %v, decoder %v; want ErrInvalidTopic from both", name, encErr, decErr)
		}
	}
}

func stringData(s string) *byte { return unsafe.StringData(s) }

// TestDecodeAllocatesOneStringPerTopic: a plain decode shares one string
// among a topic's partitions, adjacent or not.
func TestDecodeAllocatesOneStringPerTopic(t *testing.T) {
	m := FetchRequest{}
	for i := range 40 {
		m.Partitions = append(m.Partitions, FetchPartition{Topic: fmt.Sprintf("topic-%d", i%4), Partition: int32(i)})
	}
	got, err := DecodeFetchRequest(mustEncode(t, m))
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]*byte{}
	for _, p := range got.Partitions {
		if d, ok := first[p.Topic]; !ok {
			first[p.Topic] = stringData(p.Topic)
		} else if d != stringData(p.Topic) {
			t.Fatalf("partition %d of %s holds its own copy of the topic", p.Partition, p.Topic)
		}
	}
	if len(first) != 4 {
		t.Fatalf("%d topics, want 4", len(first))
	}
}

// TestIntoReusesTheDestination decodes a sequence of messages into one
// value and checks, each time, that the result equals the plain decoder's,
// that the array is reused while it is large enough, that no element
// beyond the new length keeps records, and that a warm destination
// allocates nothing for a partition list it has seen.
func TestIntoReusesTheDestination(t *testing.T) {
	r := newRand(t)
	var fr FetchResponse
	var pr ProduceRequest
	var fq FetchRequest
	var pp ProduceResponse
	for range 150 {
		checkInto(t, genFetchResponse(r), DecodeFetchResponse, DecodeFetchResponseInto, &fr)
		checkInto(t, genProduceRequest(r), DecodeProduceRequest, DecodeProduceRequestInto, &pr)
		checkInto(t, genFetchRequest(r), DecodeFetchRequest, DecodeFetchRequestInto, &fq)
		checkInto(t, genProduceResponse(r), DecodeProduceResponse, DecodeProduceResponseInto, &pp)
		for _, p := range fr.Partitions[len(fr.Partitions):cap(fr.Partitions)] {
			if p.Records != nil {
				t.Fatal("a FetchResponse element beyond the length keeps its records")
			}
		}
		for _, p := range pr.Partitions[len(pr.Partitions):cap(pr.Partitions)] {
			if p.Records != nil {
				t.Fatal("a ProduceRequest element beyond the length keeps its records")
			}
		}
	}
}

func checkInto[M any](t *testing.T, m M, decode func([]byte) (M, error), into func([]byte, *M) error, dst *M) {
	t.Helper()
	b := mustEncode(t, any(m).(Message))
	want, err := decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := into(b, dst); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, *dst, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("Into differs from the plain decoder (-plain +into):\n%s", diff)
	}
	// Decoding the same payload again reuses everything.
	if !raceEnabled {
		if allocs := testing.AllocsPerRun(5, func() {
			if err := into(b, dst); err != nil {
				t.Fatal(err)
			}
		}); allocs != 0 {
			t.Fatalf("decoding %T again into a warm value allocated %v times", m, allocs)
		}
	}
}

// TestIntoInternsAcrossVaryingPartitionLists: a producer's requests name
// different partitions each time; once the destination's array holds its
// topics (up to the cache's 16), decoding allocates nothing, and the
// decoded topics are the destination's own strings.
func TestIntoInternsAcrossVaryingPartitionLists(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under -race are not the program's")
	}
	topics := make([]string, topicCacheSize)
	for i := range topics {
		topics[i] = fmt.Sprintf("topic-%02d", i)
	}
	r := newRand(t)
	payloads := make([][]byte, 20)
	for k := range payloads {
		m := ProduceRequest{Partitions: []ProducePartition{}}
		for range 1 + r.IntN(30) {
			m.Partitions = append(m.Partitions, ProducePartition{Topic: topics[r.IntN(len(topics))], Partition: r.Int32N(8), Records: []byte("r")})
		}
		payloads[k] = mustEncode(t, m)
	}
	// Warm: one request naming every topic, longer than any to come, so
	// its tail, never overwritten, keeps every topic at hand.
	warm := ProduceRequest{}
	for i := range 64 {
		warm.Partitions = append(warm.Partitions, ProducePartition{Topic: topics[i%len(topics)]})
	}
	var dst ProduceRequest
	if err := DecodeProduceRequestInto(mustEncode(t, warm), &dst); err != nil {
		t.Fatal(err)
	}
	own := map[*byte]bool{}
	for _, p := range dst.Partitions {
		own[stringData(p.Topic)] = true
	}
	i := 0
	allocs := testing.AllocsPerRun(200, func() {
		if err := DecodeProduceRequestInto(payloads[i%len(payloads)], &dst); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if allocs != 0 {
		t.Fatalf("varying partition lists over %d known topics: %v allocations per decode, want 0", len(topics), allocs)
	}
	for _, p := range dst.Partitions {
		if !own[stringData(p.Topic)] {
			t.Fatalf("topic %q is a new string, not the destination's", p.Topic)
		}
	}
}

// TestIntoAllocatesOnlyForNewTopics: a topic the destination has not seen
// costs exactly one allocation, however many partitions name it.
func TestIntoAllocatesOnlyForNewTopics(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under -race are not the program's")
	}
	var dst FetchRequest
	seed := FetchRequest{Partitions: []FetchPartition{{Topic: "old", Partition: 0}, {Topic: "old", Partition: 1}}}
	fresh := FetchRequest{Partitions: []FetchPartition{{Topic: "new", Partition: 0}, {Topic: "new", Partition: 1}}}
	seedB, freshB := mustEncode(t, seed), mustEncode(t, fresh)
	allocs := testing.AllocsPerRun(20, func() {
		if err := DecodeFetchRequestInto(seedB, &dst); err != nil {
			t.Fatal(err)
		}
		if err := DecodeFetchRequestInto(freshB, &dst); err != nil {
			t.Fatal(err)
		}
	})
	// Each round overwrites "old" with "new" and back: a 2-element array
	// seeds its cache with the one topic it holds, so each decode meets
	// one topic it has not got at hand.
	if allocs != 2 {
		t.Fatalf("%v allocations per round, want 2 (one per unseen topic)", allocs)
	}
}
