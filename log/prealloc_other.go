//go:build !linux

package log

// fallocate does nothing: preallocation is Linux's fallocate only.
func fallocate(f any, off, n int64) bool { return false }
