package compare

import (
	"cmp"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
)

// The fixed parameters of the regression rule.
const (
	// alpha is the one-sided level of a gate's regression tests over all its metrics: each
	// of m gated metrics is tested at alpha/m (Bonferroni), so an unchanged engine fails a
	// gate at most 1% of the time whatever it gates on.
	alpha = 0.01
	// power is the power at which Detectable is the smallest change resolved.
	power = 0.8
	// minRows is the fewest request_timings values either side must have.
	minRows = 5
	// defaultResamples is the bootstrap size when Options.Resamples is 0.
	defaultResamples = 2000
)

// Defaults of the variance a comparison counts where nothing measured it (Options).
const (
	// DefaultRunCV is the run-to-run coefficient of variation of a figure between sessions
	// of one build (restarts, placement, server age, clocks), counted when no history
	// measured it (gate_run_cv): 5%, above the 2-3% the field reports for median decode
	// speed and ITL of one build (vLLM PR #7062: p90 TTFT 3.4%, p95 4.7%; a GB10 decode CV
	// of 2.4%) so that an unchanged engine is not failed on them, and below its tails (p99
	// TTFT 17%), which a history should gate.
	DefaultRunCV = 0.05
	// DefaultRestartCV is the part of it two engines started together and measured side by
	// side do not share, counted in an interleaved comparison (gate_restart_cv): 0.5%, from
	// fresh restarts that agree within 1% (vLLM #42484) and interleaved groups within 0.5%
	// (Rapid-MLX PR #1526).
	DefaultRestartCV = 0.005
)

// Options adjust Regression.
type Options struct {
	// AllowMismatch judges the metric even when artifact.Differences reports differences (they are
	// still listed in the verdict).
	AllowMismatch bool
	// Resamples is the bootstrap size of a comparison of one block with one block; 0 means
	// the default (2000).
	Resamples int
	// Seed seeds the bootstrap and the change-point permutations, so a verdict is
	// reproducible.
	Seed int64
	// Metrics is how many metrics the gate judges: each is tested at 1%/Metrics; 0 is 1.
	Metrics int
	// RunCV is the run-to-run coefficient of variation counted between two sessions when
	// no history measured it; 0 is DefaultRunCV. RestartCV is the part an interleaved
	// comparison counts; 0 is DefaultRestartCV.
	RunCV, RestartCV float64
	// RunSource and RestartSource say what measured RunCV and RestartCV ("measured between
	// two starts of GOOD's build"), for the verdict to say; "" for a value set or defaulted.
	RunSource, RestartSource string
	// RestartDF is the degrees of freedom RestartCV was estimated on, for AcrossStarts: 0
	// takes it as known; else it counts as estimated (Satterthwaite), so a spread measured
	// on few pairs of starts widens the test rather than narrowing it.
	RestartDF float64
	// History are earlier runs of the scenario (main's), in any order: when set, the run is
	// judged against them (DesignHistory) and baseline may be nil.
	History []*artifact.Benchmark
}

// Design is how a comparison accounts for what varies between its two sides: between
// requests and blocks, which the runs measure, and between sessions (restarts, placement,
// server age, clocks), which a history measures, an interleaved run cancels where the
// engines share it, and otherwise counts at a default.
type Design string

// Designs.
const (
	// DesignStored compares a run with one stored run: the blocks (or, for one block on
	// each side, the requests, by bootstrap) measure the spread within a session; the spread
	// between the two sessions counts at Options.RunCV.
	DesignStored Design = artifact.DesignStored
	// DesignHistory compares a run with a history of runs: their spread is measured, within
	// each level the change points of the history leave (a shift of main's own level is not
	// a spread), and the run is judged against the latest level by a prediction interval.
	DesignHistory Design = artifact.DesignHistory
	// DesignInterleaved compares the blocks of an interleaved run (RunInterleaved): a linear
	// model of the blocks' figures in time with a term for the engine, so the time's drift is
	// fitted out; what the two engines do not share counts at Options.RestartCV.
	DesignInterleaved Design = artifact.DesignInterleaved
)

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
	// Design is how the comparison accounted for what varies between its sides.
	Design Design
	// HigherIsWorse is true for latencies, false for rates and throughput.
	HigherIsWorse bool
	// Baseline and Current are the metric's figures (see Regression); Ratio is the change
	// the test estimates, as current over baseline, and RatioLow..RatioHigh its 95%
	// interval.
	Baseline, Current          float64
	Ratio, RatioLow, RatioHigh float64
	// Worse is the relative change in the bad direction: Ratio−1 for latencies, 1−Ratio for
	// rates; negative for an improvement.
	Worse float64
	// P is the one-sided p-value that the current run is worse, Alpha the level it is held
	// to (1% over the gate's metrics), DF the test's degrees of freedom (+Inf when a
	// default spread or a bootstrap sets it).
	P, Alpha, DF float64
	// BaselineSamples and CurrentSamples are the request_timings values compared; Units
	// says what the test's units were: "1 vs 1 blocks", "6 interleaved pairs", "a history
	// of 8 runs".
	BaselineSamples, CurrentSamples int
	Units                           string
	// Counted says which spread the test counted at a default instead of measuring it.
	Counted string
	// Significant is P < Alpha; Improved is the mirror image (significant the other way
	// and better by more than By/2).
	Significant, Improved bool
	// Detectable is the smallest relative change this comparison could have detected (at
	// Alpha with 80% power); the needs say what would resolve a change of By when it
	// cannot: the interleaved pairs, and the runs of a history (0 when no number of them
	// can, their own spread being too wide), each in place of this comparison.
	Detectable                       float64
	PairsNeeded, HistoryRunsNeeded   int
	BaselineChangedAt, HistoryLength int
	// BaselineChange is the history's last level shift (its run BaselineChangedAt, 1-based
	// in time order), as a relative change; 0 when it has none.
	BaselineChange float64
	// Rule is the rule applied, in one sentence.
	Rule string
	// Differences are the workload differences (set, and blocking, for NotComparable).
	Differences []artifact.Difference
	// Err says why there was nothing to judge (Outcome Invalid).
	Err error
	// Attribution splits a regressed latency's change across the engine's phases, where
	// both runs carry the engine's own account of their requests; nil otherwise.
	Attribution *Attribution
	// startsFloor is what an interleaved comparison resolves at best whatever its pairs:
	// the floor the spread between starts it counts sets (StartsResolve).
	startsFloor float64
}

// Regression judges whether metric got worse from baseline to current by a gate of by (0.05
// is 5%).
//
// The figures: for a percentile key (tpot_p50_ms) the nearest-rank percentile of the rows,
// for a _mean key their mean, both equal to the artifact's own figure; for throughput_tok_s
// the artifacts' scalars. Latencies are worse when higher, decode_tok_s,
// effective_prefill_tok_s and throughput when lower.
//
// The rule: by is the smallest relative change that must be caught. The change is judged on
// the log of the figure, by the design the artifacts allow (see Design): interleaved when
// the two are the engines of one interleaved run, a history when Options.History holds
// earlier runs, else one stored run. The verdict is Regressed when the estimated change is
// worse than by/2 and significant: one-sided p below 1% over the gate's metrics
// (Options.Metrics). A verdict that is not a regression is Pass (the metric held) only when
// the comparison could have seen a change of the gate's size, Detectable (the change its
// test finds with 80% power) at most by; otherwise it is Inconclusive, with the interleaved
// pairs or the history that would resolve it.
//
// Not a pass: NotComparable when artifact.Differences reports differences (unless AllowMismatch),
// Insufficient when a side has too little to judge, Invalid for a bad metric, gate or
// artifact (Err says which).
func Regression(baseline, current *artifact.Benchmark, metric string, by float64, opts Options) Verdict {
	v := Verdict{Metric: metric, By: by, Alpha: alpha / float64(max(opts.Metrics, 1))}
	fail := func(err error) Verdict { v.Outcome, v.Err = Invalid, err; return v }
	s, err := seriesOf(metric)
	if err != nil {
		return fail(err)
	}
	v.HigherIsWorse = s.fig.HigherIsWorse
	if !(by > 0) || math.IsInf(by, 1) {
		return fail(fmt.Errorf("gate %v: want a relative change above 0, e.g. 0.05 for 5%%", by))
	}
	if current == nil || (baseline == nil && len(opts.History) == 0) {
		return fail(fmt.Errorf("%s: a baseline and a current artifact are both needed", metric))
	}
	var c comparison
	switch {
	case interleavedPair(baseline, current):
		c, err = v.interleaved(s, baseline, current, opts)
	case len(opts.History) > 0:
		c, err = v.history(s, current, opts)
	default:
		c, err = v.stored(s, baseline, current, opts)
	}
	if err != nil {
		return fail(err)
	}
	if v.Outcome != "" {
		return v
	}
	v.decide(c)
	// An adapter's figure is not split: the engine's accounts are the whole run's.
	if v.Outcome == Regressed && baseline != nil && s.fig.Group == "" {
		cv := cmp.Or(opts.RunCV, DefaultRunCV)
		if v.Design == DesignInterleaved {
			cv = cmp.Or(opts.RestartCV, DefaultRestartCV)
		}
		v.Attribution = attribute(s.fig.Family, baseline, current, v.Alpha, cv)
	}
	return v
}

// comparison is what a design measured: the change of the log figure, current less
// baseline, its variance and degrees of freedom, and what would resolve a gate it cannot.
type comparison struct {
	d, variance, df float64
	// estimated is the part of variance the runs estimated, on estimatedDF degrees of
	// freedom; the rest is a default taken as known. Zero when all of it was estimated.
	estimated, estimatedDF float64
	// needs gives, for a detectable change to reach, the interleaved pairs and history runs
	// that would resolve it.
	needs func(target float64) (pairs, runs int)
}

// decide applies the rule to what the design measured.
func (v *Verdict) decide(c comparison) {
	se := math.Sqrt(c.variance)
	worse := c.d
	if !v.HigherIsWorse {
		worse = -c.d
	}
	v.DF = c.df
	v.Ratio = math.Exp(c.d)
	dist := c.distribution()
	half := dist.Quantile(0.975) * se
	v.RatioLow, v.RatioHigh = math.Exp(c.d-half), math.Exp(c.d+half)
	v.Worse = math.Expm1(worse)
	if !v.HigherIsWorse {
		v.Worse = -math.Expm1(-worse)
	}
	v.P = 1
	switch {
	case se > 0:
		v.P = dist.Upper(worse / se)
	case worse > 0:
		v.P = 0 // no spread at all: any change worse is certain (identical blocks of a count)
	}
	v.Significant = v.P < v.Alpha
	v.Improved = se > 0 && dist.Upper(-worse/se) < v.Alpha && -v.Worse > v.By/2
	reach := (dist.Quantile(1-v.Alpha) + dist.Quantile(power)) * se
	v.Detectable = changeOf(reach, v.HigherIsWorse)
	switch {
	case v.Significant && v.Worse > v.By/2:
		v.Outcome = Regressed
	case v.Detectable > v.By:
		v.Outcome = Inconclusive
		if c.needs != nil {
			v.PairsNeeded, v.HistoryRunsNeeded = c.needs(logGate(v.By, v.HigherIsWorse))
		}
	default:
		v.Outcome = Pass
	}
}

// distribution is the law of the change over the square root of its variance under no
// change: Student's t on the design's degrees of freedom; or, with a part of the variance
// a default taken as known, a mixture of the normal over the estimated part's chi-square
// (stats.Mixture). The known part's share is weighed at the 95% upper bound of the
// estimated part: plugging in the estimate itself, as the Satterthwaite t does, is liberal
// at few degrees of freedom, because an estimate that came out small both inflates the
// statistic and makes the test read more normal (an interleaved gate of two metrics
// failed 1.2% of 10,000 unchanged pairs so, 0.7% this way; after Berger and Boos 1994,
// who take a p-value's supremum over a confidence set of the nuisance parameter).
func (c comparison) distribution() interface {
	Upper(float64) float64
	Quantile(float64) float64
} {
	if c.estimated > 0 && c.estimated < c.variance && !math.IsInf(c.estimatedDF, 1) && c.estimatedDF > 0 {
		nu, known := c.estimatedDF, c.variance-c.estimated
		high := c.estimated * nu / distuv.ChiSquared{K: nu}.Quantile(0.05)
		return &stats.Mixture{DF: nu, Share: high / (high + known)}
	}
	return student(c.df)
}

// student is Student's t on df degrees of freedom (the normal for +Inf).
type student float64

func (df student) Upper(t float64) float64    { return stats.TUpper(t, float64(df)) }
func (df student) Quantile(p float64) float64 { return stats.TQuantile(p, float64(df)) }

// changeOf is the relative change in the bad direction of a log change of x.
func changeOf(x float64, higherIsWorse bool) float64 {
	if higherIsWorse {
		return math.Expm1(x)
	}
	return -math.Expm1(-x)
}

// logGate is the log change a gate of by is, in the bad direction.
func logGate(by float64, higherIsWorse bool) float64 {
	if higherIsWorse {
		return math.Log1p(by)
	}
	return -math.Log1p(-min(by, 0.999))
}

// reaches reports whether a test of variance and df detects a log change of target at
// level a with 80% power.
func reaches(target, variance, df, a float64) bool {
	return (stats.TQuantile(1-a, df)+stats.TQuantile(power, df))*math.Sqrt(variance) <= target
}

// welch is the Satterthwaite degrees of freedom of a sum of variances each with its own
// degrees of freedom (+Inf for one taken as known).
func welch(parts ...[2]float64) float64 {
	sum, denom := 0.0, 0.0
	for _, p := range parts {
		sum += p[0]
		if !math.IsInf(p[1], 1) && p[1] > 0 {
			denom += p[0] * p[0] / p[1]
		}
	}
	if denom == 0 {
		return math.Inf(1)
	}
	return sum * sum / denom
}

// runVariance is the variance of the log figure between two sessions a spread of cv gives.
func runVariance(cv float64) float64 {
	l := math.Log1p(cv)
	return l * l
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
