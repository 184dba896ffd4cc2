package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
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

// readTerms reads a list of named groups, "name:weight[:more],...": each term's name and the
// parts after it (at most parts of them) to take, the weight checked above 0 where one is
// given; names distinct. what names a group in errors ("adapter"), form the term it wants.
func readTerms(text []byte, what, form string, parts int, take func(name string, rest []string) error) error {
	var names []string
	for term := range strings.SplitSeq(string(text), ",") {
		term = strings.TrimSpace(term)
		fields := strings.Split(term, ":")
		name := strings.TrimSpace(fields[0])
		if name == "" || strings.ContainsAny(name, " \t[]") || len(fields)-1 > parts {
			return fmt.Errorf("%s %q: want %s", what, term, form)
		}
		if slices.Contains(names, name) {
			return fmt.Errorf("%s %q is named twice", what, name)
		}
		names = append(names, name)
		if err := take(name, fields[1:]); err != nil {
			return fmt.Errorf("%s %q: %w", what, term, err)
		}
	}
	return nil
}

// readWeight reads a group's weight: a number above 0.
func readWeight(text string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("the weight must be a number above 0")
	}
	return f, nil
}
