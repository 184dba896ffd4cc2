package report

import (
	"slices"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// The engine's own figures name what it held when the run began, beside its peaks.
func TestEngineFieldsSayWhatTheEngineHeldAtTheStart(t *testing.T) {
	b := synth(synthSpec{name: "configured", conc: 4, ctx: 1000, n: 8, ttftMs: 50, tpotMs: 5})
	m := artifact.EngineMetrics{URL: "http://engine/metrics", Scraped: true, Scrapes: 3, RunningAtStart: artifact.F(2), WaitingAtStart: artifact.F(1)}
	if got := engineMetricFields(b, m); !slices.Contains(got, Field{"engine at the start", "2 running, 1 waiting"}) {
		t.Errorf("fields %q", got)
	}
	m.RunningAtStart, m.WaitingAtStart = nil, nil
	for _, f := range engineMetricFields(b, m) {
		if f.Label == "engine at the start" {
			t.Errorf("an engine that exports neither gauge: %q", f)
		}
	}
}
