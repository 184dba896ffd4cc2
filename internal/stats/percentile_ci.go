package stats

import "math"

// percentileCI returns a distribution-free confidence interval, at confidence level (e.g.
// 0.95), for the population quantile that the nearest-rank q-th percentile of sorted
// (ascending) estimates. The interval is [X(lo), X(hi)] for the 1-based order-statistic
// ranks that PercentileCIRanks(len(sorted), q, level) returns.
//
// ok is false when either end does not exist at this sample size (the p99 of 6 samples has
// no upper end at 95%: even the largest sample stays below the population p99 with a
// probability over 2.5%), for an empty sample, and for q outside (0, 100] or level outside
// (0, 1). The order of sorted is not checked.
func percentileCI(sorted []float64, q, level float64) (lo, hi float64, ok bool) {
	l, h := PercentileCIRanks(len(sorted), q, level)
	if l == 0 || h == 0 {
		return 0, 0, false
	}
	return sorted[l-1], sorted[h-1], true
}

// PercentileCIRanks returns the 1-based ranks lo ≤ hi of the order statistics bounding an
// equal-tailed confidence interval, at confidence level, for the population quantile ξ of
// p = q/100 from n samples; 0 for an end that does not exist at this n.
//
// It is the classical binomial construction, which assumes nothing of the distribution but
// independent samples: the number B of samples below ξ is Binomial(n, p), the k-th smallest
// sample X(k) is at most ξ exactly when B ≥ k, so with α = 1 − level
//
//   - lo is the largest rank with P(B ≤ lo−1) ≤ α/2, i.e. P(X(lo) > ξ) ≤ α/2;
//   - hi is the smallest rank with P(B ≥ hi) ≤ α/2, i.e. P(X(hi) < ξ) ≤ α/2;
//
// and [X(lo), X(hi)] covers ξ with probability at least level (exactly for a continuous
// distribution; ties only widen the closed interval). The upper end exists once
// pⁿ ≤ α/2 and the lower end once (1−p)ⁿ ≤ α/2: at 95%, a p99 upper end needs 368 samples,
// a p95 one 72, a median 6 for either end.
func PercentileCIRanks(n int, q, level float64) (lo, hi int) {
	if n <= 0 || !(q > 0 && q <= 100) || !(level > 0 && level < 1) {
		return 0, 0
	}
	pmf := binomialPMF(n, q/100)
	tail := (1 - level) / 2
	// Lower end: accumulate P(B ≤ k) from the left while it stays within the tail.
	below := 0.0
	for k := 0; k < n; k++ {
		below += pmf[k]
		if below > tail {
			break
		}
		lo = k + 1 // P(B ≤ lo−1) = P(B ≤ k) ≤ α/2
	}
	// Upper end: accumulate P(B ≥ k) from the right, summing small terms first.
	above := 0.0
	for k := n; k >= 1; k-- {
		above += pmf[k]
		if above > tail {
			break
		}
		hi = k // P(B ≥ hi) ≤ α/2
	}
	return lo, hi
}

// binomialPMF returns P(B = k) for k = 0..n with B ~ Binomial(n, p), computed in log space
// so that large n neither overflows nor underflows the binomial coefficients.
func binomialPMF(n int, p float64) []float64 {
	pmf := make([]float64, n+1)
	switch {
	case p <= 0:
		pmf[0] = 1
		return pmf
	case p >= 1:
		pmf[n] = 1
		return pmf
	}
	lp, lq := math.Log(p), math.Log1p(-p)
	lnFact := func(k int) float64 { v, _ := math.Lgamma(float64(k) + 1); return v }
	ln := lnFact(n)
	for k := 0; k <= n; k++ {
		pmf[k] = math.Exp(ln - lnFact(k) - lnFact(n-k) + float64(k)*lp + float64(n-k)*lq)
	}
	return pmf
}
