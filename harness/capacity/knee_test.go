package capacity

import (
	"context"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// TestKneeSearchFindsTheMaxBatch: an engine that serves 8 sequences per decode step and
// time-slices beyond that; a TPOT budget between its 8- and 9-sequence step times puts the
// knee at 8.
func TestKneeSearchFindsTheMaxBatch(t *testing.T) {
	if raceEnabled {
		t.Skip("step times are meaningless under the race detector")
	}
	t.Parallel()
	s := fastEngine(t, refengine.Options{
		PrefillOverhead: 2 * time.Millisecond, ITL: 2 * time.Millisecond, BatchSlowdown: 0.05,
		MaxBatch: 8, Overflow: refengine.OverflowTimeslice,
	})
	sc := referenceScenario()
	sc.ContextTokens, sc.MaxTokens, sc.Name = 500, 64, "knee"
	// Step time at 8 sequences: 2 ms x 1.35 = 2.70 ms; at 9, 9/8 of a step each: ~3.04 ms.
	budgets, err := budget.Parse("tpot_p50_ms<=2.9")
	if err != nil {
		t.Fatal(err)
	}
	recorded := 0
	curve, err := FindKnee(context.Background(), target(s), sc, KneeOptions{
		Budgets: budgets, MaxConcurrency: 64,
		Recorded: func(Scenario, *artifact.Benchmark) string { recorded++; return "" },
	})
	if err != nil {
		t.Fatal(err)
	}
	// At 9 sequences the time-sliced step lands within a few percent of the budget, so
	// either 8 or 9 is the knee; 16 and beyond must fail.
	if (curve.Knee != 8 && curve.Knee != 9) || !curve.Bounded || recorded != len(curve.Probes) {
		for _, p := range curve.Probes {
			t.Logf("c=%d passed=%v %v", p.Concurrency, p.Passed, p.Verdicts)
		}
		t.Fatalf("knee %d (bounded %v), want 8 or 9", curve.Knee, curve.Bounded)
	}
	// 1, 2, 4, 8 pass, 16 fails, then 12, 10, 9 narrow it down.
	if got := len(curve.Probes); got != 8 {
		t.Errorf("%d probes, want 8", got)
	}
	if p := curve.Probes[3]; p.GoodputRPS <= 0 || p.GoodputRPS > p.ThroughputRPS || curve.GoodputSLO["tpot_ms"] != 2.9 {
		t.Errorf("goodput %v of %v rps, slo %v", p.GoodputRPS, p.ThroughputRPS, curve.GoodputSLO)
	}
}
