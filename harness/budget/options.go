package budget

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
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

// Options are how a budget is judged. They are written after the number in the grammar
// ("tpot_p95_ms<=8@upper95@min=50") and carried in Budget.Metric after the key, so Budget
// stays a comparable three-field value that existing callers build and pass unchanged.
type Options struct {
	// Bound is the figure judged; "" means Point.
	Bound Bound
	// MinSamples is the sample count below which the budget is an insufficient-samples
	// error; 0 means DefaultMinSamples of the key.
	MinSamples int
}

// optionSep starts each option, in the grammar and in Budget.Metric.
const optionSep = "@"

// Key returns the metrics key of b without its options: "tpot_p95_ms" for a Metric of
// "tpot_p95_ms@upper95".
func (b Budget) Key() string {
	key, _, _ := strings.Cut(b.Metric, optionSep)
	return key
}

// Options returns b's judging options, or an error quoting a malformed one.
func (b Budget) Options() (Options, error) {
	key, rest, found := strings.Cut(b.Metric, optionSep)
	if !found {
		return Options{}, nil
	}
	return parseOptions(key, strings.Split(rest, optionSep))
}

// WithOptions returns b with its options replaced by o, in the canonical form Parse
// produces: "@upper95" or "@lower95" for a bound other than Point, then "@min=N" when set.
// Validity is checked when the budget is judged.
func (b Budget) WithOptions(o Options) Budget {
	var sb strings.Builder
	sb.WriteString(b.Key())
	if o.Bound != "" && o.Bound != Point {
		sb.WriteString(optionSep + string(o.Bound))
	}
	if o.MinSamples != 0 {
		sb.WriteString(optionSep + "min=" + strconv.Itoa(o.MinSamples))
	}
	b.Metric = sb.String()
	return b
}

// optionSuffix is the options as written after the number: "" or "@upper95@min=50".
func (b Budget) optionSuffix() string {
	_, rest, found := strings.Cut(b.Metric, optionSep)
	if !found {
		return ""
	}
	return optionSep + rest
}

// parseOptions reads options ("upper95", "min=50") for the metrics key they qualify.
func parseOptions(key string, terms []string) (Options, error) {
	var o Options
	for _, t := range terms {
		t = strings.TrimSpace(t)
		switch {
		case t == string(Point), t == string(Upper95), t == string(Lower95):
			if o.Bound != "" {
				return Options{}, fmt.Errorf("option %q: a second bound after %q", t, o.Bound)
			}
			o.Bound = Bound(t)
		case strings.HasPrefix(t, "min="):
			if o.MinSamples != 0 {
				return Options{}, fmt.Errorf("option %q: a second minimum after min=%d", t, o.MinSamples)
			}
			n, err := strconv.Atoi(strings.TrimPrefix(t, "min="))
			if err != nil || n < 1 {
				return Options{}, fmt.Errorf("option %q: want min=N with N a whole number of at least 1", t)
			}
			o.MinSamples = n
		default:
			return Options{}, fmt.Errorf("unknown option %q (want point, upper95, lower95 or min=N)", t)
		}
	}
	if o.Bound == Point {
		o.Bound = ""
	}
	if o.Bound != "" && !boundable(key) {
		return Options{}, fmt.Errorf("option %q needs a _mean or percentile key, not %q", o.Bound, key)
	}
	return o, nil
}

// boundable reports whether key has a confidence interval: a distribution mean or
// percentile (p25..p99).
func boundable(key string) bool {
	_, stat, ok := artifact.ParseMetricKey(key)
	return ok && (stat == "mean" || PercentileOf(stat) > 0)
}

// PercentileOf returns q for a percentile statistic name ("p95" is 95), 0 otherwise.
func PercentileOf(stat string) float64 {
	if len(stat) < 2 || stat[0] != 'p' {
		return 0
	}
	q, err := strconv.Atoi(stat[1:])
	if err != nil || q <= 0 || q > 100 {
		return 0
	}
	return float64(q)
}
