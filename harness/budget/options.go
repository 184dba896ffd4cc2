package budget

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/units"
)

// Bound says which figure of a metric a budget is judged on.
type Bound string

// Bounds. The CI95 bounds are the ends of a two-sided 95% confidence interval: for a _mean
// key the artifact's own mean ± 1.96·s/√n (its _mean_ci95_low/_high keys), for a percentile
// key the distribution-free order-statistic interval of stats.PercentileCIRanks over the
// artifact's request_timings rows.
//
// Judging "<=" on Upper95 passes only when the figure is below the limit with 97.5%
// confidence (strict); judging "<=" on Lower95 fails only when it is above the limit with
// that confidence (lenient: noise alone does not fail it). The same holds mirrored for ">=".
const (
	Point   Bound = "point"   // the figure itself (the default)
	Upper95 Bound = "upper95" // the upper end of its 95% confidence interval
	Lower95 Bound = "lower95" // the lower end of its 95% confidence interval
)

// optionSep starts each option in the grammar.
const optionSep = "@"

// parseOptions reads options ("upper95", "min=50") into b.
func (b *Budget) parseOptions(terms []string) error {
	for _, t := range terms {
		t = strings.TrimSpace(t)
		switch {
		case t == string(Point), t == string(Upper95), t == string(Lower95):
			if b.Bound != "" {
				return fmt.Errorf("option %q: a second bound after %q", t, b.Bound)
			}
			b.Bound = Bound(t)
		case strings.HasPrefix(t, "min="):
			if b.MinSamples != 0 {
				return fmt.Errorf("option %q: a second minimum after min=%d", t, b.MinSamples)
			}
			n, err := strconv.Atoi(strings.TrimPrefix(t, "min="))
			if err != nil || n < 1 {
				return fmt.Errorf("option %q: want min=N with N a whole number of at least 1", t)
			}
			b.MinSamples = n
		default:
			return fmt.Errorf("unknown option %q (want point, upper95, lower95 or min=N)", t)
		}
	}
	if b.Bound == Point {
		b.Bound = ""
	}
	return b.checkBound()
}

// checkBound reports a bound the budget's key has no interval for, or an unknown bound.
func (b Budget) checkBound() error {
	switch b.Bound {
	case "", Point:
		return nil
	case Upper95, Lower95:
		if !boundable(b.Metric) {
			return fmt.Errorf("option %q needs a _mean or percentile key, not %q", b.Bound, b.Metric)
		}
		return nil
	}
	return fmt.Errorf("unknown bound %q (want point, upper95 or lower95)", b.Bound)
}

// boundable reports whether key has a confidence interval: a distribution mean or
// percentile (p25..p99).
func boundable(key string) bool {
	f, _ := artifact.LookupFigure(key)
	return f.Stat == "mean" || units.PercentileOf(f.Stat) > 0
}
