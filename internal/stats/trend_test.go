package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A series with a trend is found so, with its slope inside its interval; a step is placed
// where it is; independent noise is called trending or shifted at about the rate the level
// says.
func TestTrendAndLevelShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 200
	ts, rising, step := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		ts[i] = float64(i) / 20 // 10 s
		noise := 1 + 0.1*rng.NormFloat64()
		rising[i] = noise * (1 + 0.04*ts[i])
		step[i] = noise
		if i >= 120 {
			step[i] *= 1.3
		}
	}
	if tr := TrendOf(ts, rising, 0.95); tr.Z <= 0 || tr.P > 1e-6 || tr.Low > 0.04 || tr.High < 0.04 || math.Abs(tr.Slope-0.04) > 0.01 {
		t.Errorf("a 4%%/s rise: %+v", tr)
	}
	if tr := TrendOf(ts, step, 0.95); tr.ShiftAt < 115 || tr.ShiftAt > 125 || tr.ShiftP > 1e-6 {
		t.Errorf("a 30%% step after 120: %+v", tr)
	}
	flat := make([]float64, n)
	for _, phi := range []float64{0} {
		mk, pt := 0, 0
		for range 1000 {
			ar := 0.0
			for i := range flat {
				ar = phi*ar + math.Sqrt(1-phi*phi)*rng.NormFloat64()
				flat[i] = ar
			}
			tr := TrendOf(ts, flat, 0.95)
			if tr.P < 0.01 {
				mk++
			}
			if tr.ShiftP < 0.01 {
				pt++
			}
		}
		t.Logf("noise, φ %.1f, p<1%% of 1000: Mann-Kendall %d, Pettitt %d", phi, mk, pt)
		if mk > 20 || pt > 20 {
			t.Errorf("noise, φ %.1f: Mann-Kendall p<1%% in %d of 1000, Pettitt in %d; want about 10", phi, mk, pt)
		}
	}
}
