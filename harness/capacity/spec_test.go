package capacity

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/internal/compare"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// A reference engine that drafts 3 tokens a step and accepts 70% of them: the run reads
// the acceptance from its vLLM counters (0.70 within 0.01, 3.1 tokens a step, acceptance
// falling by draft position), and a budget on spec_accept_rate holds at 0.65 and breaks
// at 0.8. Decoding 3.1 tokens a step makes tpot a third of the step.
func TestSpeculativeDecodingFromTheEngineCounters(t *testing.T) {
	const step = 3 * time.Millisecond
	s := fastEngine(t, refengine.Options{SpecTokens: 3, SpecAccept: 0.7, ITL: step})
	sc := Scenario{Requests: 24, Concurrency: 4, ContextTokens: 1000, MaxTokens: 160, ResponseWords: 128, Policy: PolicyStrict, Calibrate: true,
		ContinuousUsage: true, WarmupRequests: 16}
	b := mustRun(t, target(s), sc)
	if b.Failed != 0 {
		t.Fatalf("%d failed: %+v", b.Failed, b.Failures[0])
	}
	d := b.Extension.EngineMetrics.SpecDecode
	if d == nil || d.AcceptanceRate == nil {
		t.Fatalf("no speculative decoding recorded: %+v", b.Extension.EngineMetrics)
	}
	if !strings.HasSuffix(d.Source, "(the measured blocks)") {
		t.Errorf("source %q: want the measured blocks' counters, not the warm-up's", d.Source)
	}
	// The counters are the measured requests' own: steps times tokens a step are their
	// output tokens (the warm-up's 16 requests would add two thirds).
	out := 0
	for _, row := range b.RequestTimings {
		out += *row.OutputTokens
	}
	if emitted := float64(*d.Drafts) * float64(*d.MeanAcceptedLength); math.Abs(emitted-float64(out)) > 0.05*float64(out) {
		t.Errorf("the counters emitted %.0f tokens, the measured requests %d", emitted, out)
	}
	if rate := float64(*d.AcceptanceRate); math.Abs(rate-0.7) > 0.01 {
		t.Errorf("acceptance rate %.4f, want 0.70 within 0.01", rate)
	}
	if l := float64(*d.MeanAcceptedLength); math.Abs(l-3.1) > 0.03 {
		t.Errorf("mean accepted length %.3f, want 3.1", l)
	}
	if len(d.PerPosition) != 3 || d.PerPosition[0] < d.PerPosition[1] || d.PerPosition[1] < d.PerPosition[2] {
		t.Errorf("per position %v: want 3 positions, falling", d.PerPosition)
	}
	if tpot := float64(*b.Metrics.TPOT.P50); tpot > float64(step.Milliseconds())/2 {
		t.Errorf("tpot p50 %.2f ms with 3.1 tokens a %v step", tpot, step)
	}
	// The client sees the accepted lengths in the chunks: mostly 3 tokens, a 4 in ten.
	ct := b.Extension.ITL.ChunkTokens
	if ct["3"] < 5*ct["4"] || ct["4"] == 0 {
		t.Errorf("tokens per chunk %v: want mostly 3 and some 4", ct)
	}
	for limit, pass := range map[string]bool{"spec_accept_rate>=0.65": true, "spec_accept_rate>=0.8": false, "spec_accept_length>=3": true} {
		bs, err := budget.Parse(limit)
		if err != nil {
			t.Fatal(err)
		}
		if v := budget.Judge(bs[0], b); v.Err != nil || v.Pass != pass {
			t.Errorf("%s: pass %v, err %v (rate %.3f)", limit, v.Pass, v.Err, float64(*d.AcceptanceRate))
		}
	}
	t.Logf("acceptance %.4f over %.0f draft tokens, %.3f tokens a step, per position %v, tpot p50 %.2f ms, tokens per chunk %v",
		float64(*d.AcceptanceRate), float64(*d.DraftTokens), float64(*d.MeanAcceptedLength), d.PerPosition, float64(*b.Metrics.TPOT.P50), ct)
}

// An interleaved run of a build whose acceptance fell from 0.8 to 0.7 against the one
// before: each engine's counters are read around its own blocks, so each block has its
// acceptance, and the gate finds the fall on spec_accept_rate; the same build on both
// sides holds.
func TestAFallInAcceptanceRegressesInAnInterleavedRun(t *testing.T) {
	sc := Scenario{Name: "spec", Requests: 8, Concurrency: 4, ContextTokens: 500, MaxTokens: 64, ResponseWords: 48, Calibrate: true,
		Repeats: 3, WarmupRequests: 4}
	for _, c := range []struct {
		base, cur float64
		want      compare.Outcome
	}{{0.8, 0.7, compare.Regressed}, {0.7, 0.7, compare.Pass}} {
		base := fastEngine(t, refengine.Options{SpecTokens: 3, SpecAccept: c.base, ITL: time.Millisecond})
		cur := fastEngine(t, refengine.Options{SpecTokens: 3, SpecAccept: c.cur, ITL: time.Millisecond})
		current, baseline, err := RunInterleaved(t.Context(), target(cur), sc, Interleaving{Baseline: target(base)})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range []*artifact.Benchmark{current, baseline} {
			if v := b.Extension.Blocks.Figures["spec_accept_rate"].Values; len(v) != 3 || v[0] == nil || v[2] == nil {
				t.Fatalf("block acceptances %v", v)
			}
		}
		if got := float64(*current.Extension.EngineMetrics.SpecDecode.AcceptanceRate); math.Abs(got-c.cur) > 0.01 {
			t.Errorf("the current build's acceptance %.4f, want %.2f", got, c.cur)
		}
		v := compare.Regression(baseline, current, "spec_accept_rate", 0.05, compare.Options{})
		if v.Outcome != c.want {
			t.Errorf("%.1f against %.1f: %s, want %s: %s", c.cur, c.base, v.Outcome, c.want, v.Message())
		}
		t.Log(v.Message())
	}
}
