package capacity

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/internal/compare"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// Each request's engine phases are the engine's own, joined by request: a scheduler 40 ms
// slower shows as about 40 ms of queue in every request's vLLM metrics and nowhere else;
// each request's trace id is the one the engine received in its traceparent; llama.cpp's
// timings are read unasked, and a run told to skip asks for nothing.
func TestTheEnginesPhasesAreJoinedRequestByRequest(t *testing.T) {
	const queue = 40 * time.Millisecond
	s := fastEngine(t, refengine.Options{QueueDelay: queue})
	sc := Scenario{Requests: 8, Concurrency: 2, ContextTokens: 1000, MaxTokens: 32, ResponseWords: 16, Policy: PolicyStrict}
	b := mustRun(t, target(s), sc)
	traces := map[string]refengine.RequestTrace{}
	for _, tr := range s.Traces() {
		traces[tr.TraceParent] = tr
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	near := func(got *artifact.Float, want float64) bool {
		return got != nil && math.Abs(float64(*got)-want) < 0.002
	}
	for _, sp := range b.Extension.Timeline {
		p := sp.EnginePhases
		if p == nil || p.Source != "vLLM metrics (include_metrics)" || p.BeyondEngineMs == nil {
			t.Fatalf("request %d: phases %+v", sp.RequestIndex, p)
		}
		tr, ok := traces["00-"+sp.TraceID+"-"+spanOf(sp.RequestIndex)+"-01"]
		if !ok {
			t.Fatalf("request %d: trace id %q is not one the engine received", sp.RequestIndex, sp.TraceID)
		}
		// What the artifact holds is what the engine recorded for that request.
		if !near(p.QueueMs, ms(tr.Scheduled.Sub(tr.Arrived))) || !near(p.PromptEvalMs, ms(tr.FirstToken.Sub(tr.Scheduled))) ||
			!near(p.FirstTokenMs, ms(tr.FirstToken.Sub(tr.Arrived))) || float64(*p.QueueMs) < ms(queue) {
			t.Errorf("request %d: phases %+v; the engine recorded arrival %v, scheduled +%v, first token +%v",
				sp.RequestIndex, *p, tr.Arrived, tr.Scheduled.Sub(tr.Arrived), tr.FirstToken.Sub(tr.Arrived))
		}
		// The client's TTFT holds the engine's and what lies between them: never less.
		if float64(*p.BeyondEngineMs) < 0 {
			t.Errorf("request %d: the client's TTFT is %.3f ms short of the engine's", sp.RequestIndex, float64(*p.BeyondEngineMs))
		}
	}

	llama := fastEngine(t, refengine.Options{NativeInfo: refengine.NativeLlamaCpp})
	sc.SkipEnginePhases = true
	b = mustRun(t, target(llama), sc)
	for _, sp := range b.Extension.Timeline {
		if p := sp.EnginePhases; p == nil || p.Source != "llama.cpp timings" || p.QueueMs != nil || p.PromptEvalMs == nil || p.EvalMs == nil {
			t.Fatalf("request %d: phases %+v", sp.RequestIndex, p)
		}
		if sp.TraceID != "" {
			t.Errorf("request %d: a trace id was sent though skipped", sp.RequestIndex)
		}
	}
	for _, tr := range llama.Traces() {
		if tr.TraceParent != "" {
			t.Errorf("the engine received traceparent %q", tr.TraceParent)
		}
	}
}

// spanOf is the span id anvilbench sends request i: its index plus one, 16 hex digits.
func spanOf(i int) string { return fmt.Sprintf("%016x", uint64(i)+1) }

// Interleaved A/B of a baseline engine against three builds each slower in one phase: 40
// ms more scheduling before prefill, 40 ms more prefill, a decode 30% slower. Each
// regresses, the verdict names the phase that moved, and the current run's artifact holds
// each request's queue time as the engine stated it.
func TestAnInterleavedRegressionNamesThePhaseThatMoved(t *testing.T) {
	t.Parallel()
	// 6 pairs: an attribution's interval stands on the pairs (5 degrees of freedom here), at
	// a Bonferroni level; with 4 pairs beside two CPU hogs a 30% slower decode was a
	// regression whose phase no interval could name.
	opts := refengine.Options{ITL: 4 * time.Millisecond, PrefillOverhead: 20 * time.Millisecond}
	base := fastEngine(t, opts)
	sc := Scenario{Name: "phases", Requests: 8, Concurrency: 4, ContextTokens: 1000, MaxTokens: 32, ResponseWords: 12, Calibrate: true,
		Repeats: 6, WarmupRequests: 4}
	for _, c := range []struct {
		name, metric, moved string
		slower              func(*refengine.Options)
	}{
		{"scheduling +40 ms", "ttft_p50_ms", "queue", func(o *refengine.Options) { o.QueueDelay = 40 * time.Millisecond }},
		{"prefill +40 ms", "ttft_p50_ms", "prefill", func(o *refengine.Options) { o.PrefillOverhead += 40 * time.Millisecond }},
		{"decode 30% slower", "tpot_p50_ms", "decode", func(o *refengine.Options) { o.ITL = o.ITL * 13 / 10 }},
	} {
		o := opts
		c.slower(&o)
		cur, bas, err := RunInterleaved(t.Context(), target(fastEngine(t, o)), sc, Interleaving{Baseline: target(base)})
		if err != nil {
			t.Fatal(err)
		}
		v := compare.Regression(bas, cur, c.metric, 0.05, compare.Options{Metrics: 2})
		t.Logf("%s: %s", c.name, v.Message())
		if v.Outcome != compare.Regressed || v.Attribution == nil {
			t.Errorf("%s: %s", c.name, v.Message())
			continue
		}
		for _, p := range v.Attribution.Phases {
			if p.Phase == c.moved && !p.Moved {
				t.Errorf("%s: %s not named: %s", c.name, c.moved, v.Message())
			}
		}
		if !strings.Contains(v.Message(), c.moved+" moved") {
			t.Errorf("%s: the verdict does not say %s moved: %s", c.name, c.moved, v.Message())
		}
		if c.moved == "queue" {
			for _, sp := range cur.Extension.Timeline {
				if p := sp.EnginePhases; p == nil || p.QueueMs == nil || float64(*p.QueueMs) < 40 {
					t.Errorf("request %d of the slower build: engine phases %+v", sp.RequestIndex, p)
				}
			}
		}
	}
}
