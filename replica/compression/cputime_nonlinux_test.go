//go:build !linux

package compression

import "time"

// benchStart is threadCPU's origin.
var benchStart = time.Now()

// threadCPU is wall time here: the thread's CPU time is read on Linux
// only.
func threadCPU() time.Duration { return time.Since(benchStart) }
