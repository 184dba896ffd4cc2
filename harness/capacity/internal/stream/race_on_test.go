//go:build race

package stream

// raceEnabled skips allocation counts (the race detector makes sync.Pool drop items at
// random, by design) and timing that depends on real-time scheduling.
const raceEnabled = true
