package log

import (
	stdcrc32 "hash/crc32"
	"math/rand/v2"
	"testing"
)

func TestCRC32CKnownVector(t *testing.T) {
	// The check value of CRC-32C (Castagnoli), as listed in the iSCSI RFC
	// 3720 appendix and every CRC catalogue.
	if got, want := ChecksumCRC32C([]byte("123456789")), uint32(0xe3069283); got != want {
		t.Fatalf("ChecksumCRC32C(%q) = %#08x, want %#08x", "123456789", got, want)
	}
	if got := ChecksumCRC32C(nil); got != 0 {
		t.Fatalf("ChecksumCRC32C(nil) = %#08x, want 0", got)
	}
}

// crc32cBitwise is a naive bit-at-a-time CRC-32C (reflected polynomial
// 0x82F63B78), an oracle that shares no code with either library.
func crc32cBitwise(p []byte) uint32 {
	crc := ^uint32(0)
	for _, b := range p {
		crc ^= uint32(b)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x82F63B78
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

func TestCRC32CMatchesOracles(t *testing.T) {
	const seed = 20240601
	rng := rand.New(rand.NewPCG(seed, seed))
	std := stdcrc32.MakeTable(stdcrc32.Castagnoli)
	for i := range 300 {
		p := make([]byte, rng.IntN(3000))
		for j := range p {
			p[j] = byte(rng.Uint32())
		}
		got := ChecksumCRC32C(p)
		if want := crc32cBitwise(p); got != want {
			t.Fatalf("seed %d case %d (len %d): ChecksumCRC32C = %#08x, bitwise oracle = %#08x", seed, i, len(p), got, want)
		}
		if want := stdcrc32.Checksum(p, std); got != want {
			t.Fatalf("seed %d case %d (len %d): ChecksumCRC32C = %#08x, hash/crc32 = %#08x", seed, i, len(p), got, want)
		}
	}
}
