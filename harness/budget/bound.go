package budget

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
	"github.com/anvilbench/anvilbench/internal/units"
)

// ciLevel is the confidence level of the Upper95 and Lower95 bounds.
const ciLevel = 0.95

// label names a bound in messages: "upper CI95 bound".
func (b Bound) label() string {
	if b == Lower95 {
		return "lower CI95 bound"
	}
	return "upper CI95 bound"
}

// boundOf returns the CI95 end of key's figure in a; samples is the count the metrics block
// gives for it. A mean's interval is the artifact's own; a percentile's is recomputed from
// the request_timings rows, which must hold exactly those samples.
func boundOf(key string, bound Bound, a *artifact.Benchmark, samples int) (float64, error) {
	f, _ := artifact.LookupFigure(key)
	family, stat, name := f.Family, f.Stat, f.Label()
	if stat == "mean" {
		end := "_mean_ci95_high"
		if bound == Lower95 {
			end = "_mean_ci95_low"
		}
		ciKey := strings.Replace(key, family+"_mean", family+end, 1)
		v, _, ok := a.Metrics.Lookup(ciKey)
		if !ok || v == nil {
			return 0, fmt.Errorf("%s: the artifact has no %s for its %s", name, ciKey, bound.label())
		}
		return *v, nil
	}
	values, ok := f.Values(a, math.MinInt, math.MaxInt)
	if !ok {
		return 0, fmt.Errorf("%s: no value per request to compute its %s from", name, bound.label())
	}
	switch {
	case len(values) == 0:
		return 0, fmt.Errorf("%s: no request_timings rows to compute its %s from (the metrics block counts %d samples)", name, bound.label(), samples)
	case len(values) != samples:
		return 0, fmt.Errorf("%s: request_timings hold %d values but the metrics block counts %d samples", name, len(values), samples)
	}
	slices.Sort(values)
	q := units.PercentileOf(stat)
	lo, hi := stats.PercentileCIRanks(len(values), q, ciLevel)
	rank := hi
	if bound == Lower95 {
		rank = lo
	}
	if rank == 0 {
		article := "an"
		if bound == Lower95 {
			article = "a"
		}
		return 0, fmt.Errorf("%s: %w for %s %s: %d of the %d required", name, ErrInsufficientSamples, article, bound.label(), len(values), ciMinSamples(q, bound))
	}
	return values[rank-1], nil
}

// blockBound is the CI95 end of key's figure over the run's blocks (artifact.Blocks): the
// t-interval of the mean of the block figures, which counts what varies between blocks of
// one session as well as between requests. blocks is 0, and the bound unset, when the run
// has fewer than two blocks with a figure.
func blockBound(key string, bound Bound, a *artifact.Benchmark) (value float64, blocks int, err error) {
	x := a.Extension
	if x == nil || x.Blocks == nil || len(x.Blocks.Blocks) < 2 {
		return 0, 0, nil
	}
	f, _ := artifact.LookupFigure(key)
	per := x.Blocks.RequestsPerBlock
	var figures []float64
	for j := range x.Blocks.Blocks {
		rows, ok := f.Values(a, j*per, (j+1)*per)
		if !ok {
			return 0, 0, fmt.Errorf("%s: no value per request to compute its %s from", f.Label(), bound.label())
		}
		if len(rows) == 0 {
			continue
		}
		figure := stats.FMean(rows)
		if f.Stat != "mean" {
			slices.Sort(rows)
			var err error
			if figure, err = stats.Percentile(rows, units.PercentileOf(f.Stat)); err != nil {
				return 0, 0, fmt.Errorf("%s: block %d: %w", f.Label(), j, err)
			}
		}
		figures = append(figures, figure)
	}
	if len(figures) < 2 {
		return 0, 0, nil
	}
	mean, sd := stats.MeanSD(figures)
	half := stats.TQuantile((1+ciLevel)/2, float64(len(figures)-1)) * sd / math.Sqrt(float64(len(figures)))
	if bound == Lower95 {
		return mean - half, len(figures), nil
	}
	return mean + half, len(figures), nil
}

// ciMinSamples is the smallest n at which the bound of a q-th percentile exists: the upper
// end needs pⁿ ≤ α/2 and the lower (1−p)ⁿ ≤ α/2, p = q/100 (see stats.PercentileCIRanks).
// The closed form is refined against PercentileCIRanks itself, so the two never disagree.
func ciMinSamples(q float64, bound Bound) int {
	p := q / 100
	if bound == Lower95 {
		p = 1 - p
	}
	if p >= 1 {
		return math.MaxInt // never; no key has q = 100
	}
	n := max(1, int(math.Ceil(math.Log((1-ciLevel)/2)/math.Log(p)))-2)
	for ; ; n++ {
		lo, hi := stats.PercentileCIRanks(n, q, ciLevel)
		if (bound == Lower95 && lo > 0) || (bound != Lower95 && hi > 0) {
			return n
		}
	}
}
