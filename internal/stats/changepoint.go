package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// ChangePoints finds where the level of a series changes, by E-divisive means (Matteson
// and James, "A Nonparametric Approach for Multiple Change Point Analysis of Multivariate
// Data", JASA 2014; the method of MongoDB's and Apache Otava's performance change
// detection, Daly et al., ICPE 2020): the split of a segment that maximizes the energy
// distance between its two sides, weighted by their sizes, is a change point when a
// permutation test (permutations shuffles of the segment, seeded) finds it significant at
// alpha; the segments on each side are searched again (binary segmentation). No segment is
// shorter than minSegment. It returns the indices at which a new level starts, ascending.
func ChangePoints(values []float64, minSegment int, alpha float64, permutations int, seed int64) []int {
	minSegment = max(minSegment, 1)
	rng := rand.New(rand.NewPCG(uint64(seed), pcgStream))
	var found []int
	var search func(lo, hi int)
	search = func(lo, hi int) {
		seg := values[lo:hi]
		at, q := bestSplit(seg, minSegment)
		if at < 0 || permutationP(seg, q, minSegment, permutations, rng) >= alpha {
			return
		}
		found = append(found, lo+at)
		search(lo, lo+at)
		search(lo+at, hi)
	}
	search(0, len(values))
	slices.Sort(found)
	return found
}

// bestSplit is the split of seg (the first index of its right side) that maximizes the
// weighted energy distance between its sides, and that distance; -1 when seg cannot be
// split into two sides of at least minSegment.
func bestSplit(seg []float64, minSegment int) (at int, q float64) {
	n := len(seg)
	at = -1
	for tau := minSegment; tau <= n-minSegment; tau++ {
		if d := energyQ(seg[:tau], seg[tau:]); at < 0 || d > q {
			at, q = tau, d
		}
	}
	return at, q
}

// energyQ is the weighted sample energy distance of x and y (exponent 1):
// |x||y|/(|x|+|y|) · (2·mean|x−y| − mean|x−x'| − mean|y−y'|).
func energyQ(x, y []float64) float64 {
	between := 0.0
	for _, a := range x {
		for _, b := range y {
			between += math.Abs(a - b)
		}
	}
	between /= float64(len(x) * len(y))
	nx, ny := float64(len(x)), float64(len(y))
	return nx * ny / (nx + ny) * (2*between - within(x) - within(y))
}

// within is the mean absolute difference of distinct pairs of xs; 0 for fewer than two.
func within(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	s := 0.0
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			s += math.Abs(xs[i] - xs[j])
		}
	}
	return s / float64(len(xs)*(len(xs)-1)/2)
}

// permutationP is the permutation p-value of a best split of weighted distance q: the share
// of shuffles of seg whose best split is at least as far apart, counting the observed one.
func permutationP(seg []float64, q float64, minSegment, permutations int, rng *rand.Rand) float64 {
	shuffled := slices.Clone(seg)
	atLeast := 1
	for range permutations {
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if _, d := bestSplit(shuffled, minSegment); d >= q {
			atLeast++
		}
	}
	return float64(atLeast) / float64(permutations+1)
}
