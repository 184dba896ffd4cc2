package workload

import (
	"math/rand/v2"
	"slices"
)

// Spread gives each of n requests a group (its index in shares): each group its share of n
// exactly, rounded by largest remainder, in an order shuffled by seed and stream (a
// feature's own, so two features' spreads are drawn apart).
func Spread(shares []float64, n int, seed int64, stream uint64) []int {
	counts := make([]int, len(shares))
	type rest struct {
		k int
		r float64
	}
	var rests []rest
	given := 0
	for k, s := range shares {
		exact := s * float64(n)
		counts[k] = int(exact)
		given += counts[k]
		rests = append(rests, rest{k, exact - float64(counts[k])})
	}
	slices.SortStableFunc(rests, func(x, y rest) int {
		switch {
		case x.r > y.r:
			return -1
		case x.r < y.r:
			return 1
		}
		return 0
	})
	for i := 0; given < n; i++ {
		counts[rests[i%len(rests)].k]++
		given++
	}
	out := make([]int, 0, n)
	for k, c := range counts {
		for range c {
			out = append(out, k)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(seed), stream))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
