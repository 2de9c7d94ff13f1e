package wire

import (
	"bytes"
	"fmt"
	"testing"
)

// oneMiBFetchResponse is the benchmark's payload: a follower fetch answered
// with 1 MiB of record batches.
func oneMiBFetchResponse() FetchResponse {
	return FetchResponse{
		CorrelationID:  1,
		HighWatermark:  1 << 30,
		LogStartOffset: 0,
		Records:        bytes.Repeat([]byte{0x5a}, 1<<20),
	}
}

func BenchmarkFetchResponseAppendTo1MiB(b *testing.B) {
	m := oneMiBFetchResponse()
	dst := make([]byte, 0, fetchResponseFixedSize+len(m.Records))
	b.ReportAllocs()
	b.SetBytes(int64(len(m.Records)))
	for b.Loop() {
		var err error
		if dst, err = m.AppendTo(dst[:0]); err != nil {
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
		if err != nil || len(m.Records) != 1<<20 {
			b.Fatal(err)
		}
	}
}

// BenchmarkFetchResponseFrameRoundTrip1MiB is the leader→follower hop of
// one fetch over an in-memory link: encode, frame, read the frame, decode.
func BenchmarkFetchResponseFrameRoundTrip1MiB(b *testing.B) {
	m := oneMiBFetchResponse()
	size := fetchResponseFixedSize + len(m.Records)
	payload, readBuf := make([]byte, 0, size), make([]byte, 0, size)
	var link bytes.Buffer
	link.Grow(size + frameHeaderSize)
	b.ReportAllocs()
	b.SetBytes(int64(len(m.Records)))
	for b.Loop() {
		var err error
		if payload, err = m.AppendTo(payload[:0]); err != nil {
			b.Fatal(err)
		}
		link.Reset()
		if err := WriteFrame(&link, payload); err != nil {
			b.Fatal(err)
		}
		if readBuf, err = ReadFrame(&link, readBuf, 0); err != nil {
			b.Fatal(err)
		}
		if _, err := DecodeFetchResponse(readBuf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFetchRequestRoundTrip(b *testing.B) {
	m := FetchRequest{CorrelationID: 1, ReplicaID: 2, FetchOffset: 1 << 20, CurrentLeaderEpoch: 3, LastFetchedEpoch: 3, MaxBytes: 1 << 20}
	var dst []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = m.AppendTo(dst[:0]); err != nil {
			b.Fatal(err)
		}
		if _, err := DecodeFetchRequest(dst); err != nil {
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
