module github.com/kaenlog/kaenlog

go 1.25

require (
	github.com/google/go-cmp v0.7.0
	github.com/klauspost/crc32 v1.3.0
)

require golang.org/x/sys v0.34.0 // indirect
