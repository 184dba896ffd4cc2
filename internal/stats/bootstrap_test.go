package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestBootstrapMedianRatioByHand(t *testing.T) {
	t.Parallel()
	// Constant samples: every resample has the same medians.
	if lo, hi, pt := bootstrapMedianRatio([]float64{2, 2, 2}, []float64{3, 3, 3, 3}, 500, 1); lo != 1.5 || hi != 1.5 || pt != 1.5 {
		t.Errorf("constant: %v %v %v, want 1.5 three times", lo, hi, pt)
	}
	// Nearest-rank medians: the 2nd of {1,2,3,4} is 2, the 3rd of {5,6,7,8,9} is 7.
	lo, hi, pt := bootstrapMedianRatio([]float64{4, 1, 3, 2}, []float64{9, 5, 7, 6, 8}, 2000, 1)
	if pt != 3.5 {
		t.Errorf("point %v, want 7/2", pt)
	}
	// Every resampled ratio lies between 5/4 and 9/1.
	if !(1.25 <= lo && lo <= pt && pt <= hi && hi <= 9) {
		t.Errorf("interval %v..%v around %v", lo, hi, pt)
	}
	if lo, hi, pt := BootstrapMeanRatio([]float64{1, 1}, []float64{2, 2, 2}, 100, 3); lo != 2 || hi != 2 || pt != 2 {
		t.Errorf("mean of constants: %v %v %v", lo, hi, pt)
	}
}

func TestBootstrapIsSeeded(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := make([]float64, 30), make([]float64, 30)
	for i := range a {
		a[i], b[i] = 5+rng.NormFloat64()*0.2, 5.5+rng.NormFloat64()*0.2
	}
	lo1, hi1, _ := bootstrapMedianRatio(a, b, 1000, 42)
	lo2, hi2, _ := bootstrapMedianRatio(a, b, 1000, 42)
	if lo1 != lo2 || hi1 != hi2 {
		t.Errorf("same seed, different intervals: %v..%v vs %v..%v", lo1, hi1, lo2, hi2)
	}
	// A 10% shift with 4% noise: the interval is near 1.1 and excludes 1.
	if !(lo1 > 1.02 && hi1 < 1.15) {
		t.Errorf("interval %v..%v, want around 1.10", lo1, hi1)
	}
}

func TestBootstrapBadInput(t *testing.T) {
	t.Parallel()
	for _, in := range [][2][]float64{{nil, {1}}, {{1}, {}}, {{0, 1}, {1}}, {{1}, {-1}}, {{1}, {math.Inf(1)}}, {{math.NaN()}, {1}}} {
		lo, hi, pt := bootstrapMedianRatio(in[0], in[1], 10, 1)
		if !math.IsNaN(lo) || !math.IsNaN(hi) || !math.IsNaN(pt) {
			t.Errorf("BootstrapMedianRatio(%v, %v) = %v %v %v, want NaN", in[0], in[1], lo, hi, pt)
		}
	}
	if lo, hi, pt := bootstrapMedianRatio([]float64{1}, []float64{2}, 0, 1); !math.IsNaN(lo) || !math.IsNaN(hi) || pt != 2 {
		t.Errorf("no resamples: %v %v %v, want NaN NaN 2", lo, hi, pt)
	}
	if lo, _, _ := BootstrapQuantileRatio([]float64{1}, []float64{2}, 0, 10, 1); !math.IsNaN(lo) {
		t.Error("q = 0 must give NaN")
	}
}

func TestNearestRank(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int
		q    float64
		want int
	}{{2000, 2.5, 50}, {2000, 97.5, 1950}, {32, 50, 16}, {5, 50, 3}, {1, 1, 1}, {10, 0.01, 1}} {
		if got := nearestRank(c.n, c.q); got != c.want {
			t.Errorf("nearestRank(%d, %v) = %d, want %d", c.n, c.q, got, c.want)
		}
	}
}
