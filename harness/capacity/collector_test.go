package capacity

import (
	"runtime/debug"
	"testing"
)

// The collector is off during a request phase, also when two overlap, and the caller's
// settings come back after the last. Not parallel: the settings are the process's.
func TestQuietCollectorRestoresTheCallersSettings(t *testing.T) {
	was := debug.SetGCPercent(150)
	defer debug.SetGCPercent(was)
	first := quietCollector()
	second := quietCollector()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("collector at %d%% during the phase, want off", p)
	}
	if limit := debug.SetMemoryLimit(-1); limit <= 0 || limit == 1<<63-1 {
		t.Errorf("no memory limit bounds the phase: %d", limit)
	}
	first()
	first() // idempotent
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("restored while another phase runs: %d%%", p)
	}
	second()
	if p := debug.SetGCPercent(150); p != 150 {
		t.Errorf("restored to %d%%, want 150%%", p)
	}
}
