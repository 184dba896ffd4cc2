package capacity

import (
	"runtime"
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

// The runtime metrics behind the phase's GC count and memory limit are the ones read.
func TestRuntimeMetricsAreRead(t *testing.T) {
	before := gcCycles()
	runtime.GC()
	if after := gcCycles(); after <= before {
		t.Errorf("a forced collection left the count at %d (was %d)", after, before)
	}
	if heap := readMetric(heapObjectsMetric); heap == 0 {
		t.Error("the live heap reads as 0 bytes")
	}
	if v := readMetric("/no/such:metric"); v != 0 {
		t.Errorf("an unknown metric reads %d", v)
	}
}
