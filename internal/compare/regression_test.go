package compare

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

func TestTenPercentSlowdownIsFlagged(t *testing.T) {
	t.Parallel()
	v := Regression(synthetic(32, 5, 0.05, 1), synthetic(32, 5.5, 0.05, 2), "tpot_p50_ms", 0.05, Options{})
	want := "tpot p50 regressed 11.4% (4.91ms -> 5.47ms, 95% CI of the ratio 1.073..1.163, p=2.9e-09, 32 vs 32 requests): worse than the 5.0% gate"
	if v.Outcome != Regressed || !v.Significant || v.Message() != want {
		t.Errorf("outcome %s\n got %q\nwant %q", v.Outcome, v.Message(), want)
	}
	if v.BaselineSamples != 32 || v.CurrentSamples != 32 || !v.HigherIsWorse || v.RatioLow > v.Ratio || v.Ratio > v.RatioHigh {
		t.Errorf("figures: %+v", v)
	}
	if !strings.Contains(v.Rule, "more than 2.5% (half the 5.0% gate) higher than the baseline's") {
		t.Errorf("rule: %q", v.Rule)
	}
}

// TestNoiseDoesNotFail runs identical populations with 5% relative jitter (each value times
// 1 + 0.05·Z, Z standard normal) at the default 60 requests per side: at most 1% of 200
// seeds may be called a regression.
func TestNoiseDoesNotFail(t *testing.T) {
	t.Parallel()
	const trials = 200
	regressed := 0
	for i := range trials {
		seed := uint64(10_000 + 2*i)
		v := Regression(synthetic(60, 5, 0.05, seed), synthetic(60, 5, 0.05, seed+1), "tpot_p50_ms", 0.05, Options{})
		if v.Outcome == Regressed {
			regressed++
			t.Logf("false positive: %s", v.Message())
		}
	}
	rate := float64(regressed) / trials
	t.Logf("false-positive rate %.1f%% (%d of %d seeds)", 100*rate, regressed, trials)
	if rate > 0.01 {
		t.Errorf("false-positive rate %.1f%% exceeds 1%%", 100*rate)
	}
}

// TestSlowdownOfTheGateIsCaught: a real 5% slowdown under the same noise fails a 5% gate.
func TestSlowdownOfTheGateIsCaught(t *testing.T) {
	t.Parallel()
	const trials = 100
	caught := 0
	for i := range trials {
		seed := uint64(50_000 + 2*i)
		if Regression(synthetic(60, 5, 0.05, seed), synthetic(60, 5.25, 0.05, seed+1), "tpot_p50_ms", 0.05, Options{}).Outcome == Regressed {
			caught++
		}
	}
	t.Logf("a 5%% slowdown was caught in %d of %d seeds", caught, trials)
	if caught < 90 {
		t.Errorf("a 5%% slowdown was caught in only %d of %d seeds", caught, trials)
	}
}

func TestTinySignificantShiftIsNotARegression(t *testing.T) {
	t.Parallel()
	v := Regression(synthetic(32, 5, 0.001, 3), synthetic(32, 5.05, 0.001, 4), "tpot_p50_ms", 0.05, Options{})
	if v.Outcome != Pass || !v.Significant || v.P > 1e-6 || v.RatioLow <= 1 {
		t.Fatalf("outcome %s significant %v: %s", v.Outcome, v.Significant, v.Message())
	}
	if want := "significant but within half the 5.0% gate"; !strings.HasSuffix(v.Message(), want) {
		t.Errorf("message %q lacks %q", v.Message(), want)
	}
	if !strings.HasPrefix(v.Message(), "tpot p50 changed +1.0% (5.00ms -> 5.05ms") {
		t.Errorf("message %q", v.Message())
	}
}

func TestRatesAreWorseWhenLower(t *testing.T) {
	t.Parallel()
	base := synthetic(32, 5, 0.02, 5)
	slower, faster := synthetic(32, 5.5, 0.02, 6), synthetic(32, 4.5, 0.02, 6)
	v := Regression(base, slower, "decode_tok_s_p50", 0.05, Options{})
	if v.Outcome != Regressed || v.HigherIsWorse || v.Worse < 0.08 || !strings.HasPrefix(v.Message(), "decode_tok_s p50 regressed 8.8% (198.99 tok/s -> 181.58 tok/s") {
		t.Errorf("a 9%% decode drop: %s %s", v.Outcome, v.Message())
	}
	v = Regression(base, faster, "decode_tok_s_p50", 0.05, Options{})
	if v.Outcome != Pass || !v.Improved || !strings.Contains(v.Message(), " improved 1") || !strings.HasSuffix(v.Message(), "better by more than half the 5.0% gate") {
		t.Errorf("an 11%% decode gain: %s %s", v.Outcome, v.Message())
	}
	v = Regression(base, slower, throughput, 0.05, Options{})
	if v.Outcome != Regressed || !strings.HasPrefix(v.Message(), "throughput_tok_s regressed ") {
		t.Errorf("throughput: %s %s", v.Outcome, v.Message())
	}
	v = Regression(base, faster, "tpot_p50_ms", 0.05, Options{})
	if v.Outcome != Pass || !v.Improved || v.Worse > -0.05 {
		t.Errorf("a faster TPOT: %s %s", v.Outcome, v.Message())
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
	v = Regression(base, cur, "tpot_p50_ms", 0.05, Options{AllowMismatch: true})
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

// Three outcomes: an unchanged engine over few noisy requests is inconclusive, with the
// change these samples resolve and the requests that would resolve the gate; the same
// engine over enough requests held; a 10% slower one over enough requests regressed.
func TestThreeOutcomes(t *testing.T) {
	t.Parallel()
	few := Regression(synthetic(6, 5, 0.2, 20), synthetic(6, 5, 0.2, 21), "tpot_p50_ms", 0.05, Options{})
	if few.Outcome != Inconclusive || few.Detectable <= 0.05 || few.RequestsNeeded <= 6 {
		t.Errorf("6 noisy requests: %s (detectable %.3f, needed %d)", few.Message(), few.Detectable, few.RequestsNeeded)
	}
	if !strings.Contains(few.Message(), "at best, not the 5.0% gate; about ") {
		t.Errorf("message: %q", few.Message())
	}
	// The requests it names resolve the gate: at that size the same engine holds.
	n := few.RequestsNeeded
	held := Regression(synthetic(n, 5, 0.2, 22), synthetic(n, 5, 0.2, 23), "tpot_p50_ms", 0.05, Options{})
	if held.Outcome != Pass || held.Detectable > 0.05*1.5 {
		t.Errorf("%d requests, unchanged: %s", n, held.Message())
	}
	slower := Regression(synthetic(n, 5, 0.2, 24), synthetic(n, 5.5, 0.2, 25), "tpot_p50_ms", 0.05, Options{})
	if slower.Outcome != Regressed {
		t.Errorf("%d requests, 10%% slower: %s", n, slower.Message())
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
