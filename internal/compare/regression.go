package compare

import (
	"fmt"
	"math"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
)

// The fixed parameters of the regression rule.
const (
	// alpha is the one-sided significance level of the Mann–Whitney test.
	alpha = 0.01
	// minRows is the fewest request_timings values either side must have.
	minRows = 5
	// defaultResamples is the bootstrap size when Options.Resamples is 0.
	defaultResamples = 2000
)

// Options adjust Regression.
type Options struct {
	// AllowMismatch judges the metric even when Comparable reports differences (they are
	// still listed in the verdict).
	AllowMismatch bool
	// Resamples is the bootstrap size; 0 means defaultResamples.
	Resamples int
	// Seed seeds the bootstrap, so a verdict is reproducible.
	Seed int64
}

// Outcome is what a verdict concluded.
type Outcome string

// Outcomes. Only Pass (the metric held) is a pass: Inconclusive means the samples could
// not resolve a change of the gate's size; Insufficient, NotComparable and Invalid mean
// there was nothing to judge.
const (
	Pass          Outcome = "ok"
	Regressed     Outcome = "regression"
	Inconclusive  Outcome = "inconclusive"
	Insufficient  Outcome = "insufficient samples"
	NotComparable Outcome = "not comparable"
	Invalid       Outcome = "error"
)

// Verdict is the judgement of one metric of a current artifact against a baseline.
type Verdict struct {
	Metric  string
	By      float64 // the gate: the smallest relative change that must be caught
	Outcome Outcome
	// HigherIsWorse is true for latencies, false for rates and throughput.
	HigherIsWorse bool
	// Baseline and Current are the metric's figures (see Regression); Ratio is
	// Current/Baseline and RatioLow..RatioHigh its bootstrap 95% confidence interval.
	Baseline, Current          float64
	Ratio, RatioLow, RatioHigh float64
	// Worse is the relative change in the bad direction: Ratio−1 for latencies, 1−Ratio for
	// rates; negative for an improvement.
	Worse float64
	// P is the one-sided Mann–Whitney p-value that the current run is worse.
	P float64
	// BaselineSamples and CurrentSamples are the request_timings values compared.
	BaselineSamples, CurrentSamples int
	// Significant is P < alpha with the interval excluding 1 on the worse side; Improved
	// is the mirror image (significant the other way and better by more than By/2).
	Significant, Improved bool
	// Detectable is the smallest relative change these samples could have detected (see
	// Regression); RequestsNeeded the requests each run would need to detect a change of
	// By. Both are 0 when the rows were not compared.
	Detectable     float64
	RequestsNeeded int
	// Rule is the rule applied, in one sentence.
	Rule string
	// Differences are the workload differences (set, and blocking, for NotComparable).
	Differences []Difference
	// Err says why there was nothing to judge (Outcome Invalid).
	Err error
}

// Regression judges whether metric got worse from baseline to current by a gate of by (0.05
// is 5%), from the request_timings rows of both artifacts.
//
// The figures: for a percentile key (tpot_p50_ms) the nearest-rank percentile of the rows,
// for a _mean key their mean, both equal to the artifact's own figure; for throughput_tok_s
// the artifacts' scalars. The test samples are the rows' values of the metric's family (for
// throughput each request's output_tokens / e2e seconds). Latencies are worse when higher,
// decode_tok_s, effective_prefill_tok_s and throughput when lower.
//
// The rule: by is the smallest relative change that must be caught. The verdict is Regressed
// when the change is worse than by/2 (Worse > by/2) and it is significant: the one-sided
// Mann–Whitney test of the rows gives p < alpha (0.01) and the seeded bootstrap 95%
// confidence interval of the ratio (of the percentile, or of the mean for means and
// throughput) excludes 1 on the worse side. Noise alone rarely passes both tests, a real
// change of by is usually more than by/2 in the estimate, and a significant change smaller
// than by/2 is deliberately not a regression.
//
// A verdict that is not a regression is Pass (the metric held) only when the samples could
// have seen a change of the gate's size: Detectable, the smallest relative change they
// resolve, is at most by. Detectable is the change that the one-sided test at alpha would
// call significant with 80% power, from the spread of the bootstrap ratios (their log's
// standard error, taken from the width of the 95% interval): exp((z(1−alpha) + z(0.8))·se) − 1,
// mirrored for rates. Otherwise the verdict is Inconclusive, and RequestsNeeded is how many
// requests each run would need for Detectable to reach by, the spread per request
// unchanged, with half as many again for the uncertainty of that spread.
//
// Not a pass: NotComparable when Comparable reports differences (unless AllowMismatch),
// Insufficient when either side has fewer than minRows values, Invalid for a bad metric, gate
// or artifact (Err says which).
func Regression(baseline, current *artifact.Benchmark, metric string, by float64, opts Options) Verdict {
	v := Verdict{Metric: metric, By: by}
	fail := func(err error) Verdict { v.Outcome, v.Err = Invalid, err; return v }
	if baseline == nil || current == nil {
		return fail(fmt.Errorf("%s: a baseline and a current artifact are both needed", metric))
	}
	s, err := seriesOf(metric)
	if err != nil {
		return fail(err)
	}
	v.HigherIsWorse = s.higherIsWorse
	if !(by > 0) || math.IsInf(by, 1) {
		return fail(fmt.Errorf("gate %v: want a relative change above 0, e.g. 0.05 for 5%%", by))
	}
	v.Rule = rule(s, by)
	if v.Differences = Comparable(baseline, current); len(v.Differences) > 0 && !opts.AllowMismatch {
		v.Outcome = NotComparable
		return v
	}
	base, err := s.samples(baseline)
	if err != nil {
		return fail(err)
	}
	cur, err := s.samples(current)
	if err != nil {
		return fail(err)
	}
	v.BaselineSamples, v.CurrentSamples = len(base), len(cur)
	if len(base) < minRows || len(cur) < minRows {
		v.Outcome = Insufficient
		return v
	}
	if v.Baseline, err = s.figure(baseline, base, "baseline"); err != nil {
		return fail(err)
	}
	if v.Current, err = s.figure(current, cur, "current"); err != nil {
		return fail(err)
	}
	if !(v.Baseline > 0) || !(v.Current > 0) || !positive(base) || !positive(cur) {
		return fail(fmt.Errorf("%s: a ratio needs positive figures and rows (baseline %v, current %v)", s.name, v.Baseline, v.Current))
	}
	resamples := opts.Resamples
	if resamples <= 0 {
		resamples = defaultResamples
	}
	v.Ratio = v.Current / v.Baseline
	v.RatioLow, v.RatioHigh = s.interval(base, cur, resamples, opts.Seed)
	// The test asks whether current is stochastically worse: greater for latencies, smaller
	// for rates. The opposite direction only labels improvements.
	_, pUp := stats.MannWhitneyU(base, cur)
	_, pDown := stats.MannWhitneyU(cur, base)
	worseSide, betterSide := pUp, pDown
	if !s.higherIsWorse {
		worseSide, betterSide = pDown, pUp
	}
	v.P = worseSide
	if s.higherIsWorse {
		v.Worse = v.Ratio - 1
		v.Significant = v.P < alpha && v.RatioLow > 1
		v.Improved = betterSide < alpha && v.RatioHigh < 1 && -v.Worse > by/2
	} else {
		v.Worse = 1 - v.Ratio
		v.Significant = v.P < alpha && v.RatioHigh < 1
		v.Improved = betterSide < alpha && v.RatioLow > 1 && -v.Worse > by/2
	}
	se := logSE(v.RatioLow, v.RatioHigh)
	v.Detectable = detectable(se, s.higherIsWorse)
	v.RequestsNeeded = requestsNeeded(se, len(base), len(cur), by, s.higherIsWorse)
	switch {
	case v.Significant && v.Worse > by/2:
		v.Outcome = Regressed
	case v.Detectable > by:
		v.Outcome = Inconclusive
	default:
		v.Outcome = Pass
	}
	return v
}

// zPower is the standard normal quantile of the 80% power the detectable change is
// defined at; zAlpha that of 1−alpha, the one-sided test's level; z95 that of the 97.5%
// end of a two-sided 95% interval.
const (
	zPower = 0.8416212335729143
	zAlpha = 2.3263478740408408
	z95    = 1.959963984540054
)

// logSE is the standard error of the log ratio implied by a 95% interval lo..hi of the
// ratio; 0 for a degenerate or missing interval.
func logSE(lo, hi float64) float64 {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 1) {
		return 0
	}
	return (math.Log(hi) - math.Log(lo)) / (2 * z95)
}

// detectable is the smallest relative change a comparison with log-ratio standard error se
// detects at alpha with 80% power: higher for latencies, lower for rates.
func detectable(se float64, higherIsWorse bool) float64 {
	if higherIsWorse {
		return math.Expm1((zAlpha + zPower) * se)
	}
	return -math.Expm1(-(zAlpha + zPower) * se)
}

// requestsNeeded is the requests each of two runs needs for a change of by to be
// detectable, given a comparison of nBase and nCur requests with log-ratio standard error
// se: the variance per request, se²/(1/nBase + 1/nCur), is taken as fixed, and half as
// many again are asked for, since that variance is itself estimated (from a few requests,
// roughly: at the bare count the detectable change lands on either side of the gate).
func requestsNeeded(se float64, nBase, nCur int, by float64, higherIsWorse bool) int {
	if se == 0 || nBase == 0 || nCur == 0 {
		return max(nBase, nCur)
	}
	perRequest := se * se / (1/float64(nBase) + 1/float64(nCur))
	gate := math.Log1p(by)
	if !higherIsWorse {
		gate = -math.Log1p(-min(by, 0.999))
	}
	k := (zAlpha + zPower) / gate
	return max(minRows, int(math.Ceil(1.5*2*perRequest*k*k)))
}

// rule states the rule applied to s at gate by.
func rule(s series, by float64) string {
	worse := "higher"
	side := "lower bound above 1"
	if !s.higherIsWorse {
		worse, side = "lower", "upper bound below 1"
	}
	return fmt.Sprintf("%s regresses when it is more than %s (half the %s gate) %s than the baseline's and the change is significant: one-sided Mann-Whitney p < %g over the request_timings rows and a bootstrap 95%% CI of the ratio with its %s",
		s.name, percent(by/2), percent(by), worse, alpha, side)
}

// positive reports whether every value is finite and above 0, as a ratio needs.
func positive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) || math.IsInf(x, 1) {
			return false
		}
	}
	return true
}

// percent prints a fraction as a percentage with one decimal: 0.05 is "5.0%".
func percent(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }
