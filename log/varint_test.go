package log

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

func TestVarintKnownEncodings(t *testing.T) {
	// Zigzag maps 0, -1, 1, -2, 2 ... to 0, 1, 2, 3, 4 ...; Kafka's
	// ByteUtils uses the same mapping.
	tests := []struct {
		v    int32
		want []byte
	}{
		{0, []byte{0x00}},
		{-1, []byte{0x01}},
		{1, []byte{0x02}},
		{-2, []byte{0x03}},
		{63, []byte{0x7e}},
		{-64, []byte{0x7f}},
		{64, []byte{0x80, 0x01}},
		{250, []byte{0xf4, 0x03}},
		{math.MaxInt32, []byte{0xfe, 0xff, 0xff, 0xff, 0x0f}},
		{math.MinInt32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
	}
	for _, tt := range tests {
		got := appendVarint(nil, tt.v)
		if string(got) != string(tt.want) {
			t.Errorf("appendVarint(%d) = % x, want % x", tt.v, got, tt.want)
		}
		if n := varintSize(tt.v); n != len(tt.want) {
			t.Errorf("varintSize(%d) = %d, want %d", tt.v, n, len(tt.want))
		}
		v, n := readVarint(tt.want)
		if v != tt.v || n != len(tt.want) {
			t.Errorf("readVarint(% x) = %d, %d; want %d, %d", tt.want, v, n, tt.v, len(tt.want))
		}
	}
}

func TestVarlongKnownEncodings(t *testing.T) {
	tests := []struct {
		v    int64
		want []byte
	}{
		{0, []byte{0x00}},
		{-3, []byte{0x05}},
		{math.MaxInt64, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{math.MinInt64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
	}
	for _, tt := range tests {
		got := appendVarlong(nil, tt.v)
		if string(got) != string(tt.want) {
			t.Errorf("appendVarlong(%d) = % x, want % x", tt.v, got, tt.want)
		}
		if n := varlongSize(tt.v); n != len(tt.want) {
			t.Errorf("varlongSize(%d) = %d, want %d", tt.v, n, len(tt.want))
		}
		v, n := readVarlong(tt.want)
		if v != tt.v || n != len(tt.want) {
			t.Errorf("readVarlong(% x) = %d, %d; want %d, %d", tt.want, v, n, tt.v, len(tt.want))
		}
	}
}

func TestVarintRejectsOverflowAndShortInput(t *testing.T) {
	tests := []struct {
		name  string
		in    []byte
		wantN int // 0 = ran out of bytes, -1 = overflow
		long  bool
	}{
		{"empty varint", nil, 0, false},
		{"varint cut after continuation", []byte{0x80}, 0, false},
		{"varint cut after four bytes", []byte{0x80, 0x80, 0x80, 0x80}, 0, false},
		{"six-byte varint", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, -1, false},
		{"five-byte varint above 32 bits", []byte{0xff, 0xff, 0xff, 0xff, 0x10}, -1, false},
		{"five-byte varint with continuation", []byte{0x80, 0x80, 0x80, 0x80, 0x8f, 0x00}, -1, false},
		{"empty varlong", nil, 0, true},
		{"varlong cut after nine bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, 0, true},
		{"eleven-byte varlong", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, -1, true},
		{"ten-byte varlong above 64 bits", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02}, -1, true},
	}
	for _, tt := range tests {
		var n int
		if tt.long {
			_, n = readVarlong(tt.in)
		} else {
			_, n = readVarint(tt.in)
		}
		if n != tt.wantN {
			t.Errorf("%s: n = %d, want %d", tt.name, n, tt.wantN)
		}
	}
}

func TestVarintNonMinimalAccepted(t *testing.T) {
	// Kafka's reader accepts padded encodings; so do we.
	if v, n := readVarint([]byte{0x82, 0x80, 0x00}); v != 1 || n != 3 {
		t.Fatalf("readVarint(padded 1) = %d, %d; want 1, 3", v, n)
	}
}

// TestVarlongMatchesStdlib checks the varlong codec against encoding/binary,
// whose signed varint is the same zigzag encoding.
func TestVarlongMatchesStdlib(t *testing.T) {
	const seed = 7
	rng := rand.New(rand.NewPCG(seed, 0))
	for i := range 20000 {
		v := int64(rng.Uint64()) >> rng.UintN(64)
		got := appendVarlong(nil, v)
		want := binary.AppendVarint(nil, v)
		if string(got) != string(want) {
			t.Fatalf("seed %d case %d: appendVarlong(%d) = % x, stdlib % x", seed, i, v, got, want)
		}
		if varlongSize(v) != len(want) {
			t.Fatalf("seed %d case %d: varlongSize(%d) = %d, want %d", seed, i, v, varlongSize(v), len(want))
		}
		if back, n := readVarlong(got); back != v || n != len(got) {
			t.Fatalf("seed %d case %d: readVarlong(% x) = %d, %d", seed, i, got, back, n)
		}
		v32 := int32(v)
		got = appendVarint(nil, v32)
		want = binary.AppendVarint(nil, int64(v32))
		if string(got) != string(want) {
			t.Fatalf("seed %d case %d: appendVarint(%d) = % x, stdlib % x", seed, i, v32, got, want)
		}
		if varintSize(v32) != len(want) {
			t.Fatalf("seed %d case %d: varintSize(%d) = %d, want %d", seed, i, v32, varintSize(v32), len(want))
		}
		if back, n := readVarint(got); back != v32 || n != len(got) {
			t.Fatalf("seed %d case %d: readVarint(% x) = %d, %d", seed, i, got, back, n)
		}
	}
}
