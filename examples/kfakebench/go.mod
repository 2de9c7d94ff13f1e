module github.com/kaenlog/kaenlog/examples/kfakebench

go 1.26.0

require (
	github.com/kaenlog/kaenlog v0.0.0
	github.com/twmb/franz-go v1.22.3
	github.com/twmb/franz-go/pkg/kfake v0.0.0-20260918054303-01f206a7e32c
)

require github.com/kaenlog/kaenlog/replica/compression v0.0.0-00010101000000-000000000000 // indirect

require (
	github.com/kaenlog/kaenlog/replica/kafka v0.0.0
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/klauspost/crc32 v1.3.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/twmb/franz-go/pkg/kmsg v1.15.1
	golang.org/x/sys v0.34.0 // indirect
)

replace github.com/kaenlog/kaenlog => ../..

replace github.com/kaenlog/kaenlog/replica/kafka => ../../replica/kafka

replace github.com/kaenlog/kaenlog/replica/compression => ../../replica/compression
