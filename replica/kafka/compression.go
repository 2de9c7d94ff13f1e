package kafka

// The listener's leaders validate batches in every codec Kafka defines:
// gzip is built into the log, snappy, lz4 and zstd are registered by
// replica/compression.
import _ "github.com/kaenlog/kaenlog/replica/compression"
