package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// warmRun is a run of n requests at tpot ms a token, the first slow of them at slowTPOT
// ms, started in index order.
func warmRun(n, slow int, tpot, slowTPOT float64) *artifact.Benchmark {
	a := &artifact.Benchmark{Requests: n, Extension: &artifact.Extension{}}
	var all []float64
	for i := range n {
		v := tpot
		if i < slow {
			v = slowTPOT
		}
		// A spread of 2% between requests, as any engine's.
		v *= 1 + 0.02*float64(i%5-2)
		all = append(all, v)
		a.RequestTimings = append(a.RequestTimings, artifact.RequestTiming{RequestIndex: i, TPOTMs: artifact.F(v)})
		a.Extension.Timeline = append(a.Extension.Timeline, artifact.RequestSpan{RequestIndex: i, StartOffsetMs: artifact.F(float64(i))})
	}
	a.Metrics.TPOT = artifact.Distribution{Samples: n, P50: artifact.F(median(all))}
	return a
}

// warmup is a warm-up whose last requests decoded at these TPOTs.
func warmup(tpots ...float64) *artifact.Warmup {
	w := &artifact.Warmup{Requests: 2 * len(tpots), LastRequests: len(tpots), LastTPOTP50Ms: artifact.F(median(tpots))}
	for _, v := range tpots {
		w.LastTPOTMs = append(w.LastTPOTMs, artifact.Float(v))
	}
	return w
}

// A warm-up whose last requests decoded far slower than the measured phase, or without a
// warm-up first requests far slower than the rest, make an invalid run naming the figures;
// a warm start holds, and so does a slower start that its few samples cannot tell from
// the bound.
func TestStartedWarm(t *testing.T) {
	t.Parallel()
	a := warmRun(40, 0, 5, 5)
	a.Extension.Warmup = warmup(15, 15.2, 14.8, 15.1, 15, 14.9, 15.3, 15)
	if r := StartedWarm().Judge(a); r.Outcome != InvalidRun || !strings.Contains(r.Message, "still cold when the measured phase began: the warm-up's last 8 requests decoded at 15.04ms a token, the measured phase's 40 at 5.00ms (+201%, at least +") {
		t.Errorf("a cold warm-up: %+v", r)
	}
	a.Extension.Warmup = warmup(5.5, 5.4, 5.6, 5.5)
	if r := StartedWarm().Judge(a); r.Outcome != Pass || r.Skipped != "" {
		t.Errorf("a warm warm-up: %+v", r)
	}
	// 34% slower by its point, over 2 requests of 4 varying by 30%: not beyond the bound.
	four := warmRun(4, 0, 5, 5)
	four.Extension.Warmup = warmup(5.2, 8.2)
	if r := StartedWarm().Judge(four); r.Outcome != Pass || !strings.Contains(r.Message, "cold beyond 25%") {
		t.Errorf("a warm engine at 4 requests: %+v", r)
	}
	// An artifact of an earlier version: its warm-up's median against the run's p50.
	a.Extension.Warmup = &artifact.Warmup{Requests: 32, LastRequests: 8, LastTPOTP50Ms: artifact.F(15)}
	if r := StartedWarm().Judge(a); r.Outcome != InvalidRun || !strings.Contains(r.Message, "a point comparison") {
		t.Errorf("a cold warm-up, its median alone: %+v", r)
	}
	a = warmRun(40, 8, 5, 15)
	if r := StartedWarm().Judge(a); r.Outcome != InvalidRun || !strings.Contains(r.Message, "a cold engine: without a warm-up, the run's first 8 requests decoded at 14.") {
		t.Errorf("no warm-up, a cold start: %+v", r)
	}
	if r := StartedWarm().Judge(warmRun(40, 8, 5, 5.5)); r.Outcome != Pass || r.Skipped != "" {
		t.Errorf("no warm-up, a warm start: %+v", r)
	}
	if r := StartedWarm().Judge(warmRun(10, 0, 5, 5)); r.Skipped == "" {
		t.Errorf("ten requests cannot tell a start from the rest: %+v", r)
	}
}

// The check's rates, by simulation: each request's TPOT is the engine's times a lognormal
// factor of the requests' spread; the warm-up's last n against m measured. A warm engine
// (the same speed, or 15% slower at its start, within the 25% bound) is called cold at most
// 1% of the time at every size; one 3 times slower at its start (the reference engine's
// cold requests) is found from 4 against 4. The point comparison it replaced called a warm
// engine at 4 against 4 cold in a tenth of runs at a 30% spread. ANVIL_SIM_REPS sets the
// repetitions (docs/gating.md's table: 20,000).
func TestTheColdCheckIsSizedToItsSamples(t *testing.T) {
	t.Parallel()
	reps := 2000
	if v, err := strconv.Atoi(os.Getenv("ANVIL_SIM_REPS")); err == nil && v > 0 {
		reps = v
	}
	rng := rand.New(rand.NewPCG(49, 3))
	draw := func(k int, tpot, cv float64) []float64 {
		out := make([]float64, k)
		sigma := math.Sqrt(math.Log1p(cv * cv))
		for i := range out {
			out[i] = tpot * math.Exp(sigma*rng.NormFloat64()-sigma*sigma/2)
		}
		return out
	}
	rate := func(n, m int, slow, cv float64) (test, point float64) {
		cold, pointCold := 0, 0
		for range reps {
			last, measured := draw(n, 5*slow, cv), draw(m, 5, cv)
			if coldTest(last, measured).cold() {
				cold++
			}
			if median(last) > median(measured)*(1+coldMargin) {
				pointCold++
			}
		}
		return float64(cold) / float64(reps), float64(pointCold) / float64(reps)
	}
	for _, c := range []struct {
		n, m     int
		slow, cv float64
		atMost   float64 // for a warm engine
		atLeast  float64 // for a cold one
	}{
		{2, 4, 1, 0.3, 0.01, 0}, {4, 4, 1, 0.3, 0.01, 0}, {4, 4, 1.15, 0.3, 0.01, 0}, {8, 80, 1, 0.3, 0.01, 0},
		{8, 80, 1.15, 0.1, 0.01, 0}, {8, 80, 1.25, 0.1, 0.02, 0},
		{4, 4, 3, 0.15, 0, 0.99}, {8, 80, 3, 0.3, 0, 0.99}, {8, 80, 1.6, 0.1, 0, 0.95},
	} {
		test, point := rate(c.n, c.m, c.slow, c.cv)
		msg := fmt.Sprintf("%d last against %d measured, %.2fx at the start, spread %.0f%%: called cold %.2f%% (the point comparison %.2f%%)",
			c.n, c.m, c.slow, 100*c.cv, 100*test, 100*point)
		t.Log(msg)
		if c.atLeast == 0 && test > c.atMost || c.atLeast > 0 && test < c.atLeast {
			t.Error(msg)
		}
	}
}
