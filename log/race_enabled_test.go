//go:build race

package log

// raceEnabled: the race detector is on (sync.Pool then drops some of
// what is put back, on purpose).
const raceEnabled = true
