package stats

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPercentileCIRanksByHand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		n      int
		q      float64
		lo, hi int
	}{
		// Binomial(6, ½): P(B ≤ 0) = 1/64 ≤ 2.5% < P(B ≤ 1) = 7/64, so min and max.
		{"median of 6", 6, 50, 1, 6},
		// Binomial(10, ½): P(B ≤ 1) = 11/1024 ≤ 2.5% < P(B ≤ 2) = 56/1024.
		{"median of 10", 10, 50, 2, 9},
		// Binomial(6, .99): P(B ≤ 4) = 0.0015, P(B ≤ 5) = 0.0585; P(B ≥ 6) = .99⁶ = 0.94.
		{"p99 of 6", 6, 99, 5, 0},
		// The upper end of a p95 needs .95ⁿ ≤ 2.5%: .95⁷¹ = 0.0262, .95⁷² = 0.0249 (the lower
		// ranks were checked against an exact rational computation).
		{"p95 of 71", 71, 95, 63, 0},
		{"p95 of 72", 72, 95, 64, 72},
		// And of a p99 .99ⁿ ≤ 2.5%: .99³⁶⁷ = 0.02501, .99³⁶⁸ = 0.02476.
		{"p99 of 367", 367, 99, 359, 0},
		{"p99 of 368", 368, 99, 360, 368},
		// The maximum (q = 100) has no upper end at any n.
		{"p100 of 1000", 1000, 100, 1000, 0},
	}
	for _, tt := range tests {
		lo, hi := PercentileCIRanks(tt.n, tt.q, 0.95)
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("%s: ranks (%d, %d), want (%d, %d)", tt.name, lo, hi, tt.lo, tt.hi)
		}
	}
}

func TestPercentileCI(t *testing.T) {
	t.Parallel()
	sorted := []float64{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	if lo, hi, ok := percentileCI(sorted, 50, 0.95); !ok || lo != 11 || hi != 18 {
		t.Errorf("median CI of 10..19 = %v..%v ok %v, want 11..18", lo, hi, ok)
	}
	if _, _, ok := percentileCI(sorted[:6], 99, 0.95); ok {
		t.Error("p99 of 6 samples must have no 95% interval")
	}
	for _, bad := range []struct {
		n        int
		q, level float64
	}{{0, 50, 0.95}, {6, 0, 0.95}, {6, 101, 0.95}, {6, 50, 1}, {6, 50, 0}, {6, 50, -0.5}} {
		if lo, hi := PercentileCIRanks(bad.n, bad.q, bad.level); lo != 0 || hi != 0 {
			t.Errorf("PercentileCIRanks(%d, %v, %v) = (%d, %d), want (0, 0)", bad.n, bad.q, bad.level, lo, hi)
		}
	}
	if _, _, ok := percentileCI(nil, 50, 0.95); ok {
		t.Error("an empty sample has no interval")
	}
}

// TestPercentileCICoverage checks the promise: the interval covers the true quantile at
// least at the stated level.
func TestPercentileCICoverage(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	const trials, n, q = 4000, 40, 90
	covered := 0
	sample := make([]float64, n)
	for range trials {
		for i := range sample {
			sample[i] = rng.Float64() // uniform: the true p90 is 0.9
		}
		slices.Sort(sample)
		if lo, hi, ok := percentileCI(sample, q, 0.95); ok && lo <= 0.9 && 0.9 <= hi {
			covered++
		}
	}
	if rate := float64(covered) / trials; rate < 0.94 {
		t.Errorf("coverage %.3f, want ≥ 0.95 (less sampling error)", rate)
	}
}

// MLPerf LoadGen's early stopping counts the queries a p99 claim needs at 99% confidence
// with the same binomial construction: 459 with no query beyond it, 662 with one. At a
// two-sided level of 98% (99% one-sided) the upper end of the interval must first exist,
// as the largest sample, at 459, and be the second largest at 662.
func TestThePercentileIntervalCountsAsLoadGenDoes(t *testing.T) {
	first := func(rank func(n int) int) int {
		for n := 1; n < 2000; n++ {
			if r := rank(n); r > 0 {
				return n
			}
		}
		return 0
	}
	anyUpper := first(func(n int) int { _, hi := PercentileCIRanks(n, 99, 0.98); return hi })
	secondLargest := first(func(n int) int {
		if _, hi := PercentileCIRanks(n, 99, 0.98); hi > 0 && hi <= n-1 {
			return hi
		}
		return 0
	})
	if anyUpper != 459 || secondLargest != 662 {
		t.Errorf("a p99's upper end at 99%% one-sided first exists at %d samples, and below the maximum at %d; LoadGen counts 459 and 662", anyUpper, secondLargest)
	}
}
