package report

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// withPhases gives each request of b the engine's account of it: queue and prefill
// splitting its TTFT (beyond the engine 1 ms) and a decode.
func withPhases(b *artifact.Benchmark, queue float64) {
	for i := range b.Extension.Timeline {
		s := &b.Extension.Timeline[i]
		if s.TTFTMs == nil {
			continue
		}
		ttft := float64(*s.TTFTMs)
		s.EnginePhases = &artifact.EnginePhases{Source: "vLLM metrics (include_metrics)", QueueMs: artifact.F(queue),
			PromptEvalMs: artifact.F(ttft - queue - 1), EvalMs: artifact.F(100), BeyondEngineMs: artifact.F(1)}
	}
	var q, p, d, beyond []float64
	for _, s := range b.Extension.Timeline {
		if e := s.EnginePhases; e != nil {
			q, p, d, beyond = append(q, float64(*e.QueueMs)), append(p, float64(*e.PromptEvalMs)), append(d, float64(*e.EvalMs)), append(beyond, float64(*e.BeyondEngineMs))
		}
	}
	pct := func(v []float64) *artifact.Percentiles {
		x := dist(v)
		return &artifact.Percentiles{Samples: x.Samples, P50: *x.P50, P95: *x.P95, P99: *x.P99, Max: *x.Max}
	}
	b.Extension.Phases = &artifact.Phases{Source: "vLLM metrics (include_metrics)", Requests: len(q), QueueMs: pct(q), PrefillMs: pct(p), DecodeMs: pct(d), BeyondEngineMs: pct(beyond)}
}

// The report draws the engine's phases of a run beside those of the baseline build it ran
// interleaved with: a queue 40 ms longer shows as the queue's change, in both renderings.
func TestTheReportDrawsThePhasesBesideTheBaselines(t *testing.T) {
	cur := synth(synthSpec{name: "configured", conc: 4, ctx: 2048, n: 20, ttftMs: 90, tpotMs: 6})
	base := synth(synthSpec{name: "configured", conc: 4, ctx: 2048, n: 20, ttftMs: 50, tpotMs: 6})
	withPhases(cur, 45)
	withPhases(base, 5)
	cur.Extension.Interleaved = &artifact.Interleaved{Role: artifact.RoleCurrent, Pairing: "p1"}
	base.Extension.Interleaved = &artifact.Interleaved{Role: artifact.RoleBaseline, Pairing: "p1"}
	in := Input{Runs: []Run{{Path: "capacity/configured.json", Benchmark: cur}, {Path: "capacity/configured-baseline.json", Benchmark: base}}}
	m, html, md := render(t, in)
	v := m.Scenarios[0]
	if len(v.Phases) != 4 || v.Phases[0].Phase != "engine's queue" || v.Phases[0].Change != "+40.00 ms" || v.PhasesBaseline == "" {
		t.Fatalf("phases %+v (baseline %q)", v.Phases, v.PhasesBaseline)
	}
	for name, page := range map[string]string{"markdown": md, "html": html} {
		if !strings.Contains(page, "the engine's phases (vLLM metrics (include_metrics))") && !strings.Contains(page, "The engine's phases (vLLM metrics (include_metrics))") {
			t.Errorf("%s has no phases section", name)
		}
		if !strings.Contains(page, "+40.00 ms") && !strings.Contains(page, "&#43;40.00 ms") {
			t.Errorf("%s does not show the queue's change", name)
		}
	}
	// A run of no engine account shows none.
	if plain := newRunView(Run{Path: "x.json", Benchmark: synth(synthSpec{name: "x", conc: 1, ctx: 1000, n: 4, ttftMs: 10, tpotMs: 1})}, nil, nil); len(plain.Phases) != 0 {
		t.Errorf("phases without an engine account: %+v", plain.Phases)
	}
}
