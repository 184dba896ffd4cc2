//go:build race

package capacity

// raceEnabled skips the tests whose figures depend on real-time scheduling: the race
// detector slows every step several times over.
const raceEnabled = true
