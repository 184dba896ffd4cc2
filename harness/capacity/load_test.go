package capacity

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/refengine"
)

// TestHolds256ConcurrentStreams: the harness itself must not be what fails at the
// concurrency users run (issue: reliability under load).
func TestHolds256ConcurrentStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	s := fastEngine(t, refengine.Options{PrefillOverhead: 20 * time.Millisecond, ITL: 2 * time.Millisecond})
	sc := referenceScenario()
	sc.Requests, sc.Concurrency, sc.ContextTokens, sc.MaxTokens = 512, 256, 1024, 64
	b := mustRun(t, target(s), sc)
	if b.Failed != 0 || b.Completed != 512 {
		t.Fatalf("completed %d failed %d: %+v", b.Completed, b.Failed, b.Failures[:min(3, len(b.Failures))])
	}
	if err := Verify(b); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkPeakRSSPer256Streams reports the process's peak resident memory per stream while
// 256 streams are in flight against the reference engine in the same process.
func BenchmarkPeakRSSPer256Streams(b *testing.B) {
	s, err := refengine.Start(refengine.Options{PrefillOverhead: 10 * time.Millisecond, ITL: time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	sc := referenceScenario()
	sc.Requests, sc.Concurrency, sc.ContextTokens, sc.MaxTokens = 256, 256, 4096, 64
	// The high-water mark is the process's: without a reset it still holds the peak of an
	// earlier, larger benchmark and this one would report nothing. Freed memory is handed
	// back first, so the streams cannot hide in pages an earlier benchmark left resident.
	debug.FreeOSMemory()
	resetRSSHighWater(b)
	before := rssHighWater(b)
	for b.Loop() {
		if _, err := Run(b.Context(), target(s), sc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rssHighWater(b)-before)/256, "peak-RSS-B/stream")
}

// resetRSSHighWater sets VmHWM to the current resident size (Linux 4.0 and later).
func resetRSSHighWater(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skipf("cannot reset the peak RSS: %v", err)
	}
}

// rssHighWater is VmHWM from /proc/self/status in bytes (Linux only).
func rssHighWater(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	b.Skip("no VmHWM")
	return 0
}
