package stats

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A 10% step in a series of ten runs with a 3% spread is found where it is, at the rate
// ten runs allow (about three in four: four runs after a step carry little), and a series
// without one rarely yields one (at the test's 5%).
func TestChangePointsFindAStep(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	series := func(step float64) []float64 {
		out := make([]float64, 10)
		for i := range out {
			out[i] = 1 + 0.03*rng.NormFloat64()
			if i >= 6 {
				out[i] += step
			}
		}
		return out
	}
	found, falseAlarms := 0, 0
	const trials = 200
	for k := range trials {
		if cp := ChangePoints(series(0.10), 2, 0.05, 199, int64(k)); slices.Equal(cp, []int{6}) {
			found++
		}
		if cp := ChangePoints(series(0), 2, 0.05, 199, int64(k)); len(cp) > 0 {
			falseAlarms++
		}
	}
	if found < trials*7/10 {
		t.Errorf("a 10%% step at run 7 found at run 7 in %d of %d series", found, trials)
	}
	if falseAlarms > trials*8/100 {
		t.Errorf("a change point in %d of %d series without one", falseAlarms, trials)
	}
	t.Logf("step found %d/%d, false change points %d/%d", found, trials, falseAlarms, trials)
}
