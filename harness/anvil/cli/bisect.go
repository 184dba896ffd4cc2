package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/internal/compare"
)

// A step's outcome: the commit is slower than GOOD's build (bad), held (good), or skipped.
type stepOutcome int

const (
	stepSkipped stepOutcome = iota
	stepSlower
	stepHeld
)

// bisector finds the first commit slower than GOOD by interleaved A/B runs against GOOD's
// build, started once and kept for every step.
type bisector struct {
	repo, work, goodSHA string
	start               []string
	cfg                 config.Config
	scenario            capacity.Scenario
	spec                gate.Spec
	// tries bounds how many interleaved runs one commit gets while its verdict stays
	// inconclusive, each with twice the pairs of the one before.
	tries        int
	startTimeout time.Duration
	stdout       io.Writer
	baseline     *engineProcess
	// restartCV is the spread between two starts of one build each step counts: the larger
	// of what GOOD's two starts showed and gate_restart_cv; restartSource says which.
	restartCV     float64
	restartSource string
	// spreads are, per gated metric, estimates of the variance of a start's log figure,
	// one degree of freedom each; measured is the largest pooled spread over the metrics,
	// measuredBy its metric, pairsOfStarts how many estimates it pools.
	spreads       map[string][]float64
	measured      float64
	measuredBy    string
	pairsOfStarts int
	// starts counts the builds started, each in a worktree of its own.
	starts int
	// noConfirm calls a commit slower on its first start (a simulation's comparison).
	noConfirm bool
	// aa is how many other starts of GOOD the spread between starts is first measured on.
	aa int
	// launch starts a commit's build (serve); interleave runs the scenario interleaved
	// between two started builds (capacity.RunInterleaved). A simulation replaces both.
	launch     func(ctx context.Context, sha string) (*engineProcess, error)
	interleave func(ctx context.Context, cur, base *engineProcess, sc capacity.Scenario) (current, baseline *artifact.Benchmark, err error)
}

// interleaved runs sc between two started builds: the current one's artifact and the
// baseline's.
func (b *bisector) interleaved(ctx context.Context, cur, base *engineProcess, sc capacity.Scenario) (*artifact.Benchmark, *artifact.Benchmark, error) {
	if b.interleave != nil {
		return b.interleave(ctx, cur, base, sc)
	}
	return capacity.RunInterleaved(ctx, b.cfg.Target(cur.url), sc, capacity.Interleaving{Baseline: b.cfg.Target(base.url)})
}

// startBuild starts sha's build.
func (b *bisector) startBuild(ctx context.Context, sha string) (*engineProcess, error) {
	if b.launch != nil {
		return b.launch(ctx, sha)
	}
	return b.serve(ctx, sha)
}

// runBisect is `anvilbench bisect [flags] GOOD BAD -- START...`.
func runBisect(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	const unjudged = exitUnjudged
	fs := newCommand("bisect", stderr, "usage: anvilbench bisect [flags] GOOD BAD -- START...\n\n"+
		"Run inside the engine's git repository: finds the first commit between GOOD and BAD that is\n"+
		"slower than GOOD. START runs in a checkout of each commit tried, with PORT in its environment,\n"+
		"and must serve 127.0.0.1:$PORT/v1. Each commit is judged against GOOD's build by interleaved\n"+
		"blocks (the ANVIL_* scenario, at least 4 pairs, and the gate's metrics): regressed is bad,\n"+
		"held is good, inconclusive asks for more pairs and then skips; a commit whose START fails\n"+
		"or never serves is skipped. Exit status: 0 with `first slower commit: SHA`, 2 for bad\n"+
		"input, 4 when GOOD's build does not serve, 5 when it cannot tell.\n\nFlags:\n")
	tries := fs.Int("tries", 3, "interleaved runs a commit gets while inconclusive, each with twice the pairs, before it is skipped")
	startTimeout := fs.Duration("start-timeout", 2*time.Minute, "how long START may take to serve 127.0.0.1:$PORT/v1")
	aa := fs.Int("starts", 2, "other starts of GOOD the spread between starts is first measured on, each an interleaved run against its first")
	dash := len(args)
	for i, a := range args {
		if a == "--" {
			dash = i
			break
		}
	}
	if err := fs.Parse(args[:dash]); err != nil {
		return helpOr(err, unjudged)
	}
	if fs.NArg() != 2 || dash >= len(args)-1 {
		fs.Usage()
		return unjudged
	}
	cfg, err := config.Load(anvilEnviron(getenv))
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench bisect: %v\n", err)
		return unjudged
	}
	g := cfg.Configured()
	repo, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench bisect: %v\n", err)
		return unjudged
	}
	work, err := os.MkdirTemp("", "anvilbench-bisect-")
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench bisect: %v\n", err)
		return unjudged
	}
	defer os.RemoveAll(work)
	sc := g.Scenario
	sc.Repeats = max(sc.Repeats, 4)
	b := &bisector{repo: repo, work: work, start: args[dash+1:], cfg: cfg, scenario: sc, spec: g.Spec,
		tries: max(*tries, 1), startTimeout: *startTimeout, stdout: stdout, aa: max(*aa, 1)}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := b.run(ctx, fs.Arg(0), fs.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench bisect: %v\n", err)
	}
	return code
}

// run bisects the commits after good up to bad: bad first (a bad that is not slower leaves
// nothing to find), then the middle of what is left, skipping around a commit that cannot
// be judged.
func (b *bisector) run(ctx context.Context, good, bad string) (int, error) {
	goodSHA, err := b.git("rev-parse", "--verify", good+"^{commit}")
	if err != nil {
		return exitUnjudged, fmt.Errorf("GOOD %q: %w", good, err)
	}
	badSHA, err := b.git("rev-parse", "--verify", bad+"^{commit}")
	if err != nil {
		return exitUnjudged, fmt.Errorf("BAD %q: %w", bad, err)
	}
	if _, err := b.git("merge-base", "--is-ancestor", goodSHA, badSHA); err != nil {
		return exitUnjudged, fmt.Errorf("GOOD %s is not an ancestor of BAD %s", short(goodSHA), short(badSHA))
	}
	list, err := b.git("rev-list", "--reverse", "--ancestry-path", goodSHA+".."+badSHA)
	if err != nil || list == "" {
		return exitUnjudged, fmt.Errorf("no commits from GOOD %s to BAD %s", short(goodSHA), short(badSHA))
	}
	commits := append([]string{goodSHA}, strings.Fields(list)...)
	fmt.Fprintf(b.stdout, "bisect: %d commits after GOOD %s up to BAD %s\n", len(commits)-1, short(goodSHA), short(badSHA))

	b.goodSHA = goodSHA
	if b.baseline, err = b.startBuild(ctx, goodSHA); err != nil {
		return gate.RunFailed.ExitCode(), fmt.Errorf("GOOD's build does not serve: %w", err)
	}
	defer b.baseline.stop()
	fmt.Fprintf(b.stdout, "baseline: GOOD %s serving at %s\n", short(goodSHA), b.baseline.url)
	// Every commit tried is a start of its own against GOOD's one: what two starts of one
	// build differ by is measured first, on GOOD's own.
	spread, err := b.measureStarts(ctx, goodSHA)
	if ctx.Err() != nil {
		return gate.RunFailed.ExitCode(), fmt.Errorf("interrupted measuring the spread between starts: nothing was concluded")
	}
	if err != nil {
		return gate.RunFailed.ExitCode(), fmt.Errorf("GOOD's second start: %w", err)
	}
	fmt.Fprintf(b.stdout, "spread between starts: %s\n", spread)

	judged := make([]bool, len(commits)) // GOOD is held; a skipped commit is judged too
	judged[0] = true
	steps := 0
	judge := func(i int) stepOutcome {
		steps++
		o, why := b.step(ctx, commits[i])
		judged[i] = true
		if ctx.Err() != nil {
			fmt.Fprintf(b.stdout, "step %d: %s interrupted\n", steps, short(commits[i]))
			return o
		}
		word := map[stepOutcome]string{stepSlower: "slower", stepHeld: "held", stepSkipped: "skipped"}[o]
		fmt.Fprintf(b.stdout, "step %d: %s %s: %s\n", steps, short(commits[i]), word, why)
		return o
	}
	last := len(commits) - 1
	interrupted := func() (int, error) {
		return gate.RunFailed.ExitCode(), fmt.Errorf("interrupted in step %d: nothing was concluded", steps)
	}
	first := judge(last)
	if ctx.Err() != nil {
		return interrupted()
	}
	switch first {
	case stepHeld:
		return gate.Inconclusive.ExitCode(), fmt.Errorf("BAD %s is not slower than GOOD %s: nothing to bisect", short(badSHA), short(goodSHA))
	case stepSkipped:
		return gate.Inconclusive.ExitCode(), fmt.Errorf("BAD %s could not be judged against GOOD %s", short(badSHA), short(goodSHA))
	}
	lo, hi := 0, last // lo held, hi slower
	for ctx.Err() == nil {
		next := nearestUnjudged(judged, lo, hi)
		if next < 0 {
			break
		}
		switch judge(next) {
		case stepSlower:
			hi = next
		case stepHeld:
			lo = next
		}
	}
	if ctx.Err() != nil {
		return interrupted()
	}
	if hi == lo+1 {
		subject, _ := b.git("log", "-1", "--format=%s", commits[hi])
		fmt.Fprintf(b.stdout, "first slower commit: %s %s\n", commits[hi], subject)
		return exitOK, nil
	}
	var between []string
	for i := lo + 1; i <= hi; i++ {
		between = append(between, short(commits[i]))
	}
	return gate.Inconclusive.ExitCode(), fmt.Errorf("the first slower commit is one of %s: the commits between could not be judged", strings.Join(between, ", "))
}

// nearestUnjudged is the commit strictly between lo and hi nearest their middle that has
// not been judged (lower first on a tie); -1 when none is left.
func nearestUnjudged(judged []bool, lo, hi int) int {
	mid := (lo + hi) / 2
	for d := 0; d < hi-lo; d++ {
		for _, i := range []int{mid - d, mid + d} {
			if i > lo && i < hi && !judged[i] {
				return i
			}
		}
	}
	return -1
}

// measureStarts starts GOOD's build a second time and runs the scenario interleaved between
// its two starts: what they differ by on each gated metric measures the spread between
// starts (see addSpread). The steps count it, or gate_restart_cv when that is larger; the
// line says which.
func (b *bisector) measureStarts(ctx context.Context, good string) (string, error) {
	b.spreads = map[string][]float64{}
	b.updateRestart()
	var each []string
	for k := range max(b.aa, 1) {
		second, err := b.startBuild(ctx, good)
		if err != nil {
			return "", err
		}
		sc := b.scenario
		sc.Name = fmt.Sprintf("bisect %s A/A %d", short(good), k+1)
		cur, bas, err := b.interleaved(ctx, second, b.baseline, sc)
		second.stop()
		if err != nil {
			return "", fmt.Errorf("the interleaved run of GOOD against another start of it failed: %w", err)
		}
		if cur.Failed > 0 || bas.Failed > 0 {
			return "", fmt.Errorf("the interleaved run of GOOD against another start of it: %d and %d requests failed", bas.Failed, cur.Failed)
		}
		var d []string
		for _, m := range b.spec.Metrics {
			theta, v, err := compare.EngineTerm(bas, cur, m)
			if err != nil {
				return "", err
			}
			// E[θ²] = 2σ² + v: two starts, each off by σ.
			b.addSpread(m, (theta*theta-v)/2)
			d = append(d, fmt.Sprintf("%s %+.1f%%", m, 100*math.Expm1(theta)))
		}
		each = append(each, strings.Join(d, ", "))
	}
	b.updateRestart()
	return fmt.Sprintf("GOOD's other starts against its first: %s; %s%s", strings.Join(each, "; "), b.counting(), b.reach()), nil
}

// addSpread adds an estimate of the variance of a start's log figure on metric, with one
// degree of freedom: the A/A run's, and each confirmation's (two pairs of starts of the
// same builds).
func (b *bisector) addSpread(metric string, estimate float64) {
	b.spreads[metric] = append(b.spreads[metric], estimate)
}

// updateRestart sets the spread between starts the steps count: the largest over the
// metrics of the pooled estimates, or gate_restart_cv when that is larger.
func (b *bisector) updateRestart() {
	floor := cmp.Or(b.spec.Comparison.RestartCV, compare.DefaultRestartCV)
	b.restartCV, b.restartSource, b.measured = floor, "", 0
	for _, m := range b.spec.Metrics {
		est := b.spreads[m]
		if len(est) == 0 {
			continue
		}
		sum := 0.0
		for _, e := range est {
			sum += e
		}
		cv := math.Expm1(math.Sqrt(max(sum/float64(len(est)), 0)))
		if cv > b.measured {
			b.measured, b.measuredBy, b.pairsOfStarts = cv, m, len(est)
		}
	}
	if b.measured > floor {
		b.restartCV = b.measured
		b.restartSource = fmt.Sprintf("measured over %d pairs of starts of one build (%s)", b.pairsOfStarts, b.measuredBy)
	}
}

// counting says what the steps count of the spread between starts.
func (b *bisector) counting() string {
	floor := cmp.Or(b.spec.Comparison.RestartCV, compare.DefaultRestartCV)
	if b.restartSource == "" {
		return fmt.Sprintf("%.2f%% a start measured, within gate_restart_cv: each step counts %.2f%%", 100*b.measured, 100*b.restartCV)
	}
	return fmt.Sprintf("%.2f%% a start (%s, over %d pairs of starts), above gate_restart_cv's %.2f%%: each step counts it", 100*b.measured, b.measuredBy, b.pairsOfStarts, 100*floor)
}

// reach says, when the spread between starts alone keeps one start of a commit against
// GOOD's from resolving the gate, what it resolves: commits within the gate then cannot be
// held, and bisect may end unable to tell. "" when it can.
func (b *bisector) reach() string {
	by := cmp.Or(b.spec.Comparison.By, 0.05)
	floor := compare.StartsResolve(b.restartCV, len(b.spec.Metrics))
	if floor <= by {
		return ""
	}
	return fmt.Sprintf("; one start against GOOD's resolves %.1f%% at best, not the %.4g%% gate: a commit within the gate may not be held, and bisect may end unable to tell (a gate of %.0f%% would resolve it, ANVIL_GATE_BY)",
		100*floor, 100*by, math.Ceil(100*floor))
}

// step judges one commit against GOOD's build: its START serving, then interleaved runs
// until the gate's metrics regress or hold, at most tries of them. A commit found slower is
// confirmed on a fresh start of it against a fresh start of GOOD before it is called
// slower: one start of either may be slow by the spread alone. The two pairs of starts
// also measure that spread (their engine terms differ by it alone), and both are judged
// again with it counted.
func (b *bisector) step(ctx context.Context, sha string) (stepOutcome, string) {
	o, msg, first := b.judgeStart(ctx, sha, b.baseline, true)
	if o != stepSlower || ctx.Err() != nil || b.noConfirm {
		return o, msg
	}
	good, err := b.startBuild(ctx, b.goodSHA)
	if err != nil {
		return stepSkipped, fmt.Sprintf("slower (%s), but GOOD's fresh start to confirm it on did not serve: %v", msg, err)
	}
	defer good.stop()
	again, why, second := b.judgeStart(ctx, sha, good, false)
	if len(second) == 0 || ctx.Err() != nil {
		return stepSkipped, fmt.Sprintf("slower on its first start (%s); its fresh start could not be judged: %s", msg, why)
	}
	b.spreadOf(first[len(first)-1], second[0])
	if again != stepSlower {
		return stepSkipped, fmt.Sprintf("slower on its first start (%s), not on fresh starts of it and of GOOD (%s): the spread between starts, not the commit", msg, why)
	}
	// Every pair of starts pooled, the spread between starts counted as what it is: an
	// estimate on the pairs of starts measured so far.
	pooled, all, _ := b.verdictOver(append(first, second...), true)
	if pooled != gate.Regression {
		return stepSkipped, fmt.Sprintf("slower on its first start (%s) and on fresh starts (%s), but not over both with the spread between starts counted as measured (%s): %s",
			msg, why, b.counting(), all)
	}
	return stepSlower, msg + "; confirmed on fresh starts of it and of GOOD: " + why + "; over both: " + all
}

// judgeStart starts sha and judges it against the build serving at good by interleaved
// runs, at most tries of them (retry), until the gate's metrics regress or hold: while the
// blocks' own spread leaves it inconclusive and what two starts differ by leaves room under
// half the gate, each with twice the pairs; else each on fresh starts of sha and of GOOD,
// pooled with those before (more pairs never shrink what two starts differ by; more starts
// shrink both). It returns the artifacts that decided
// (the last run's; nil when none ran).
func (b *bisector) judgeStart(ctx context.Context, sha string, good *engineProcess, retry bool) (stepOutcome, string, [][2]*artifact.Benchmark) {
	engine, err := b.startBuild(ctx, sha)
	if err != nil {
		return stepSkipped, err.Error(), nil
	}
	stops := []func(){engine.stop}
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	sc := b.scenario
	sc.Name = "bisect " + short(sha)
	why := ""
	tries := b.tries
	if !retry {
		tries = 1
	}
	var runs [][2]*artifact.Benchmark
	for try := range tries {
		cur, bas, err := b.interleaved(ctx, engine, good, sc)
		if err != nil {
			return stepSkipped, "the interleaved run failed: " + err.Error(), runs
		}
		runs = append(runs, [2]*artifact.Benchmark{bas, cur})
		if len(runs) > 1 {
			b.spreadOf(runs[len(runs)-2], runs[len(runs)-1])
		}
		outcome, msg, pairsHelp := b.verdictOver(runs, false)
		switch outcome {
		case gate.Regression:
			return stepSlower, msg, runs
		case gate.Pass:
			return stepHeld, msg, runs
		case gate.Inconclusive:
			why = msg
		default:
			return stepSkipped, msg, runs
		}
		if try == tries-1 || ctx.Err() != nil {
			break
		}
		if pairsHelp && compare.StartsResolve(b.restartCV, len(b.spec.Metrics)) <= b.spec.Comparison.By/2 {
			// The blocks' spread decides: the same starts, twice the pairs, judged alone
			// (a start of a real engine can take minutes).
			sc.Repeats *= 2
			runs = runs[:0]
			continue
		}
		// What two starts differ by: fresh starts of both, pooled.
		if engine, err = b.startBuild(ctx, sha); err != nil {
			return stepSkipped, fmt.Sprintf("inconclusive (%s), and a fresh start of it did not serve: %v", why, err), runs
		}
		stops = append(stops, engine.stop)
		if good, err = b.startBuild(ctx, b.goodSHA); err != nil {
			return stepSkipped, fmt.Sprintf("inconclusive (%s), and a fresh start of GOOD did not serve: %v", why, err), runs
		}
		stops = append(stops, good.stop)
	}
	return stepSkipped, fmt.Sprintf("inconclusive after %d interleaved runs (up to %d pairs, on %d starts of it): %s", tries, sc.Repeats, len(runs), why), runs
}

// spreadOf adds what two interleaved runs of the same two builds on starts of their own
// tell of the spread between starts: their engine terms differ by four starts' spread and
// the blocks' estimates alone, (θ₁ − θ₂)² − v₁ − v₂ = 4σ².
func (b *bisector) spreadOf(first, second [2]*artifact.Benchmark) {
	for _, m := range b.spec.Metrics {
		t1, v1, err1 := compare.EngineTerm(first[0], first[1], m)
		t2, v2, err2 := compare.EngineTerm(second[0], second[1], m)
		if err1 == nil && err2 == nil {
			b.addSpread(m, ((t1-t2)*(t1-t2)-v1-v2)/4)
		}
	}
	b.updateRestart()
}

// verdict judges the current build's artifact against the baseline's on the gate's
// metrics, by the gate's rule (compare.Regression), and what each metric came to: slower
// when any regressed; held when none did and each either held or, inconclusive, has its 95%
// interval of the change below half the gate (the change it could not resolve is smaller
// than any it would call a regression: an equivalence bound, as in Schuirmann's two
// one-sided tests); otherwise inconclusive.
func (b *bisector) verdict(baseline, current *artifact.Benchmark) (worst gate.Outcome, msg string, pairsHelp bool) {
	return b.verdictOver([][2]*artifact.Benchmark{{baseline, current}}, false)
}

// verdictOver is verdict over interleaved runs of the commit against GOOD, each on starts of
// its own, pooled (compare.AcrossStarts): more starts shrink what two starts differ by. With
// estimated, the spread between starts counts as measured on the pairs of starts it was,
// few degrees of freedom widening the test: the rule a commit is named slower by.
func (b *bisector) verdictOver(runs [][2]*artifact.Benchmark, estimated bool) (worst gate.Outcome, msg string, pairsHelp bool) {
	for _, r := range runs {
		if r[1].Failed > 0 || r[0].Failed > 0 {
			return gate.RunFailed, fmt.Sprintf("%d of its %d requests and %d of GOOD's failed", r[1].Failed, r[1].Requests, r[0].Failed), false
		}
	}
	how := b.spec.Comparison
	worst, msgs := gate.Pass, []string{}
	pairsHelp = len(runs) == 1
	for _, m := range b.spec.Metrics {
		opts := compare.Options{Metrics: len(b.spec.Metrics), RunCV: how.RunCV, RestartCV: b.restartCV, RestartSource: b.restartSource}
		if estimated && b.restartSource != "" {
			opts.RestartDF = float64(b.pairsOfStarts)
		}
		v := compare.AcrossStarts(runs, m, how.By, opts)
		msg := brief(v)
		switch {
		case v.Outcome == compare.Regressed:
			worst = gate.Regression
		case v.Outcome == compare.Pass:
		case v.Outcome == compare.Inconclusive && boundedBelow(v):
			msg += fmt.Sprintf(", within half the %.4g%% gate", 100*v.By)
		case worst == gate.Pass:
			worst = gate.Inconclusive
			fallthrough
		case v.Outcome == compare.Inconclusive:
			// Pairs shrink what the blocks estimate, never what two starts differ by.
			pairsHelp = pairsHelp && v.PairsNeeded > 0
		}
		msgs = append(msgs, msg)
	}
	return worst, strings.Join(msgs, "; "), pairsHelp
}

// boundedBelow reports whether v's 95% interval of the change lies below half its gate in
// the bad direction.
func boundedBelow(v compare.Verdict) bool {
	if !(v.RatioHigh > 0) {
		return false
	}
	worst := v.RatioHigh - 1
	if !v.HigherIsWorse {
		worst = 1 - v.RatioLow
	}
	return worst < v.By/2
}

// brief is a regression verdict's first clause, with the phases its attribution names as
// moved: "tpot p50 regressed 20.0% (2.00ms -> 2.40ms, 95% CI of the change
// +18.4%..+21.7%, p<1e-16), decode moved".
func brief(v compare.Verdict) string {
	msg := v.Message()
	head, _, found := strings.Cut(msg, "): ")
	if !found {
		return msg
	}
	head += ")"
	if moved := v.Attribution.Named(); moved != "" {
		head += ", " + moved
	}
	return head
}
