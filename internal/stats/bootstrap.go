package stats

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
)

// bootstrapMedianRatio estimates median(b)/median(a) with a seeded percentile-bootstrap 95%
// confidence interval. The median is the nearest-rank one, the ⌈n/2⌉-th smallest value (the
// artifact's p50); see BootstrapQuantileRatio for the procedure.
func bootstrapMedianRatio(a, b []float64, resamples int, seed int64) (lo, hi, point float64) {
	return BootstrapQuantileRatio(a, b, 50, resamples, seed)
}

// BootstrapQuantileRatio estimates Q(b)/Q(a), Q the nearest-rank q-th percentile (as
// Percentile), with a percentile-bootstrap 95% confidence interval:
//
//   - point is Q(b)/Q(a) on the samples themselves;
//   - each of resamples rounds draws len(a) values from a and len(b) values from b,
//     uniformly with replacement and independently, and takes Q(b*)/Q(a*);
//   - lo and hi are the nearest-rank 2.5th and 97.5th percentiles of those ratios.
//
// The draws come from a PCG generator seeded with seed alone, so a result is reproducible.
// a and b must hold positive finite values (latencies, rates): otherwise, and for an empty
// sample or q outside (0, 100], all three are NaN. With resamples < 1 only point is computed
// and lo, hi are NaN.
func BootstrapQuantileRatio(a, b []float64, q float64, resamples int, seed int64) (lo, hi, point float64) {
	if !(q > 0 && q <= 100) || !positive(a) || !positive(b) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	sa, sb := slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	ka, kb := nearestRank(len(sa), q), nearestRank(len(sb), q)
	point = sb[kb-1] / sa[ka-1]
	rng := rand.New(rand.NewPCG(uint64(seed), pcgStream))
	ca, cb := make([]int, len(sa)), make([]int, len(sb))
	return ratioInterval(resamples, func() float64 {
		return resampledOrderStat(rng, sb, cb, kb) / resampledOrderStat(rng, sa, ca, ka)
	}, point)
}

// BootstrapMeanRatio is BootstrapQuantileRatio for mean(b)/mean(a): point uses FMean, each
// resample a plain float64 sum.
func BootstrapMeanRatio(a, b []float64, resamples int, seed int64) (lo, hi, point float64) {
	if !positive(a) || !positive(b) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	point = FMean(b) / FMean(a)
	rng := rand.New(rand.NewPCG(uint64(seed), pcgStream))
	mean := func(xs []float64) float64 {
		s := 0.0
		for range xs {
			s += xs[rng.IntN(len(xs))]
		}
		return s / float64(len(xs))
	}
	return ratioInterval(resamples, func() float64 { return mean(b) / mean(a) }, point)
}

// pcgStream is the fixed second PCG word; the caller's seed is the first.
const pcgStream = 0x9e3779b97f4a7c15

// ratioInterval draws resamples ratios and returns their nearest-rank 2.5th and 97.5th
// percentiles with point.
func ratioInterval(resamples int, draw func() float64, point float64) (lo, hi, pt float64) {
	if resamples < 1 {
		return math.NaN(), math.NaN(), point
	}
	ratios := make([]float64, resamples)
	for i := range ratios {
		ratios[i] = draw()
	}
	slices.Sort(ratios)
	return ratios[nearestRank(resamples, 2.5)-1], ratios[nearestRank(resamples, 97.5)-1], point
}

// resampledOrderStat returns the k-th smallest of len(sorted) draws with replacement from
// sorted, in O(n) without sorting the draws: it counts how often each index was drawn and
// walks the counts. counts is scratch space of len(sorted).
func resampledOrderStat(rng *rand.Rand, sorted []float64, counts []int, k int) float64 {
	clear(counts)
	for range sorted {
		counts[rng.IntN(len(sorted))]++
	}
	seen := 0
	for i, c := range counts {
		seen += c
		if seen >= k {
			return sorted[i]
		}
	}
	return sorted[len(sorted)-1] // unreachable: the counts sum to len(sorted) ≥ k
}

// nearestRank is the 1-based nearest rank max(1, ⌈q/100·n⌉) for q in (0, 100], in exact
// rational arithmetic: q is a dyadic rational, so rounding n·q/100 in float64 could move it
// across an integer (97.5 of 2000 is rank 1950, never 1951).
func nearestRank(n int, q float64) int {
	r := new(big.Rat).SetFloat64(q)
	r.Mul(r, big.NewRat(int64(n), 100))
	rank := new(big.Int).Quo(r.Num(), r.Denom())
	if !r.IsInt() {
		rank.Add(rank, big.NewInt(1))
	}
	return max(1, int(rank.Int64()))
}

// positive reports whether xs is non-empty and every value is finite and > 0.
func positive(xs []float64) bool {
	if len(xs) == 0 {
		return false
	}
	for _, x := range xs {
		if !(x > 0) || math.IsInf(x, 1) {
			return false
		}
	}
	return true
}
