package stats

import (
	"fmt"
	"math"
	"slices"
)

// Summary is the thirteen-number description of one distribution family. See the package
// documentation for the exact definition of every field.
type Summary struct {
	// N is the number of values.
	N int
	// Mean is fsum(values)/N (Python statistics.fmean).
	Mean float64
	// StdDev is the sample standard deviation (n−1 denominator), exact and rounded once;
	// 0 when N == 1.
	StdDev float64
	// MeanCI95Low and MeanCI95High are Mean ∓ 1.96·StdDev/√N (normal approximation).
	MeanCI95Low, MeanCI95High float64
	// Min is the smallest value.
	Min float64
	// P25 … P99 are nearest-rank percentiles: the ⌈Q/100·N⌉-th smallest value.
	P25, P50, P75, P90, P95, P99 float64
	// Max is the largest value.
	Max float64
}

// z95 is the two-sided 95% quantile of the standard normal distribution used for the
// confidence interval of the mean.
const z95 = 1.96

// Summarize computes the Summary of values. It returns false when values is empty. The
// input is not modified.
//
// Non-finite values propagate: the mean follows IEEE arithmetic (NaN for +Inf and −Inf
// together) and the standard deviation and interval are NaN.
func Summarize(values []float64) (Summary, bool) {
	n := len(values)
	if n == 0 {
		return Summary{}, false
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted) // NaNs sort first, like sort.Float64s

	s := Summary{N: n, Min: sorted[0], Max: sorted[n-1]}
	if r, ok := nonFinite(values); ok {
		s.Mean, s.StdDev = r, math.NaN()
		s.MeanCI95Low, s.MeanCI95High = math.NaN(), math.NaN()
	} else {
		sums := sumsOf(values, true)
		s.Mean = roundScaled(&sums.sum, sums.exp) / float64(n)
		s.StdDev = sums.sampleStdDev()
		if n == 1 {
			s.MeanCI95Low, s.MeanCI95High = s.Mean, s.Mean
		} else {
			// The explicit conversions forbid fused multiply-add, keeping the
			// left-to-right float64 evaluation the reference was produced with.
			half := float64(z95*s.StdDev) / math.Sqrt(float64(n))
			s.MeanCI95Low = float64(s.Mean - half)
			s.MeanCI95High = float64(s.Mean + half)
		}
	}
	for _, p := range []struct {
		q   int
		dst *float64
	}{{25, &s.P25}, {50, &s.P50}, {75, &s.P75}, {90, &s.P90}, {95, &s.P95}, {99, &s.P99}} {
		*p.dst = sorted[rankIndex(n, p.q)]
	}
	return s, true
}

// rankIndex is the 0-based nearest-rank index for an integer percentile q in 1..100:
// max(0, ⌈n·q/100⌉ − 1).
func rankIndex(n, q int) int {
	return max(0, (n*q+99)/100-1)
}

// Percentile returns the nearest-rank q-th percentile of sorted (ascending): the
// ⌈q/100·n⌉-th smallest value, or the smallest when that rank is 0. The rank is computed
// exactly, also for fractional q. q must be in (0, 100] and sorted must not be empty; the
// order of sorted is not checked.
func Percentile(sorted []float64, q float64) (float64, error) {
	if !(q > 0 && q <= 100) {
		return 0, fmt.Errorf("stats: percentile %v outside (0, 100]", q)
	}
	n := len(sorted)
	if n == 0 {
		return 0, fmt.Errorf("stats: percentile %v of an empty sample", q)
	}
	if q == math.Trunc(q) {
		return sorted[rankIndex(n, int(q))], nil
	}
	return sorted[nearestRank(n, q)-1], nil
}

// fsum returns the correctly rounded sum of values (Python math.fsum): the exact sum,
// rounded once to the nearest float64. Where fsum raises it does not: an exact sum beyond
// the float64 range gives ±Inf, an intermediate overflow is harmless (the sum is exact), and
// +Inf with −Inf gives NaN. A NaN value gives NaN. The sum of no values is 0.
func fsum(values []float64) float64 {
	if r, ok := nonFinite(values); ok {
		return r
	}
	s := sumsOf(values, false)
	return roundScaled(&s.sum, s.exp)
}

// FMean returns fsum(values) / len(values) (Python statistics.fmean), or NaN for no values.
func FMean(values []float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	return fsum(values) / float64(len(values))
}

// ExactMean returns the exact rational mean of values rounded once to the nearest float64
// (Python statistics.mean), or NaN for no values. It can differ from FMean in the last ulp,
// which rounds twice; the artifact's prefix_cache_hit_avg uses this one.
func ExactMean(values []float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	if r, ok := nonFinite(values); ok {
		return r
	}
	return sumsOf(values, false).mean()
}
