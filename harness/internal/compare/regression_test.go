package compare

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// One run against one stored run cannot see past the spread between two sessions, which
// nothing in it measures: counted at gate_run_cv, it leaves an unchanged engine
// inconclusive, naming the interleaved pairs or the history that would resolve the gate,
// and finds a change well beyond it.
func TestAStoredRunCountsTheRunToRunSpread(t *testing.T) {
	t.Parallel()
	base, same := synthetic(60, 5, 0.05, 1), synthetic(60, 5, 0.05, 2)
	v := Regression(base, same, "tpot_p50_ms", 0.05, Options{Seed: 1})
	if v.Outcome != Inconclusive || v.Design != DesignStored || v.PairsNeeded < 2 || v.HistoryRunsNeeded != 0 || v.Detectable < 0.15 {
		t.Fatalf("%s: detectable %.3f, pairs %d, runs %d", v.Message(), v.Detectable, v.PairsNeeded, v.HistoryRunsNeeded)
	}
	for _, want := range []string{"); one run against one stored run, one block each (the spread between their sessions counted at 5.0%, gate_run_cv, its default, which a history of main's runs would measure: ANVIL_BASELINE=dir) resolves ",
		"% at best, not the 5.0% gate: 3 interleaved pairs against the baseline build would (no history can: one run's own spread is wider than the gate)"} {
		if !strings.Contains(v.Message(), want) {
			t.Errorf("message %q lacks %q", v.Message(), want)
		}
	}
	slower := Regression(base, synthetic(60, 6.5, 0.05, 3), "tpot_p50_ms", 0.05, Options{Seed: 1})
	if slower.Outcome != Regressed || !strings.HasPrefix(slower.Message(), "tpot p50 regressed 3") {
		t.Errorf("30%% slower: %s", slower.Message())
	}
	// A smaller spread, where the operator has measured one, resolves more.
	if v := Regression(base, same, "tpot_p50_ms", 0.05, Options{Seed: 1, RunCV: 0.001}); v.Outcome != Pass {
		t.Errorf("a run CV of 0.1%%: %s", v.Message())
	}
}

// An interleaved run's blocks fit the drift out: two equal builds drifting 5% a minute
// hold, while the same builds compared one run after the other differ by the drift; a
// build 5% slower regresses; too few pairs of a noisy engine are inconclusive, naming the
// pairs that would resolve it.
func TestAnInterleavedRunFitsTheDriftOut(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	e := engine{TPOT: 5, TTFT: 200, RequestCV: 0.05, Drift: 0.05, BlockMinutes: 0.1}
	base, cur := e.interleaved(rng, 6, 60, 1, 0)
	if v := Regression(base, cur, "tpot_p50_ms", 0.05, Options{Metrics: 2}); v.Outcome != Pass || v.Design != DesignInterleaved || v.Alpha != 0.005 {
		t.Errorf("equal builds, drifting: %s", v.Message())
	}
	// One engine measured twice in its session, 1.2 minutes apart.
	first, second := model(1, 360, 0), model(1, 360, 1.2)
	first.RequestTimings, second.RequestTimings = e.block(nil, rng, 0, 360, 1, 1, 0), e.block(nil, rng, 0, 360, 1, 1, 1.2)
	if v := Regression(first, second, "tpot_p50_ms", 0.05, Options{RunCV: 0.001}); v.Ratio < 1.04 {
		t.Errorf("one run after the other, 1.2 minutes apart, differ by %.1f%%; want the drift's 6%%", 100*(v.Ratio-1))
	}
	base, cur = e.interleaved(rng, 6, 60, 1.05, 0)
	if v := Regression(base, cur, "tpot_p50_ms", 0.05, Options{Metrics: 2}); v.Outcome != Regressed ||
		!strings.Contains(v.Message(), "5.0% gate; 6 interleaved pairs against the baseline build (what two engines side by side do not share counted at 0.5%, gate_restart_cv, its default, which an interleaved run of main's build against a second start of it would measure: docs/gating.md, the spread between starts)") {
		t.Errorf("a build 5%% slower: %s", v.Message())
	}
	noisy := engine{TPOT: 5, TTFT: 200, RequestCV: 0.4, BlockMinutes: 0.1}
	base, cur = noisy.interleaved(rng, 3, 8, 1, 0)
	v := Regression(base, cur, "tpot_p50_ms", 0.05, Options{})
	if v.Outcome != Inconclusive || v.PairsNeeded <= 3 || !strings.Contains(v.Message(), "interleaved pairs would") {
		t.Errorf("3 pairs of 8 noisy requests: %s", v.Message())
	}
	base, cur = noisy.interleaved(rng, 1, 8, 1, 0)
	if v := Regression(base, cur, "tpot_p50_ms", 0.05, Options{}); v.Outcome != Insufficient || !strings.Contains(v.Message(), "at least 2 (ABBA)") {
		t.Errorf("one pair: %s", v.Message())
	}
}

// A history measures the spread between runs: an unchanged run holds, a run well beyond
// its spread regresses, and a shift of the history's own level is told apart from the run's
// change: a run at the new level is judged against it.
func TestAHistoryMeasuresTheSpread(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	e := engine{TPOT: 5, TTFT: 200, RunCV: 0.01, RequestCV: 0.05, BlockMinutes: 0.1}
	var history []*artifact.Benchmark
	for k := range 8 {
		history = append(history, e.run(rng, 1, 120, 1, float64(k)))
	}
	if v := Regression(nil, e.run(rng, 1, 120, 1, 9), "tpot_p50_ms", 0.05, Options{History: history}); v.Outcome != Pass || v.Design != DesignHistory {
		t.Errorf("unchanged: %s", v.Message())
	}
	if v := Regression(nil, e.run(rng, 1, 120, 1.1, 9), "tpot_p50_ms", 0.05, Options{History: history}); v.Outcome != Regressed ||
		!strings.Contains(v.Message(), "one run against a history of 8 runs (8 at its latest level)") {
		t.Errorf("10%% slower: %s", v.Message())
	}
	for k := range 4 {
		history = append(history, e.run(rng, 1, 120, 1.1, float64(8+k)))
	}
	v := Regression(nil, e.run(rng, 1, 120, 1.1, 13), "tpot_p50_ms", 0.05, Options{History: history})
	if v.Outcome != Pass || v.BaselineChangedAt != 9 || !strings.Contains(v.Message(), "; the baseline already changed at run 9 of 12 (+") {
		t.Errorf("at the history's new level: %s", v.Message())
	}
	if v := Regression(nil, e.run(rng, 1, 120, 1.1*1.15, 13), "tpot_p50_ms", 0.05, Options{History: history}); v.Outcome != Regressed {
		t.Errorf("15%% above the new level: %s", v.Message())
	}
	if v := Regression(nil, history[0], "tpot_p50_ms", 0.05, Options{History: history[:2]}); v.Outcome != Insufficient {
		t.Errorf("a history of two: %s", v.Message())
	}
}

func TestNothingToJudgeIsNotAPass(t *testing.T) {
	t.Parallel()
	base := synthetic(32, 5, 0.05, 7)
	few := synthetic(4, 5, 0.05, 8)
	few.ContextDistribution = map[string]int{"4096": 4}
	withheld := synthetic(32, 5, 0.05, 9)
	withheld.Metrics.ThroughputTokS = nil
	cases := []struct {
		current *artifact.Benchmark
		metric  string
		by      float64
		outcome Outcome
		msg     string
	}{
		{few, "tpot_p50_ms", 0.05, Insufficient, "tpot p50: not comparable: 32 vs 4 requests with a figure (a comparison needs at least 5 on each side)"},
		{base, "prompt_tokens_p50", 0.05, Invalid, `metric "prompt_tokens_p50": prompt_tokens counts tokens; it measures the workload, not the engine's speed`},
		{base, "tpot_stddev_ms", 0.05, Invalid, `metric "tpot_stddev_ms": the stddev of a run has no per-request test; want its mean or a percentile`},
		{base, "tpot_p50", 0.05, Invalid, `metric "tpot_p50": want a mean or percentile key of a latency or rate family (e.g. tpot_p50_ms) or throughput_tok_s`},
		{base, "tpot_p50_ms", 0, Invalid, "gate 0: want a relative change above 0, e.g. 0.05 for 5%"},
		{withheld, throughput, 0.05, Invalid, "throughput_tok_s is null in the current artifact (withheld when a request failed or usage was missing)"},
		{nil, "tpot_p50_ms", 0.05, Invalid, "tpot_p50_ms: a baseline and a current artifact are both needed"},
	}
	for _, c := range cases {
		v := Regression(base, c.current, c.metric, c.by, Options{})
		if v.Outcome != c.outcome || v.Message() != c.msg {
			t.Errorf("%s: outcome %s\n got %q\nwant %q", c.metric, v.Outcome, v.Message(), c.msg)
		}
	}
}

func TestNotComparableNamesTheFields(t *testing.T) {
	t.Parallel()
	base, cur := synthetic(32, 5, 0.05, 10), synthetic(32, 5.5, 0.05, 11)
	cur.ContextTokens, cur.ContextDistribution, cur.Concurrency = new(8192), map[string]int{"8192": 32}, 8
	v := Regression(base, cur, "tpot_p50_ms", 0.05, Options{})
	want := `tpot p50: not comparable: context_tokens 4096 vs 8192; context_distribution {"4096":32} vs {"8192":32}; concurrency 4 vs 8`
	if v.Outcome != NotComparable || v.Message() != want {
		t.Errorf("outcome %s\n got %q\nwant %q", v.Outcome, v.Message(), want)
	}
	v = Regression(base, cur, "tpot_p50_ms", 0.05, Options{AllowMismatch: true, RunCV: 0.001})
	if v.Outcome != Regressed || len(v.Differences) != 3 {
		t.Errorf("with AllowMismatch: %s, %d differences", v.Message(), len(v.Differences))
	}
}

func TestVerdictIsReproducible(t *testing.T) {
	t.Parallel()
	a, b := synthetic(40, 5, 0.05, 12), synthetic(40, 5.2, 0.05, 13)
	v1 := Regression(a, b, "ttft_p95_ms", 0.05, Options{Seed: 3, Resamples: 500})
	v2 := Regression(a, b, "ttft_p95_ms", 0.05, Options{Seed: 3, Resamples: 500})
	if v1.Message() != v2.Message() {
		t.Errorf("same inputs, different verdicts:\n%s\n%s", v1.Message(), v2.Message())
	}
}

// Rates are worse when lower: a decode rate that dropped regresses, one that rose is an
// improvement.
func TestRatesAreWorseWhenLower(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 11))
	e := engine{TPOT: 5, TTFT: 200, RequestCV: 0.05, BlockMinutes: 0.1}
	base, cur := e.interleaved(rng, 6, 60, 1.1, 0)
	v := Regression(base, cur, "decode_tok_s_p50", 0.05, Options{})
	if v.Outcome != Regressed || v.HigherIsWorse || v.Worse < 0.07 || !strings.HasPrefix(v.Message(), "decode_tok_s p50 regressed ") {
		t.Errorf("a 9%% decode drop: %s %s", v.Outcome, v.Message())
	}
	base, cur = e.interleaved(rng, 6, 60, 0.9, 0)
	v = Regression(base, cur, "decode_tok_s_p50", 0.05, Options{})
	if v.Outcome != Pass || !v.Improved || !strings.Contains(v.Message(), "better by more than half the 5.0% gate") {
		t.Errorf("an 11%% decode gain: %s %s", v.Outcome, v.Message())
	}
}

// Each of a gate's metrics is tested at 1% over their number.
func TestEachMetricIsTestedAtItsShareOfOnePercent(t *testing.T) {
	t.Parallel()
	for metrics, want := range map[int]float64{0: 0.01, 1: 0.01, 2: 0.005, 4: 0.0025} {
		if v := Regression(synthetic(20, 5, 0.05, 1), synthetic(20, 5, 0.05, 2), "tpot_p50_ms", 0.05, Options{Metrics: metrics}); v.Alpha != want {
			t.Errorf("%d metrics: alpha %v, want %v", metrics, v.Alpha, want)
		}
	}
}

// A baseline too small to compare with is refused before a run.
func TestSufficient(t *testing.T) {
	t.Parallel()
	if err := Sufficient(synthetic(5, 5, 0.5, 30), "tpot_p50_ms"); err != nil {
		t.Errorf("5 requests: %v", err)
	}
	err := Sufficient(synthetic(4, 5, 0.05, 31), "tpot_p50_ms")
	if err == nil || err.Error() != "tpot p50: the baseline has 4 requests with a figure; a comparison needs at least 5" {
		t.Errorf("4 requests: %v", err)
	}
}

// withAnswerSplit gives a synthetic run the timeline of a thinking model's answers: each
// request's answer time per output token is its tpot scaled by factor.
func withAnswerSplit(a *artifact.Benchmark, factor float64) *artifact.Benchmark {
	a.Extension = &artifact.Extension{API: "chat"}
	for _, r := range a.RequestTimings {
		a.Extension.Timeline = append(a.Extension.Timeline, artifact.RequestSpan{RequestIndex: r.RequestIndex, Outcome: "ok",
			ReasoningTokens: new(16), AnswerTokens: new(17), AnswerTPOTMs: artifact.F(factor * float64(*r.TPOTMs))})
	}
	return a
}

// The answer's own time per output token, a figure of the extension read per request
// from the timeline, is judged as tpot is: a 30% slower answer regresses, the same holds.
func TestTheAnswerRateRegressesLikeTPOT(t *testing.T) {
	t.Parallel()
	if err := CheckMetric("answer_tpot_p50_ms"); err != nil {
		t.Fatal(err)
	}
	base := withAnswerSplit(synthetic(60, 5, 0.05, 1), 1)
	slower := Regression(base, withAnswerSplit(synthetic(60, 5, 0.05, 3), 1.3), "answer_tpot_p50_ms", 0.05, Options{Seed: 1})
	if slower.Outcome != Regressed || !strings.HasPrefix(slower.Message(), "answer_tpot p50 regressed 3") {
		t.Errorf("30%% slower answers: %s", slower.Message())
	}
	same := Regression(base, withAnswerSplit(synthetic(60, 5, 0.05, 2), 1), "answer_tpot_p50_ms", 0.05, Options{Seed: 1, RunCV: 0.001})
	if same.Outcome != Pass {
		t.Errorf("the same answers: %s", same.Message())
	}
}

// A change a comparison cannot resolve below a doubling reads as what it is, with what to
// change, not as a 1930.7% figure.
func TestAnUnresolvableSpreadSaysWhatToChange(t *testing.T) {
	t.Parallel()
	if got := resolvable(0.25); got != "25.0% at best" {
		t.Errorf("25%%: %q", got)
	}
	if got := resolvable(19.307); got != "no change under 100% (its spread alone 1930.7%)" {
		t.Errorf("1930.7%%: %q", got)
	}
	msg := Verdict{}.resolvedBy()
	for _, want := range []string{"requests", "concurrency", "repeats", "gate_by"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the advice names no %s: %q", want, msg)
		}
	}
}
