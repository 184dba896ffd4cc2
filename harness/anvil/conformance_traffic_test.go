package anvil

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// The row "honours priorities" says yes when the urgent class's TTFTs lie below the other's,
// no when they do not and requests waited, and n/a when none waited or one class ran.
func TestThePriorityRowSaysWhatTheEngineOrdered(t *testing.T) {
	run := func(urgent, patient []float64, waitingPeak *float64) *artifact.Benchmark {
		x := &artifact.Extension{}
		x.Priorities = []artifact.Group{{Name: "interactive", Priority: new(0)}, {Name: "batch", Priority: new(10)}}
		for class, ttfts := range map[string][]float64{"interactive": urgent, "batch": patient} {
			for _, v := range ttfts {
				x.Timeline = append(x.Timeline, artifact.RequestSpan{Outcome: "ok", PriorityClass: class, TTFTMs: artifact.F(v)})
			}
		}
		if waitingPeak != nil {
			x.EngineMetrics.WaitingPeak = artifact.F(*waitingPeak)
		}
		return &artifact.Benchmark{Extension: x}
	}
	for name, c := range map[string]struct {
		b      *artifact.Benchmark
		status gate.ConformanceStatus
		detail string
	}{
		"by priority":         {run([]float64{10, 12, 11, 13}, []float64{40, 80, 120, 160}, new(6.0)), gate.Honoured, "the first sooner (one-sided p 0.014)"},
		"first come":          {run([]float64{10, 80, 120, 40}, []float64{12, 160, 11, 90}, new(6.0)), gate.NotHonoured, "the first not sooner"},
		"nothing waited":      {run([]float64{10, 12, 11, 13}, []float64{11, 10, 12, 13}, new(0.0)), gate.NotApplicable, "no request waited"},
		"unknown, none apart": {run([]float64{10, 12, 11, 13}, []float64{11, 10, 12, 13}, nil), gate.NotHonoured, "too few waited to tell"},
		"one class":           {&artifact.Benchmark{Extension: &artifact.Extension{}}, gate.NotApplicable, "no priority classes configured"},
	} {
		status, detail := priorityOrder(c.b)
		if status != c.status || !strings.Contains(detail, c.detail) {
			t.Errorf("%s: %s: %s; want %s with %q", name, status, detail, c.status, c.detail)
		}
	}
}
