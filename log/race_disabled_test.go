//go:build !race

package log

// raceEnabled: the race detector is on.
const raceEnabled = false
