package stats

import (
	"math"
	"testing"
)

func TestMannWhitneyUExactByHand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b []float64
		u, p float64
	}{
		// All 9 pairs favour b; only 1 of the C(6,3) = 20 orders is that extreme.
		{"b above a", []float64{1, 2, 3}, []float64{4, 5, 6}, 9, 1.0 / 20},
		{"b below a", []float64{4, 5, 6}, []float64{1, 2, 3}, 0, 1},
		// b's one value takes each of 3 positions with probability 1/3.
		{"b on top of 2", []float64{1, 2}, []float64{3}, 2, 1.0 / 3},
		{"b in the middle", []float64{1, 3}, []float64{2}, 1, 2.0 / 3},
	}
	for _, tt := range tests {
		u, p := MannWhitneyU(tt.a, tt.b)
		if u != tt.u || math.Abs(p-tt.p) > 1e-12 {
			t.Errorf("%s: u %v p %v, want u %v p %v", tt.name, u, p, tt.u, tt.p)
		}
	}
}

func TestMannWhitneyUTiesUseTheNormalApproximation(t *testing.T) {
	t.Parallel()
	// Identical samples: u = 4.5 = 9/2; variance 9/12·(7 − 3·6/30) = 4.8;
	// z = −0.5/√4.8 = −0.2282, p = Φ(0.2282) = 0.59026.
	u, p := MannWhitneyU([]float64{1, 2, 3}, []float64{1, 2, 3})
	if u != 4.5 || math.Abs(p-0.5902615116112394) > 1e-12 {
		t.Errorf("identical: u %v p %v, want 4.5 0.59026", u, p)
	}
	// a = {1,2,2,3,5}, b = {2,3,4,4,6,7}: u = 23.5 (3 ties counted ½), variance
	// 30/12·(12 − 36/110) = 29.1818, z = (23.5 − 15 − .5)/√29.18, p = 0.069313.
	u, p = MannWhitneyU([]float64{1, 2, 2, 3, 5}, []float64{2, 3, 4, 4, 6, 7})
	if u != 23.5 || math.Abs(p-0.06931293993946386) > 1e-12 {
		t.Errorf("ties: u %v p %v, want 23.5 0.069313", u, p)
	}
	if u, p := MannWhitneyU([]float64{2, 2}, []float64{2, 2, 2}); u != 3 || p != 1 {
		t.Errorf("all equal: u %v p %v, want 3 and 1", u, p)
	}
}

func TestMannWhitneyUBadInput(t *testing.T) {
	t.Parallel()
	for _, in := range [][2][]float64{{nil, {1}}, {{1}, nil}, {{1, math.NaN()}, {2}}} {
		if u, p := MannWhitneyU(in[0], in[1]); !math.IsNaN(u) || !math.IsNaN(p) {
			t.Errorf("MannWhitneyU(%v, %v) = %v %v, want NaN NaN", in[0], in[1], u, p)
		}
	}
}

// TestExactAndNormalAgree checks the exact tail against the normal approximation where both
// are accurate (no ties, 20 and 30 values), at several statistics.
func TestExactAndNormalAgree(t *testing.T) {
	t.Parallel()
	const m, n = 20, 30
	sd := math.Sqrt(m * n * (m + n + 1) / 12.0)
	for _, u := range []int{300, 350, 380, 420} {
		exact := exactUpperTail(m, n, u)
		normal := 0.5 * math.Erfc((float64(u)-m*n/2.0-0.5)/sd/math.Sqrt2)
		if math.Abs(exact-normal) > 0.005 {
			t.Errorf("u=%d: exact %.5f normal %.5f", u, exact, normal)
		}
	}
	// The exact distribution sums to 1.
	if p := exactUpperTail(m, n, 0); p != 1 {
		t.Errorf("P(U ≥ 0) = %v", p)
	}
}
