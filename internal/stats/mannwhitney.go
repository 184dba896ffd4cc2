package stats

import (
	"cmp"
	"math"
	"slices"
)

// exactPairLimit bounds len(a)·len(b) for the exact null distribution of MannWhitneyU; the
// dynamic program costs about (len(a)·len(b))²/4 steps, a few million at the limit.
const exactPairLimit = 2500

// MannWhitneyU tests whether b is stochastically greater than a (for latencies: b is slower).
//
// u is the Mann–Whitney statistic of b: the number of pairs (a[i], b[j]) with b[j] > a[i],
// counting a tie as ½; it ranges over 0..len(a)·len(b) with len(a)·len(b)/2 expected when
// both samples come from one distribution. pGreater is the one-sided p-value P(U ≥ u) under
// that null hypothesis:
//
//   - exact, from the permutation distribution of U, when no value occurs twice in a and b
//     together and len(a)·len(b) ≤ 2500;
//   - otherwise the normal approximation: mean len(a)·len(b)/2, variance
//     len(a)·len(b)/12 · ((N+1) − Σ(t³−t)/(N(N−1))) with N = len(a)+len(b) and t the size
//     of each group of tied values, and a continuity correction of ½. When every value is
//     the same the variance is 0 and pGreater is 1 (no evidence either way).
//
// Both are NaN when a or b is empty or holds a NaN. The inputs are not modified.
func MannWhitneyU(a, b []float64) (u, pGreater float64) {
	na, nb := len(a), len(b)
	if na == 0 || nb == 0 || slices.ContainsFunc(a, math.IsNaN) || slices.ContainsFunc(b, math.IsNaN) {
		return math.NaN(), math.NaN()
	}
	type obs struct {
		v   float64
		inB bool
	}
	all := make([]obs, 0, na+nb)
	for _, v := range a {
		all = append(all, obs{v, false})
	}
	for _, v := range b {
		all = append(all, obs{v, true})
	}
	slices.SortFunc(all, func(x, y obs) int { return cmp.Compare(x.v, y.v) })

	// Midranks: a group of t equal values at ranks r+1..r+t each gets r + (t+1)/2.
	var rankSumB, tieTerm float64
	ties := false
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		t := float64(j - i)
		mid := float64(i) + (t+1)/2
		for _, o := range all[i:j] {
			if o.inB {
				rankSumB += mid
			}
		}
		if j-i > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		i = j
	}
	u = rankSumB - float64(nb)*float64(nb+1)/2

	if !ties && na*nb <= exactPairLimit {
		return u, exactUpperTail(na, nb, int(math.Round(u)))
	}
	n := float64(na + nb)
	variance := float64(na) * float64(nb) / 12 * ((n + 1) - tieTerm/(n*(n-1)))
	if variance <= 0 {
		return u, 1
	}
	z := (u - float64(na)*float64(nb)/2 - 0.5) / math.Sqrt(variance)
	return u, 0.5 * math.Erfc(z/math.Sqrt2)
}

// exactUpperTail returns P(U ≥ u) for the Mann–Whitney count U of m values of a and n of b
// in a uniformly random order without ties. It uses the recurrence on the largest value,
// which is b's with probability n/(m+n) (and then exceeds all m values of a):
//
//	P[m,n](k) = n/(m+n)·P[m,n−1](k−m) + m/(m+n)·P[m−1,n](k)
//
// in probabilities rather than counts, so nothing overflows.
func exactUpperTail(m, n, u int) float64 {
	prev := make([][]float64, n+1) // P[i−1, j] over k; with no a values U is 0
	for j := range prev {
		prev[j] = []float64{1}
	}
	for i := 1; i <= m; i++ {
		cur := make([][]float64, n+1)
		cur[0] = []float64{1}
		for j := 1; j <= n; j++ {
			d := make([]float64, i*j+1)
			wb, wa := float64(j)/float64(i+j), float64(i)/float64(i+j)
			for k, p := range cur[j-1] {
				d[k+i] += wb * p
			}
			for k, p := range prev[j] {
				d[k] += wa * p
			}
			cur[j] = d
		}
		prev = cur
	}
	dist := prev[n]
	if u <= 0 {
		return 1
	}
	tail := 0.0
	for k := len(dist) - 1; k >= u; k-- { // small terms first
		tail += dist[k]
	}
	return min(tail, 1)
}
