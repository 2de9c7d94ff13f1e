package wire

import (
	"bytes"
	"fmt"
	"net"
	"testing"
)

// oneMiBFetchResponse is a follower fetch answered with 1 MiB of record
// batches from one partition.
func oneMiBFetchResponse() FetchResponse {
	return FetchResponse{CorrelationID: 1, Partitions: []FetchPartitionResponse{{
		Topic:         "orders",
		HighWatermark: 1 << 30,
		Records:       bytes.Repeat([]byte{0x5a}, 1<<20),
	}}}
}

// followerFetch is a follower's fetch of n partitions spread over ten
// topics, the request a leader decodes on every round trip.
func followerFetch(n int) FetchRequest {
	m := FetchRequest{CorrelationID: 1, ReplicaID: 2, ReplicaEpoch: 7, MaxWaitMs: 500, MinBytes: 1, MaxBytes: 50 << 20}
	for i := range n {
		m.Partitions = append(m.Partitions, FetchPartition{
			Topic: fmt.Sprintf("topic-%d", i%10), Partition: int32(i / 10), CurrentLeaderEpoch: 3,
			FetchOffset: 1 << 20, LastFetchedEpoch: 3, HasLogStartOffset: true, MaxBytes: 1 << 20,
		})
	}
	return m
}

// fetchAnswer answers n partitions over ten topics with size bytes of
// records each.
func fetchAnswer(n, size int) FetchResponse {
	m := FetchResponse{CorrelationID: 1}
	for i := range n {
		m.Partitions = append(m.Partitions, FetchPartitionResponse{
			Topic: fmt.Sprintf("topic-%d", i%10), Partition: int32(i / 10), HighWatermark: 1 << 30,
			Records: bytes.Repeat([]byte{byte(i)}, size),
		})
	}
	return m
}

func BenchmarkFetchResponseAppendTo1MiB(b *testing.B) {
	m := oneMiBFetchResponse()
	dst := mustEncode(b, m)
	b.ReportAllocs()
	b.SetBytes(1 << 20)
	for b.Loop() {
		var err error
		if dst, err = m.AppendTo(dst[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFetchResponseFrameBuffers1MiB is AppendTo's alternative for a
// socket: the frame as net.Buffers, records by reference. Its cost does
// not grow with the records.
func BenchmarkFetchResponseFrameBuffers1MiB(b *testing.B) {
	m := oneMiBFetchResponse()
	var bufs net.Buffers
	var scratch []byte
	b.ReportAllocs()
	b.SetBytes(1 << 20)
	for b.Loop() {
		var err error
		if bufs, scratch, err = AppendFrameBuffers(bufs[:0], scratch[:0], &m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeFetchResponse1MiB(b *testing.B) {
	payload := mustEncode(b, oneMiBFetchResponse())
	// No SetBytes: decoding is zero-copy, so its cost does not scale with
	// the records and a MB/s figure would mislead.
	b.ReportAllocs()
	for b.Loop() {
		m, err := DecodeFetchResponse(payload)
		if err != nil || len(m.Partitions[0].Records) != 1<<20 {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeFetchResponseInto is a follower decoding the leader's
// answers for 100 partitions into the same value, as its fetcher does.
func BenchmarkDecodeFetchResponseInto(b *testing.B) {
	payload := mustEncode(b, fetchAnswer(100, 10<<10))
	var m FetchResponse
	if err := DecodeFetchResponseInto(payload, &m); err != nil { // warm
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeFetchResponseInto(payload, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeFetchRequest is the leader's side of every follower
// round trip: the plain decoder against the Into decoder with a warm
// destination (zero allocations).
func BenchmarkDecodeFetchRequest(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		payload := mustEncode(b, followerFetch(n))
		b.Run(fmt.Sprintf("plain/partitions=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeFetchRequest(payload); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("into/partitions=%d", n), func(b *testing.B) {
			var m FetchRequest
			if err := DecodeFetchRequestInto(payload, &m); err != nil { // warm
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := DecodeFetchRequestInto(payload, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeProduceRequestInto decodes a producer's requests, which
// name a varying subset of its partitions each time (here two alternating
// subsets of 16 partitions over four topics, 16 KiB each), into one value.
func BenchmarkDecodeProduceRequestInto(b *testing.B) {
	var payloads [2][]byte
	for k := range payloads {
		m := ProduceRequest{CorrelationID: 1, Acks: AcksAll, TimeoutMs: 30000}
		for i := range 16 {
			m.Partitions = append(m.Partitions, ProducePartition{
				Topic: fmt.Sprintf("topic-%d", (i+k)%4), Partition: int32(2*i + k), Records: bytes.Repeat([]byte{1}, 16<<10),
			})
		}
		payloads[k] = mustEncode(b, m)
	}
	var m ProduceRequest
	for _, p := range payloads { // warm
		if err := DecodeProduceRequestInto(p, &m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := DecodeProduceRequestInto(payloads[i%2], &m); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkFetchResponseFrameRoundTrip1MiB is the leader→follower hop of
// one fetch over an in-memory link: frame as buffers, write, read the
// frame, decode into the follower's value.
func BenchmarkFetchResponseFrameRoundTrip1MiB(b *testing.B) {
	m := oneMiBFetchResponse()
	var (
		bufs    net.Buffers
		scratch []byte
		readBuf = make([]byte, 0, 2<<20)
		out     net.Buffers // WriteTo consumes it: a copy of bufs, kept outside the loop so it does not escape per frame
		link    bytes.Buffer
		got     FetchResponse
	)
	link.Grow(2 << 20)
	b.ReportAllocs()
	b.SetBytes(1 << 20)
	for b.Loop() {
		var err error
		if bufs, scratch, err = AppendFrameBuffers(bufs[:0], scratch[:0], &m); err != nil {
			b.Fatal(err)
		}
		link.Reset()
		out = bufs
		if _, err := out.WriteTo(&link); err != nil {
			b.Fatal(err)
		}
		if readBuf, err = ReadFrame(&link, readBuf, 0); err != nil {
			b.Fatal(err)
		}
		if err := DecodeFetchResponseInto(readBuf, &got); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFetchRequestRoundTrip(b *testing.B) {
	m := followerFetch(100)
	dst := mustEncode(b, m)
	var got FetchRequest
	if err := DecodeFetchRequestInto(dst, &got); err != nil { // warm
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = m.AppendTo(dst[:0]); err != nil {
			b.Fatal(err)
		}
		if err := DecodeFetchRequestInto(dst, &got); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeRequest is the generic dispatch: one allocation for the
// value it returns, plus the plain decoder's.
func BenchmarkDecodeRequest(b *testing.B) {
	payload := mustEncode(b, followerFetch(1))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRequest(payload); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFrame1MiBFreshBuffer reads a 1 MiB frame with no buffer to
// reuse, the price of growing as bytes arrive: 64 KiB, doubled to 1 MiB.
func BenchmarkReadFrame1MiBFreshBuffer(b *testing.B) {
	frame, err := AppendFrame(nil, bytes.Repeat([]byte{0x5a}, 1<<20))
	if err != nil {
		b.Fatal(err)
	}
	r := bytes.NewReader(frame)
	b.ReportAllocs()
	b.SetBytes(1 << 20)
	for b.Loop() {
		r.Reset(frame)
		if _, err := ReadFrame(r, nil, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCodeOfWrapped is the broker's error-to-code step for a wrapped
// sentinel. CodeOf searches the table in code order, so the replication
// codes (low numbers) are found first and the last row costs the most.
func BenchmarkCodeOfWrapped(b *testing.B) {
	for _, sentinel := range []*Error{ErrNotEnoughReplicas, ErrNetworkException} {
		b.Run(sentinel.Name(), func(b *testing.B) {
			err := fmt.Errorf("broker 1: %w", sentinel)
			b.ReportAllocs()
			for b.Loop() {
				if CodeOf(err) != sentinel.Code() {
					b.Fatal("wrong code")
				}
			}
		})
	}
}
