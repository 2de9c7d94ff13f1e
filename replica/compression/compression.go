package compression

import "github.com/kaenlog/kaenlog/log"

func init() {
	log.RegisterDecompressor(log.CompressionSnappy, decompressSnappy)
	log.RegisterDecompressor(log.CompressionLZ4, decompressLZ4)
	log.RegisterDecompressor(log.CompressionZstd, decompressZstd)
}
