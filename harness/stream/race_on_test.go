//go:build race

package stream

// raceEnabled skips allocation counts: the race detector makes sync.Pool drop items at
// random, by design.
const raceEnabled = true
