package capacity

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// An engine that serves 8 sequences per decode step and time-slices beyond: a TPOT budget
// between its 8- and 9-sequence step times puts its capacity at 8 (9 allowed: there the
// step lands within a few percent of the budget).
func TestASearchFindsTheMaxBatch(t *testing.T) {
	if raceEnabled {
		t.Skip("step times are meaningless under the race detector")
	}
	t.Parallel()
	s := fastEngine(t, refengine.Options{
		PrefillOverhead: 2 * time.Millisecond, ITL: 2 * time.Millisecond, BatchSlowdown: 0.05,
		MaxBatch: 8, Overflow: refengine.OverflowTimeslice,
	})
	sc := referenceScenario()
	sc.ContextTokens, sc.MaxTokens, sc.Requests, sc.Name = 500, 64, 8, "knee"
	// Step time at 8 sequences: 2 ms x 1.35 = 2.70 ms; at 9, 9/8 of a step each: ~3.04 ms.
	budgets, err := budget.Parse("tpot_p50_ms<=2.9")
	if err != nil {
		t.Fatal(err)
	}
	run, baseline, err := SearchCapacity(context.Background(), target(s), sc, Search{Over: "concurrency", Max: 64}, budgets, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := run.Extension.Search
	var loads []float64
	for _, p := range found.Probes {
		loads = append(loads, float64(p.Load))
		t.Logf("c=%v attempt %d: %s (%s) %v", p.Load, p.Attempt, p.Verdict, p.Decided, p.Figures)
	}
	if (found.Capacity != 8 && found.Capacity != 9) || found.Broke == nil || baseline != nil {
		t.Fatalf("capacity %v broke %v, want 8 or 9 and a load that broke", found.Capacity, found.Broke)
	}
	if run.Concurrency != int(found.Capacity) {
		t.Errorf("the artifact is the run at concurrency %d, not at the capacity %v", run.Concurrency, found.Capacity)
	}
	// 1, 2, 4, 8 hold, 16 breaks, then 12, 10, 9 narrow it down (a load run again while
	// its verdict is unresolved).
	var first []float64
	for i, l := range loads {
		if i == 0 || l != loads[i-1] {
			first = append(first, l)
		}
	}
	if want := []float64{1, 2, 4, 8, 16, 12, 10, 9}; !equalFloats(first, want) {
		t.Errorf("loads probed %v, want %v", first, want)
	}
	if p := found.Probes[3]; p.GoodputRPS == nil || *p.GoodputRPS <= 0 || float64(*p.GoodputRPS) > float64(p.ThroughputRPS) {
		t.Errorf("goodput %v of %v rps at concurrency 8", p.GoodputRPS, p.ThroughputRPS)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A search is written "concurrency:64" or, in a file, {"over": ..., "max": ...}; a
// wrong load or bound is refused, naming what it wants.
func TestASearchReadsBothFormsAndRefusesABadOne(t *testing.T) {
	for text, want := range map[string]Search{
		`"concurrency:64"`:                       {Over: "concurrency", Max: 64},
		`{"over": "request_rate", "max": 40}`:    {Over: "request_rate", Max: 40},
		`""`:                                     {},
		`"concurrency:0"`:                        {Over: "x"},
		`"concurrency:2.5"`:                      {Over: "x"},
		`"throughput:9"`:                         {Over: "x"},
		`{"over": "concurrency", "maximum": 64}`: {Over: "x"},
		`"request_rate"`:                         {Over: "x"},
	} {
		var got Search
		err := json.Unmarshal([]byte(text), &got)
		if want.Over == "x" {
			if err == nil {
				t.Errorf("%s: read as %+v, want an error", text, got)
			} else {
				t.Logf("%s: %v", text, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", text, got, err, want)
		}
	}
}
