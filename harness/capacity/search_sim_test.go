package capacity

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
)

// simEngine is an engine the search is simulated against: each request's TTFT at
// concurrency c. A slotted engine serves slots requests at once and the rest wait part of
// an answer; a smooth one slows with the load, its p95 at the SLO's 80 ms near c = 5. Speed
// scales every latency: one start of an engine is slower or faster than another.
type simEngine struct {
	slots  int
	smooth bool
	speed  float64
}

func (e simEngine) ttft(rng *rand.Rand, c int) float64 {
	base := 20 * math.Exp(0.25*rng.NormFloat64())
	if e.smooth {
		return e.speed * base * math.Pow(1+float64(c)/8, 2)
	}
	if c > e.slots && rng.Float64() < float64(c-e.slots)/float64(c) {
		base += 150 * (0.5 + 0.5*rng.Float64())
	}
	return e.speed * base
}

// simulatedRun is a probe's artifact with the TTFTs an engine would give.
func simulatedRun(rng *rand.Rand, e simEngine, sc Scenario) *artifact.Benchmark {
	values := make([]float64, sc.Requests)
	b := &artifact.Benchmark{Requests: sc.Requests, Completed: sc.Requests, Concurrency: sc.Concurrency,
		WallClockMs: artifact.Float(1000), Extension: &artifact.Extension{}}
	for i := range values {
		if sc.RequestRate > 0 {
			// An open loop: the engine slows with the rate as the smooth one with concurrency,
			// a rate of 2.5/s standing for one request in flight.
			values[i] = e.speed * 20 * math.Exp(0.25*rng.NormFloat64()) * math.Pow(1+sc.RequestRate/2.5/8, 2)
		} else {
			values[i] = e.ttft(rng, sc.Concurrency)
		}
		b.RequestTimings = append(b.RequestTimings, artifact.RequestTiming{RequestIndex: i, TTFTMs: artifact.Float(values[i])})
	}
	b.Metrics.TTFT = distribution(values)
	return b
}

// simulate runs n searches over concurrency within ttft_p95_ms<=80 of engine against
// baseline, each side started anew (its speed drawn with a spread of restartCV), and
// counts the capacity judged lower: sure (a regression) or by point figures only
// (inconclusive), and the capacities found.
func simulate(t *testing.T, seed uint64, n int, engine, baseline simEngine, restartCV float64) (sure, unsure int, capacities map[float64]int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	slo, err := budget.Parse("ttft_p95_ms<=80")
	if err != nil {
		t.Fatal(err)
	}
	capacities = map[float64]int{}
	sc := Scenario{Name: "sim", Requests: 20}
	for range n {
		a, b := engine, baseline
		a.speed *= 1 + restartCV*rng.NormFloat64()
		b.speed *= 1 + restartCV*rng.NormFloat64()
		engines := map[string]simEngine{"http://a/v1": a, "http://b/v1": b}
		runAt := func(_ context.Context, target Target, sc Scenario) (*artifact.Benchmark, error) {
			return simulatedRun(rng, engines[target.BaseURL], sc), nil
		}
		run, _, err := searchWith(context.Background(), Target{BaseURL: "http://a/v1"}, sc, Search{Over: "concurrency", Max: 32}, slo,
			&Interleaving{Baseline: Target{BaseURL: "http://b/v1"}}, runAt)
		if err != nil {
			t.Fatal(err)
		}
		s := run.Extension.Search
		capacities[float64(s.Capacity)]++
		if _, ok, lower := s.Below(*s.Baseline); lower && ok {
			sure++
		} else if lower {
			unsure++
		}
	}
	return sure, unsure, capacities
}

// The rates docs/gating.md states of a capacity regression, by simulation: two starts of
// one build (A/A) judged as a regression, and a capacity 20% lower caught, for an engine
// with a sharp knee (slots) and one whose p95 crosses the SLO at a load the search probes
// (the worst case), with no spread between starts and with 2%.
func TestTheCapacityVerdictsRatesBySimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("a simulation of 4,000 searches")
	}
	const n = 500
	rate := func(k int) float64 { return float64(k) / n }
	for _, tc := range []struct {
		name             string
		engine, baseline simEngine
		restartCV        float64
		maxSure, minSure float64
	}{
		{"A/A slots 8", simEngine{slots: 8, speed: 1}, simEngine{slots: 8, speed: 1}, 0, 0.01, 0},
		{"A/A slots 8, 2% between starts", simEngine{slots: 8, speed: 1}, simEngine{slots: 8, speed: 1}, 0.02, 0.01, 0},
		{"A/A smooth", simEngine{smooth: true, speed: 1}, simEngine{smooth: true, speed: 1}, 0, 0.02, 0},
		{"A/A smooth, 2% between starts", simEngine{smooth: true, speed: 1}, simEngine{smooth: true, speed: 1}, 0.02, 0.02, 0},
		{"8 slots against 10", simEngine{slots: 8, speed: 1}, simEngine{slots: 10, speed: 1}, 0.02, 1, 0.95},
		{"smooth, 25% slower (capacity 3-4 against 4-5)", simEngine{smooth: true, speed: 1.25}, simEngine{smooth: true, speed: 1}, 0.02, 1, 0.5},
	} {
		sure, unsure, caps := simulate(t, uint64(len(tc.name)), n, tc.engine, tc.baseline, tc.restartCV)
		t.Logf("%-45s regression %5.1f%%, lower by unresolved verdicts (passed, noted) %5.1f%% of %d searches; capacities found %v",
			tc.name, 100*rate(sure), 100*rate(unsure), n, caps)
		if r := rate(sure); r > tc.maxSure || r < tc.minSure {
			t.Errorf("%s: regression in %.1f%% of searches, want %s", tc.name, 100*r, fmt.Sprintf("[%g%%, %g%%]", 100*tc.minSure, 100*tc.maxSure))
		}
	}
}

// A search over request rate doubles from max/32 and bisects until the rate broken is
// within 10% of the rate held: against an engine whose p95 reaches 80 ms at 12.6/s.
func TestASearchOverRequestRateBracketsItToTenPercent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	slo, _ := budget.Parse("ttft_p95_ms<=80")
	runAt := func(_ context.Context, _ Target, sc Scenario) (*artifact.Benchmark, error) {
		return simulatedRun(rng, simEngine{smooth: true, speed: 1}, sc), nil
	}
	run, _, err := searchWith(context.Background(), Target{BaseURL: "http://a/v1"}, Scenario{Name: "sim", Requests: 20, Concurrency: 4},
		Search{Over: "request_rate", Max: 40}, slo, nil, runAt)
	if err != nil {
		t.Fatal(err)
	}
	s := run.Extension.Search
	var loads []float64
	for _, p := range s.Probes {
		loads = append(loads, float64(p.Load))
	}
	t.Logf("rates probed %v: capacity %v, broke at %v", loads, s.Capacity, s.Broke)
	if s.Broke == nil || float64(*s.Broke)/float64(s.Capacity) > 1.1 || s.Capacity < 10 || s.Capacity > 14 {
		t.Errorf("capacity_rps %v, broke at %v: want a bracket within 10%% about 12.6/s", s.Capacity, s.Broke)
	}
	if loads[0] != 1.25 {
		t.Errorf("first rate %v, want 40/32", loads[0])
	}
}

// A search interrupted half-way returns what it found with the error, saying it stopped:
// the capacity so far, every probe run, nothing lost.
func TestAnInterruptedSearchKeepsWhatItFound(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 7))
	slo, _ := budget.Parse("ttft_p95_ms<=80")
	ctx, cancel := context.WithCancel(context.Background())
	probes := 0
	runAt := func(_ context.Context, _ Target, sc Scenario) (*artifact.Benchmark, error) {
		if probes++; probes == 3 {
			cancel()
		}
		return simulatedRun(rng, simEngine{slots: 8, speed: 1}, sc), nil
	}
	run, _, err := searchWith(ctx, Target{BaseURL: "http://a/v1"}, Scenario{Name: "sim", Requests: 20}, Search{Over: "concurrency", Max: 32}, slo, nil, runAt)
	if err == nil || run == nil || run.Extension.Search == nil {
		t.Fatalf("interrupted after 3 probes: %v, %v", run, err)
	}
	s := run.Extension.Search
	if len(s.Probes) != 3 || s.Capacity != 2 || s.Broke != nil || s.Stopped == "" || s.Probes[2].Verdict != "interrupted" {
		t.Errorf("interrupted after 3 probes: %d probes, capacity %v, broke %v, stopped %q", len(s.Probes), s.Capacity, s.Broke, s.Stopped)
	}
}
