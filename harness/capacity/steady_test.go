package capacity

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// driftingRun is a closed loop's run of n requests at concurrency c over 10 seconds whose
// latencies vary 10% from request to request, correlated in start order as requests that
// share batches are (AR(1), φ = 0.6), slowing by perSec a second, and stepping by step at
// the middle.
func driftingRun(rng *rand.Rand, n, c int, perSec, step float64) *artifact.Benchmark {
	b := &artifact.Benchmark{Requests: n, Completed: n, Concurrency: c, Extension: &artifact.Extension{}}
	ar := 0.0
	for i := range n {
		start := 10 * float64(i) / float64(n)
		ar = 0.6*ar + math.Sqrt(1-0.36)*rng.NormFloat64()
		f := (1 + 0.1*ar) * (1 + perSec*start)
		if i >= n/2 {
			f *= 1 + step
		}
		tpot := artifact.Float(20 * f)
		b.RequestTimings = append(b.RequestTimings, artifact.RequestTiming{RequestIndex: i, TTFTMs: artifact.Float(100 * f * math.Exp(0.2*rng.NormFloat64())), TPOTMs: &tpot})
		b.Extension.Timeline = append(b.Extension.Timeline, artifact.RequestSpan{RequestIndex: i, StartOffsetMs: artifact.F(1000 * start), Outcome: "ok"})
	}
	return b
}

// steadyCheck is the gate's check of a steady state.
func steadyCheck(t *testing.T) gate.Check {
	for _, c := range gate.DefaultSpec().Checks() {
		if c.Name == "held a steady state" {
			return c
		}
	}
	t.Fatal("the gate has no steady-state check")
	return gate.Check{}
}

// The steady-state verdict's rates, by simulation (docs/gating.md): a steady engine
// called drifting, and a drift caught, over 10-second runs with correlated noise.
func TestTheSteadyStateVerdictsRatesBySimulation(t *testing.T) {
	check := steadyCheck(t)
	const runs = 300
	rng := rand.New(rand.NewPCG(11, 5))
	for _, tc := range []struct {
		name             string
		n, c             int
		perSec, step     float64
		minRate, maxRate float64
	}{
		{"steady, 300 requests at 4", 300, 4, 0, 0, 0, 0.01},
		{"steady, 60 requests at 20", 60, 20, 0, 0, 0, 0.01},
		{"steady, 2000 requests at 32", 2000, 32, 0, 0, 0, 0.01},
		{"0.5% a second (5% over the run)", 300, 4, 0.005, 0, 0, 0.05},
		{"2% a second", 300, 4, 0.02, 0, 0.3, 1},
		{"4% a second", 300, 4, 0.04, 0, 0.95, 1},
		{"4% a second, 2000 requests at 32", 2000, 32, 0.04, 0, 0.95, 1},
		{"a 20% step at the middle", 300, 4, 0, 0.2, 0.95, 1},
	} {
		invalid, untested := 0, 0
		for range runs {
			b := driftingRun(rng, tc.n, tc.c, tc.perSec, tc.step)
			b.Extension.Steady = steadyState(b, tc.c, true)
			switch r := check.Judge(b); {
			case r.Skipped != "":
				untested++
			case r.Outcome == gate.InvalidRun:
				invalid++
			}
		}
		rate := float64(invalid) / runs
		t.Logf("%-35s called drifting in %5.1f%% of %d runs, untested (too few requests) in %d", tc.name, 100*rate, runs, untested)
		if rate < tc.minRate || rate > tc.maxRate {
			t.Errorf("%s: called drifting in %.1f%%, want [%g%%, %g%%]", tc.name, 100*rate, 100*tc.minRate, 100*tc.maxRate)
		}
	}
}
