package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// A ladder step the served window clamped ran at the window, not at its step: the table,
// the run's section and the context chart say what was sent.
func TestAClampedContextStepIsShownAtTheContextItSent(t *testing.T) {
	clamped := func(k int) Run {
		b := synth(synthSpec{name: fmt.Sprintf("context-%dk", k), conc: 1, ctx: k * 1000, n: 4, ttftMs: 900, tpotMs: 4})
		for i := range b.RequestTimings {
			b.RequestTimings[i].PlannedContextTokens = 15296
		}
		b.Extension.ContextClamp = &artifact.ContextClamp{Window: 16384, MaxPromptTokens: 15296, Requests: 4, LargestPlanned: k * 1000,
			Note: fmt.Sprintf("context plan clamped: 4 of 4 requests planned up to %d tokens run at 15296", k*1000)}
		return Run{Path: fmt.Sprintf("curves/context-%dk.json", k), Benchmark: b}
	}
	in := Input{Title: "clamped", Runs: []Run{
		{Path: "curves/context-8k.json", Benchmark: synth(synthSpec{name: "context-8k", conc: 1, ctx: 8000, n: 4, ttftMs: 500, tpotMs: 4})},
		clamped(32), clamped(64),
	}}
	m, page, md := render(t, in)

	want := "4 × 1 at 15,296 tok (clamped from 64,000 tok to the 16,384-token window)"
	if !strings.Contains(md, want) || !strings.Contains(page, want) {
		t.Errorf("neither report's table says %q:\n%s", want, md)
	}
	if !strings.Contains(page, "context plan clamped: 4 of 4 requests planned up to 64000 tokens run at 15296") {
		t.Error("the run's section lacks its clamp")
	}
	if c, exact := plannedContext(in.Runs[2].Benchmark); c != 15296 || !exact {
		t.Errorf("planned context %v (exact %v), want the 15,296 sent", c, exact)
	}
	failed := *in.Runs[2].Benchmark
	failed.RequestTimings = nil
	if c, exact := plannedContext(&failed); c != 15296 || !exact {
		t.Errorf("every request failed: planned context %v (exact %v), want the 15,296 the plan sent", c, exact)
	}
	// On the context chart, the 32k step is drawn at 15,296; the 64k step, at the same
	// context, stays out of the line as a repeat.
	var xs []float64
	for _, s := range setsOf(sweeps[1], m.Scenarios) {
		xs = append(xs, s.xs...)
	}
	if fmt.Sprint(xs) != "[8000 15296]" {
		t.Errorf("context chart x %v, want [8000 15296]", xs)
	}
}
