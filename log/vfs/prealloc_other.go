//go:build !linux

package vfs

import "errors"

// Preallocate is fallocate on Linux only; elsewhere it reserves nothing.
func (f osFile) Preallocate(off, n int64) error { return errors.ErrUnsupported }
