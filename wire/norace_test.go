//go:build !race

package wire

// raceEnabled lets allocation tests skip what the race detector perturbs.
const raceEnabled = false
