package compare

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
)

// Change points of a history are found at 5%: a false one only narrows the baseline to its
// latest level (a wider, more cautious prediction), while ten runs give little power below
// that (a 10% step among ten runs at a 3% spread is found about four times in five).
const (
	changeAlpha        = 0.05
	changePermutations = 199
	maxNeeded          = 1000
)

// MinHistory is the fewest runs a history needs: a spread from two is no measure.
const MinHistory = 3

// stored compares current with one stored run: their blocks' spread measured, the spread
// between their two sessions counted at RunCV.
func (v *Verdict) stored(s series, baseline, current *artifact.Benchmark, opts Options) (comparison, error) {
	v.Design = DesignStored
	if !v.sameWorkload(baseline, current, opts) {
		return comparison{}, nil
	}
	base, cur, err := v.sides(s, baseline, current)
	if err != nil || v.Outcome != "" {
		return comparison{}, err
	}
	bf, _, cf, _, err := s.bothBlocks(baseline, current)
	if err != nil {
		return comparison{}, err
	}
	var within, dfWithin, perBlock float64
	switch {
	case len(bf) >= 2 || len(cf) >= 2:
		perBlock, dfWithin = pooled([][]float64{bf, cf})
		within = perBlock * (1/float64(len(bf)) + 1/float64(len(cf)))
	case s.fig.Engine:
		// One count a side: nothing measured how much a block's count varies.
		v.Units = "one run against one stored run, " + blocks(len(bf), len(cf))
		v.Ratio = v.Current / v.Baseline
		v.Outcome, v.Err = Inconclusive, fmt.Errorf("%s is the engine's count over a block, and one block a side has no spread to test: run 2 or more blocks a side (ANVIL_REPEATS), interleaved blocks against the baseline build (ANVIL_BASELINE_URL) or against a history of runs (ANVIL_BASELINE=dir/)", s.name)
		return comparison{}, nil
	default:
		resamples := cmp.Or(opts.Resamples, defaultResamples)
		lo, hi := s.interval(base, cur, resamples, opts.Seed)
		within, dfWithin = math.Pow(logSE(lo, hi), 2), math.Inf(1)
		perBlock = within / 2
	}
	runCV, restartCV := cmp.Or(opts.RunCV, DefaultRunCV), cmp.Or(opts.RestartCV, DefaultRestartCV)
	between := 2 * runVariance(runCV)
	v.Units = fmt.Sprintf("one run against one stored run, %s", blocks(len(bf), len(cf)))
	v.Counted = fmt.Sprintf("the spread between their sessions counted at %s, gate_run_cv", percent(runCV)) + source(opts.RunSource, runCV == DefaultRunCV,
		"its default, which a history of main's runs would measure: ANVIL_BASELINE=dir")
	v.Rule = v.rule("a t-test of the log figure over the two runs' blocks (one block each: over their requests, by bootstrap), the spread between two sessions counted at gate_run_cv")
	return comparison{d: mean(cf) - mean(bf), variance: within + between, df: welch([2]float64{within, dfWithin}, [2]float64{between, math.Inf(1)}), estimated: within, estimatedDF: dfWithin,
		needs: func(target float64) (int, int) {
			perBlock := upper(perBlock, dfWithin)
			return pairsFor(target, perBlock, runVariance(restartCV), v.Alpha), runsFor(target, runVariance(runCV)+perBlock, v.Alpha)
		}}, nil
}

// history compares current with a history of runs: the run against a prediction interval of
// the history's latest level, their spread measured within the levels its change points
// leave.
func (v *Verdict) history(s series, current *artifact.Benchmark, opts Options) (comparison, error) {
	v.Design = DesignHistory
	var runs []*artifact.Benchmark
	for _, h := range opts.History {
		if d := artifact.Differences(h, current); len(d) == 0 || opts.AllowMismatch {
			runs = append(runs, h)
		} else if v.Differences == nil {
			v.Differences = d
		}
	}
	levels, _ := s.runFigures(runs)
	v.HistoryLength = len(levels)
	if len(levels) < MinHistory {
		if v.Differences != nil && len(levels) == 0 {
			v.Outcome = NotComparable
			return comparison{}, nil
		}
		v.Outcome, v.Err = Insufficient, fmt.Errorf("a history of %d comparable runs with a figure: a spread needs at least %d", len(levels), MinHistory)
		return comparison{}, nil
	}
	cur, err := s.read(current, "current")
	v.CurrentSamples = cur.n
	if err != nil && cur.n >= minRows {
		return comparison{}, err
	}
	if cur.n < minRows {
		v.Outcome = Insufficient
		return comparison{}, nil
	}
	if v.Current = cur.figure; !(v.Current > 0) || !positive(cur.rows) {
		return comparison{}, fmt.Errorf("%s: a ratio needs positive figures and rows (current %v)", s.name, v.Current)
	}
	c, latest := v.historyLevel(levels, opts)
	c.d = math.Log(v.Current) - latest
	return c, nil
}

// historyLevel is what a history of levels (its runs' log figures, oldest first) measures
// for a prediction of its next run: the mean of its latest level (returned apart), and the
// spread, pooled within the levels its change points leave, which is all the comparison's
// variance: it is known before the run is.
func (v *Verdict) historyLevel(levels []float64, opts Options) (c comparison, latestMean float64) {
	cps := changePoints(levels, opts.Seed)
	segments := split(levels, cps)
	latest := segments[len(segments)-1]
	spread, df := pooled(segments)
	if len(cps) > 0 {
		v.BaselineChangedAt = cps[len(cps)-1] + 1
		v.BaselineChange = math.Exp(mean(latest)-mean(segments[len(segments)-2])) - 1
	}
	v.Baseline = math.Exp(mean(latest))
	v.Units = fmt.Sprintf("one run against a history of %d runs (%d at its latest level)", len(levels), len(latest))
	v.Rule = v.rule("the run against a prediction interval of the history's latest level, the spread measured within the levels its change points (E-divisive means) leave")
	return comparison{variance: spread * (1 + 1/float64(len(latest))), df: df,
		needs: func(target float64) (int, int) {
			return 0, runsFor(target, upper(spread, df), v.Alpha)
		}}, mean(latest)
}

// HistoryReach is what judging a run of the workload of history's latest run against
// history would resolve on metric at a gate of by, said before the run: a prediction
// interval's width is the history's alone. Its Outcome is Pass when the history resolves
// the gate, Inconclusive (with the runs that would) when it cannot, Insufficient when it
// holds fewer than MinHistory runs of that workload with the figure.
func HistoryReach(history []*artifact.Benchmark, metric string, by float64, opts Options) Verdict {
	v := Verdict{Metric: metric, By: by, Alpha: alpha / float64(max(opts.Metrics, 1)), Design: DesignHistory}
	s, err := seriesOf(metric)
	if err != nil || len(history) == 0 {
		v.Outcome, v.Err = Invalid, err
		return v
	}
	v.HigherIsWorse = s.fig.HigherIsWorse
	latest := slices.MaxFunc(history, func(a, b *artifact.Benchmark) int { return cmp.Compare(a.StartedAtUnixNs, b.StartedAtUnixNs) })
	var runs []*artifact.Benchmark
	for _, h := range history {
		if len(artifact.Differences(h, latest)) == 0 {
			runs = append(runs, h)
		}
	}
	levels, _ := s.runFigures(runs)
	if v.HistoryLength = len(levels); len(levels) < MinHistory {
		v.Outcome = Insufficient
		return v
	}
	c, _ := v.historyLevel(levels, opts)
	v.decide(c)
	return v
}

// runFigures are the logs of the metric's figure in each run with one, oldest first, and
// those runs.
func (s series) runFigures(runs []*artifact.Benchmark) (logs []float64, kept []*artifact.Benchmark) {
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b *artifact.Benchmark) int { return cmp.Compare(a.StartedAtUnixNs, b.StartedAtUnixNs) })
	for _, h := range runs {
		sd, err := s.read(h, "history")
		if err != nil || sd.n < minRows || !positive(sd.rows) || !(sd.figure > 0) {
			continue
		}
		logs, kept = append(logs, math.Log(sd.figure)), append(kept, h)
	}
	return logs, kept
}

// changePoints are where a history's level changes (the index of each new level's first
// run), by E-divisive means; a level holds at least two runs.
func changePoints(logs []float64, seed int64) []int {
	return stats.ChangePoints(logs, 2, changeAlpha, changePermutations, seed)
}

// interleaved compares the blocks of an interleaved run: the engine's term of a linear
// model of the blocks' log figures in time, what two engines side by side do not share
// counted at RestartCV.
func (v *Verdict) interleaved(s series, baseline, current *artifact.Benchmark, opts Options) (comparison, error) {
	v.Design = DesignInterleaved
	if !v.sameWorkload(baseline, current, opts) {
		return comparison{}, nil
	}
	if _, _, err := v.sides(s, baseline, current); err != nil || v.Outcome != "" {
		return comparison{}, err
	}
	bf, bt, cf, ct, err := s.bothBlocks(baseline, current)
	if err != nil {
		return comparison{}, err
	}
	pairs := min(len(bf), len(cf))
	if pairs < 2 {
		v.Outcome, v.Err = Insufficient, fmt.Errorf("%d interleaved pairs with a figure: a comparison needs at least 2 (ABBA)", pairs)
		return comparison{}, nil
	}
	theta, thetaVar, df := fitBlocks(bf, bt, cf, ct)
	if df < 1 {
		v.Outcome, v.Err = Insufficient, fmt.Errorf("%d blocks: a drift and an engine term need at least 4", len(bf)+len(cf))
		return comparison{}, nil
	}
	restartCV := cmp.Or(opts.RestartCV, DefaultRestartCV)
	restart := 2 * runVariance(restartCV)
	v.startsFloor = StartsResolve(restartCV, opts.Metrics)
	v.Units = fmt.Sprintf("%d interleaved pairs against the baseline build", pairs)
	v.Counted = fmt.Sprintf("what two engines side by side do not share counted at %s, gate_restart_cv", percent(restartCV)) + source(opts.RestartSource, restartCV == DefaultRestartCV,
		"its default, which an interleaved run of main's build against a second start of it would measure: docs/gating.md, the spread between starts")
	v.Rule = v.rule("the engine's term of a linear model of the blocks' log figures in time (ABBA order: a linear drift cancels), what two engines side by side do not share counted at gate_restart_cv")
	perBlock := thetaVar * float64(pairs) / 2
	return comparison{d: theta, variance: thetaVar + restart, df: welch([2]float64{thetaVar, df}, [2]float64{restart, math.Inf(1)}), estimated: thetaVar, estimatedDF: df,
		needs: func(target float64) (int, int) {
			return pairsFor(target, upper(perBlock, df), runVariance(restartCV), v.Alpha), 0
		}}, nil
}

// source is where a spread counted came from: ", " and what measured it, or the default's
// note when it is the default; "" for a value set by hand.
func source(measured string, isDefault bool, defaultNote string) string {
	switch {
	case measured != "":
		return ", " + measured
	case isDefault:
		return ", " + defaultNote
	}
	return ""
}

// AcrossStarts judges metric over interleaved runs of the same two builds, each run on
// starts of its own (runs[j] is its baseline's and its current's artifact): their engine
// terms are pooled, the mean θ, whose variance is what the blocks estimate over k² plus what
// two starts differ by (RestartCV, estimated on RestartDF degrees of freedom when set) over
// k. More starts shrink the part more pairs cannot. One run without RestartDF is
// Regression's interleaved design.
func AcrossStarts(runs [][2]*artifact.Benchmark, metric string, by float64, opts Options) Verdict {
	if len(runs) == 1 && opts.RestartDF == 0 {
		return Regression(runs[0][0], runs[0][1], metric, by, opts)
	}
	v := Verdict{Metric: metric, By: by, Alpha: alpha / float64(max(opts.Metrics, 1)), Design: DesignInterleaved}
	s, err := seriesOf(metric)
	if err != nil || len(runs) == 0 {
		v.Outcome, v.Err = Invalid, cmp.Or(err, errors.New("no run to judge"))
		return v
	}
	v.HigherIsWorse = s.fig.HigherIsWorse
	var thetas, logBase, logCur []float64
	sumVar, sumDF, pairs := 0.0, 0.0, 0
	for _, r := range runs {
		if !interleavedPair(r[0], r[1]) {
			v.Outcome, v.Err = Invalid, fmt.Errorf("%s: a run is not the two sides of one interleaved run", metric)
			return v
		}
		if !v.sameWorkload(r[0], r[1], opts) {
			return v
		}
		if _, _, err := v.sides(s, r[0], r[1]); err != nil || v.Outcome != "" {
			if err != nil {
				v.Outcome, v.Err = Invalid, err
			}
			return v
		}
		logBase, logCur = append(logBase, math.Log(v.Baseline)), append(logCur, math.Log(v.Current))
		bf, bt, cf, ct, err := s.bothBlocks(r[0], r[1])
		if err != nil {
			v.Outcome, v.Err = Invalid, err
			return v
		}
		theta, tv, df := fitBlocks(bf, bt, cf, ct)
		if df < 1 {
			v.Outcome, v.Err = Insufficient, fmt.Errorf("%d blocks: a drift and an engine term need at least 4", len(bf)+len(cf))
			return v
		}
		thetas, sumVar, sumDF, pairs = append(thetas, theta), sumVar+tv, sumDF+df, pairs+min(len(bf), len(cf))
	}
	k := float64(len(runs))
	v.Baseline, v.Current = math.Exp(mean(logBase)), math.Exp(mean(logCur))
	restartCV := cmp.Or(opts.RestartCV, DefaultRestartCV)
	restart := 2 * runVariance(restartCV) / k
	estimated := sumVar / (k * k)
	v.startsFloor = math.Expm1((stats.TQuantile(1-v.Alpha, math.Inf(1)) + stats.TQuantile(power, math.Inf(1))) * math.Sqrt(restart))
	v.Units = fmt.Sprintf("%d interleaved runs on starts of their own (%d pairs in all) against the baseline build", len(runs), pairs)
	v.Counted = fmt.Sprintf("what two starts do not share counted at %s a start, gate_restart_cv", percent(restartCV)) + source(opts.RestartSource, restartCV == DefaultRestartCV,
		"its default, which an interleaved run of main's build against a second start of it would measure: docs/gating.md, the spread between starts")
	v.Rule = v.rule("the mean of the engine terms of interleaved runs each on starts of its own (ABBA order within each), what two starts do not share counted at gate_restart_cv over their number")
	c := comparison{d: mean(thetas), variance: estimated + restart, df: welch([2]float64{estimated, sumDF}, [2]float64{restart, math.Inf(1)}),
		estimated: estimated, estimatedDF: sumDF}
	if opts.RestartDF > 0 {
		// The spread between starts was estimated too: all of the variance is, on the
		// Satterthwaite degrees of freedom of its two parts.
		c.df = welch([2]float64{estimated, sumDF}, [2]float64{restart, opts.RestartDF})
		c.estimated, c.estimatedDF = c.variance, c.df
	}
	v.decide(c)
	return v
}

// StartsResolve is the smallest change one start of a build against one start of another
// resolves whatever the pairs (at the gate's level over metrics metrics, 80% power), when
// two starts differ by restartCV each: the floor what two starts do not share sets.
func StartsResolve(restartCV float64, metrics int) float64 {
	a := alpha / float64(max(metrics, 1))
	return math.Expm1((stats.TQuantile(1-a, math.Inf(1)) + stats.TQuantile(power, math.Inf(1))) * math.Sqrt(2*runVariance(restartCV)))
}

// EngineTerm is the engine term θ of an interleaved run's fit on metric (the log change
// from baseline to current with a linear drift fitted out) and its variance from the
// blocks alone: what two starts of the builds do not share is not in it, so two runs of
// the same builds on other starts differ by more (bisect measures that spread so).
func EngineTerm(baseline, current *artifact.Benchmark, metric string) (theta, variance float64, err error) {
	s, err := seriesOf(metric)
	if err != nil {
		return 0, 0, err
	}
	if !interleavedPair(baseline, current) {
		return 0, 0, fmt.Errorf("%s: not the two sides of one interleaved run", metric)
	}
	bf, bt, cf, ct, err := s.bothBlocks(baseline, current)
	if err != nil {
		return 0, 0, err
	}
	if len(bf) == 0 || len(cf) == 0 {
		return 0, 0, fmt.Errorf("%s: a side has no block with a figure", metric)
	}
	theta, variance, df := fitBlocks(bf, bt, cf, ct)
	if df < 1 || math.IsNaN(variance) {
		return 0, 0, fmt.Errorf("%s: %d blocks: a drift and an engine term need at least 4", metric, len(bf)+len(cf))
	}
	return theta, variance, nil
}

// fitBlocks fits the blocks' log figures of both sides (bf, cf at midpoints bt, ct in Unix
// ns) in time with an engine term (trendFree), minutes from the first block.
func fitBlocks(bf []float64, bt []int64, cf []float64, ct []int64) (theta, variance, df float64) {
	var y, t, x []float64
	origin := min(slices.Min(bt), slices.Min(ct))
	for k := range bf {
		y, t, x = append(y, bf[k]), append(t, float64(bt[k]-origin)/6e10), append(x, 0)
	}
	for k := range cf {
		y, t, x = append(y, cf[k]), append(t, float64(ct[k]-origin)/6e10), append(x, 1)
	}
	return trendFree(y, t, x)
}

// bothBlocks are the block figures and midpoints of both runs (series.blockFigures).
func (s series) bothBlocks(baseline, current *artifact.Benchmark) (bf []float64, bt []int64, cf []float64, ct []int64, err error) {
	if bf, bt, err = s.blockFigures(baseline); err != nil {
		return nil, nil, nil, nil, err
	}
	cf, ct, err = s.blockFigures(current)
	return bf, bt, cf, ct, err
}

// sameWorkload records the workload differences of two runs and, unless mismatches are
// allowed, ends the verdict as not comparable when there are any.
func (v *Verdict) sameWorkload(baseline, current *artifact.Benchmark, opts Options) bool {
	if v.Differences = artifact.Differences(baseline, current); len(v.Differences) > 0 && !opts.AllowMismatch {
		v.Outcome = NotComparable
		return false
	}
	return true
}

// sides reads both runs' rows and figures, ending the verdict as insufficient when a side
// has too few.
func (v *Verdict) sides(s series, baseline, current *artifact.Benchmark) (base, cur []float64, err error) {
	b, errB := s.read(baseline, "baseline")
	c, errC := s.read(current, "current")
	v.BaselineSamples, v.CurrentSamples = b.n, c.n
	if b.n < minRows || c.n < minRows {
		v.Outcome = Insufficient
		return b.rows, c.rows, nil
	}
	if err := errors.Join(errB, errC); err != nil {
		return nil, nil, err
	}
	v.Baseline, v.Current = b.figure, c.figure
	if !(v.Baseline > 0) || !(v.Current > 0) || !positive(b.rows) || !positive(c.rows) {
		return nil, nil, fmt.Errorf("%s: a ratio needs positive figures and rows (baseline %v, current %v)", s.name, v.Baseline, v.Current)
	}
	return b.rows, c.rows, nil
}

// interleavedPair reports whether the two are the baseline's and the current engine's
// artifacts of one interleaved run.
func interleavedPair(baseline, current *artifact.Benchmark) bool {
	if baseline == nil || current == nil || baseline.Extension == nil || current.Extension == nil {
		return false
	}
	b, c := baseline.Extension.Interleaved, current.Extension.Interleaved
	return b != nil && c != nil && b.Pairing == c.Pairing && b.Role == artifact.RoleBaseline && c.Role == artifact.RoleCurrent
}

// rule states the regression rule with the design's test.
func (v *Verdict) rule(test string) string {
	worse := "higher"
	if !v.HigherIsWorse {
		worse = "lower"
	}
	return fmt.Sprintf("%s regresses when it is more than %s (half the %s gate) %s than the baseline's and the change is significant at one-sided p < %s (1%% over the gate's metrics): %s",
		label(v.Metric), percent(v.By/2), percent(v.By), worse, trimFloat(v.Alpha), test)
}

// pooled is the pooled sample variance of the groups around their own means, and its
// degrees of freedom; NaN and 0 when no group has two values.
func pooled(groups [][]float64) (variance, df float64) {
	ss := 0.0
	for _, g := range groups {
		m := mean(g)
		for _, x := range g {
			ss += (x - m) * (x - m)
		}
		df += float64(max(len(g)-1, 0))
	}
	if df == 0 {
		return math.NaN(), 0
	}
	return ss / df, df
}

// split cuts values at the indices cps, ascending.
func split(values []float64, cps []int) [][]float64 {
	var out [][]float64
	from := 0
	for _, at := range cps {
		out = append(out, values[from:at])
		from = at
	}
	return append(out, values[from:])
}

// trendFree fits y = a + b·t + θ·x by least squares and returns θ, its variance and the
// residual degrees of freedom: the engine's effect with a linear drift in time fitted out.
func trendFree(y, t, x []float64) (theta, variance, df float64) {
	n := len(y)
	df = float64(n - 3)
	if df < 1 {
		return 0, math.NaN(), df
	}
	var m [3][3]float64
	var r [3]float64
	for i := range n {
		row := [3]float64{1, t[i], x[i]}
		for a := range 3 {
			r[a] += row[a] * y[i]
			for b := range 3 {
				m[a][b] += row[a] * row[b]
			}
		}
	}
	inv, ok := invert3(m)
	if !ok {
		return 0, math.NaN(), 0
	}
	var beta [3]float64
	for a := range 3 {
		for b := range 3 {
			beta[a] += inv[a][b] * r[b]
		}
	}
	rss := 0.0
	for i := range n {
		e := y[i] - beta[0] - beta[1]*t[i] - beta[2]*x[i]
		rss += e * e
	}
	return beta[2], rss / df * inv[2][2], df
}

// invert3 inverts a 3×3 matrix by its cofactors; false when it is singular.
func invert3(m [3][3]float64) ([3][3]float64, bool) {
	var c [3][3]float64
	for i := range 3 {
		for j := range 3 {
			a, b := [2]int{(i + 1) % 3, (i + 2) % 3}, [2]int{(j + 1) % 3, (j + 2) % 3}
			c[j][i] = m[a[0]][b[0]]*m[a[1]][b[1]] - m[a[0]][b[1]]*m[a[1]][b[0]]
		}
	}
	det := m[0][0]*c[0][0] + m[0][1]*c[1][0] + m[0][2]*c[2][0]
	if math.Abs(det) < 1e-12 {
		return c, false
	}
	for i := range 3 {
		for j := range 3 {
			c[i][j] /= det
		}
	}
	return c, true
}

// upper is the 80% upper confidence bound of a variance estimated with df degrees of
// freedom, variance·df/χ²(0.2, df): the runs or pairs a small sample names are then enough
// four times in five, not one time in two (Browne, "On the use of a pilot sample for
// sample size determination", Statistics in Medicine 1995).
func upper(variance, df float64) float64 {
	if math.IsInf(df, 1) || !(df > 0) {
		return variance
	}
	return variance * df / distuv.ChiSquared{K: df}.Quantile(0.2)
}

// pairsFor is the fewest interleaved pairs whose test detects a log change of target, with
// a block's log figure varying by perBlock and the engines' restart part by restart; 0 when
// none up to maxNeeded does.
func pairsFor(target, perBlock, restart, a float64) int {
	if math.IsNaN(perBlock) || !reaches(target, 2*restart, math.Inf(1), a) {
		return 0 // what two engines do not share alone is wider than the target
	}
	for k := 2; k <= maxNeeded; k++ {
		within, df := 2*perBlock/float64(k), float64(2*k-3)
		if reaches(target, within+2*restart, welch([2]float64{within, df}, [2]float64{2 * restart, math.Inf(1)}), a) {
			return k
		}
	}
	return 0
}

// runsFor is the fewest runs of a history that let one run of log spread perRun be judged
// against them at a log change of target; 0 when none up to maxNeeded can (the run's own
// spread is wider than the gate allows).
func runsFor(target, perRun, a float64) int {
	if math.IsNaN(perRun) || !reaches(target, perRun, math.Inf(1), a) {
		return 0 // a run's own spread alone is wider than the target
	}
	for n := MinHistory; n <= maxNeeded; n++ {
		if reaches(target, perRun*(1+1/float64(n)), float64(n-1), a) {
			return n
		}
	}
	return 0
}

// logSE is the standard error of the log ratio implied by a 95% interval lo..hi of the
// ratio; 0 for a degenerate or missing interval.
func logSE(lo, hi float64) float64 {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 1) {
		return 0
	}
	return (math.Log(hi) - math.Log(lo)) / (2 * 1.959963984540054)
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// blocks says how many blocks each side had: "1 vs 1 blocks".
func blocks(base, cur int) string {
	if base == 1 && cur == 1 {
		return "one block each"
	}
	return fmt.Sprintf("%d vs %d blocks", base, cur)
}

// trimFloat prints a level as written: 0.01, 0.005.
func trimFloat(f float64) string { return fmt.Sprintf("%g", f) }
