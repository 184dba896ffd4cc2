package matchers_test

import (
	"strings"
	"testing"

	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/internal/stats"
	. "github.com/anvilbench/anvilbench/matchers"
)

// timed is a run of one fixed workload whose n TPOT rows are scale·(5.00, 5.01, 5.02, ...)
// ms, with the tpot family of the metrics block computed from them.
func timed(n int, scale float64) *artifact.Benchmark {
	a := &artifact.Benchmark{
		Schema: artifact.Schema, MeasurementProtocol: artifact.ProtocolV3, Model: "m", Requests: n, Completed: n,
		Concurrency: 1, ContextTokens: new(1024), ContextDistribution: map[string]int{"1024": n}, MaxTokens: 64,
		ResponseWords: 32, ControlledOutputPolicy: "strict", PromptCacheMode: "unique",
		ServeFlags: artifact.ServeFlags{ThinkingMode: "unsupported"},
	}
	values := make([]float64, n)
	for i := range values {
		values[i] = scale * float64(500+i) / 100
		a.RequestTimings = append(a.RequestTimings, artifact.RequestTiming{RequestIndex: i, TPOTMs: artifact.F(values[i])})
	}
	s, _ := stats.Summarize(values)
	a.Metrics.TPOT = artifact.Distribution{
		Samples: s.N, Mean: artifact.F(s.Mean), MeanCI95Low: artifact.F(s.MeanCI95Low), MeanCI95High: artifact.F(s.MeanCI95High),
		P50: artifact.F(s.P50), P90: artifact.F(s.P90), P95: artifact.F(s.P95), P99: artifact.F(s.P99),
	}
	return a
}

// errorOf runs one assertion and returns its failure message, "" when it passed; it fails
// the test unless the matcher erred (Gomega prefixes a matcher's error with this text).
func errorOf(t *testing.T, actual any, m types.GomegaMatcher) string {
	t.Helper()
	ok, err := m.Match(actual)
	if err == nil {
		t.Errorf("matcher did not err (match %v)", ok)
		return ""
	}
	return err.Error()
}

func TestMeetBudgetNoiseAware(t *testing.T) {
	t.Parallel()
	parsed, err := budget.Parse("tpot_p50_ms<=5.3@upper95, tpot_p50_ms<=5.3@lower95, tpot_p95_ms<=6")
	if err != nil {
		t.Fatal(err)
	}
	run := timed(40, 1) // sorted 5.00..5.39: p50 5.19, its 95% interval [X(14), X(27)] = [5.13, 5.26]
	cases := []struct {
		m    types.GomegaMatcher
		want string
	}{
		{MeetBudget(parsed[0]), ""},
		{MeetBudget(budget.Budget{Metric: "tpot_p50_ms", Op: budget.AtMost, Limit: 5.2, Bound: budget.Upper95}),
			"tpot p50 upper CI95 bound 5.26ms exceeds budget 5.20ms over 40 samples (point 5.19ms)"},
		{MeetBudget(budget.Budget{Metric: "tpot_p50_ms", Op: budget.AtMost, Limit: 5.1, Bound: budget.Lower95}),
			"tpot p50 lower CI95 bound 5.13ms exceeds budget 5.10ms over 40 samples (point 5.19ms)"},
		{MeetBudget(parsed[2]), ""}, // p95 needs 20 samples; 40 are enough
		{HaveMetricAtMost("tpot_p50_ms", 5.1), "tpot p50 5.19ms exceeds budget 5.10ms over 40 samples"}, // a plain budget reads as before
	}
	for _, c := range cases {
		if got := failureOf(t, run, c.m); got != c.want {
			t.Errorf("got %q\nwant %q", got, c.want)
		}
	}
}

func TestMeetBudgetInsufficientSamplesIsAnError(t *testing.T) {
	t.Parallel()
	six := timed(6, 1)
	for _, c := range []struct {
		m    types.GomegaMatcher
		want string
	}{
		{HaveMetricAtMost("tpot_p99_ms", 9), "MeetBudget: budget tpot_p99_ms<=9: tpot p99: insufficient samples: 6 of the 100 required"},
		{HaveMetricAtMost("tpot_p95_ms", 9), "MeetBudget: budget tpot_p95_ms<=9: tpot p95: insufficient samples: 6 of the 20 required"},
		{MeetBudget(budget.Budget{Metric: "tpot_p90_ms", Op: budget.AtMost, Limit: 9, Bound: budget.Upper95, MinSamples: 6}),
			"MeetBudget: budget tpot_p90_ms<=9@upper95@min=6: tpot p90: insufficient samples for an upper CI95 bound: 6 of the 36 required"},
	} {
		if got := errorOf(t, six, c.m); got != c.want {
			t.Errorf("got %q\nwant %q", got, c.want)
		}
	}
	// The budget may say otherwise: the p99 of 6 samples, knowingly descriptive.
	if got := failureOf(t, six, MeetBudget(budget.Budget{Metric: "tpot_p99_ms", Op: budget.AtMost, Limit: 5, MinSamples: 6})); got != "tpot p99 5.05ms exceeds budget 5.00ms over 6 samples" {
		t.Errorf("@min=6: %q", got)
	}
	// Through Gomega the error fails the assertion, never passes it.
	var msg string
	g := gomega.NewGomega(func(message string, _ ...int) { msg = message })
	g.Expect(six).To(HaveMetricAtMost("tpot_p99_ms", 9))
	if msg == "" {
		t.Error("an insufficient sample passed")
	}
}

func TestNotRegressFrom(t *testing.T) {
	t.Parallel()
	base := timed(32, 1)
	cases := []struct {
		current *artifact.Benchmark
		m       types.GomegaMatcher
		want    string
	}{
		// Sessions taken to be steady (RunCV 0.1%), the requests decide.
		{timed(32, 1.1), NotRegressFrom(base).On("tpot_p50_ms").By(0.05).RunCV(0.001), "tpot p50 regressed 10.0%"},
		{timed(32, 1.01), NotRegressFrom(base).On("tpot_p50_ms").By(0.05).RunCV(0.001), ""},
		{timed(32, 1.04), NotRegressFrom(base).On("tpot_p50_ms").RunCV(0.001), // the default gate is 5%
			"tpot p50 regressed 4.0% (5.15ms -> 5.36ms"},
		{timed(32, 1.04), NotRegressFrom(base).On("tpot_p50_ms").By(0.1).RunCV(0.001), ""},
		// At the default spread between sessions (5%), a 30% change still shows.
		{timed(32, 1.3), NotRegressFrom(base).On("tpot_p50_ms").By(0.1), "tpot p50 regressed 30.0%"},
	}
	for _, c := range cases {
		got := failureOf(t, c.current, c.m)
		if (c.want == "") != (got == "") || !strings.HasPrefix(got, c.want) {
			t.Errorf("got %q\nwant %q...", got, c.want)
		}
	}
	// A 10% change against one stored run, at the default spread between sessions: the
	// comparison cannot tell, and says what would.
	if got := errorOf(t, timed(32, 1.1), NotRegressFrom(base).On("tpot_p50_ms")); !strings.Contains(got, "tpot p50 inconclusive: changed +10.0%") ||
		!strings.Contains(got, "interleaved pairs against the baseline build would") {
		t.Errorf("one stored run: %q", got)
	}
	if got := failureOf(t, base, gomega.Not(NotRegressFrom(base).On("tpot_p50_ms"))); got == "" {
		t.Error("negation passed on an unchanged run")
	}
}

func TestNotRegressFromErrors(t *testing.T) {
	t.Parallel()
	base := timed(32, 1)
	other := timed(32, 1.2)
	other.Concurrency, other.MaxTokens = 8, 128
	legacy := timed(32, 1)
	legacy.ControlledOutputPolicy = ""
	cases := []struct {
		current *artifact.Benchmark
		m       types.GomegaMatcher
		want    string
	}{
		{other, NotRegressFrom(base).On("tpot_p50_ms"), "NotRegressFrom: tpot p50: not comparable: concurrency 1 vs 8; max_tokens 64 vs 128"},
		{legacy, NotRegressFrom(base).On("tpot_p50_ms"), `NotRegressFrom: tpot p50: not comparable: controlled_output_policy "strict" vs unknown (not recorded by an older artifact); shared_prefix_tokens 0 vs unknown (not recorded by an older artifact)`},
		{timed(4, 1), NotRegressFrom(base).On("tpot_p50_ms"), "NotRegressFrom: tpot p50: not comparable: 32 vs 4 requests with a figure (a comparison needs at least 5 on each side)"},
		{base, NotRegressFrom(base), `NotRegressFrom: no metric; name one with .On("tpot_p50_ms")`},
		{base, NotRegressFrom(nil).On("tpot_p50_ms"), "NotRegressFrom: no baseline artifact (got nil)"},
		{base, NotRegressFrom(base).On("prompt_tokens_p50"), `NotRegressFrom: metric "prompt_tokens_p50": prompt_tokens counts tokens; it measures the workload, not the engine's speed`},
	}
	for _, c := range cases {
		if got := errorOf(t, c.current, c.m); got != c.want {
			t.Errorf("got %q\nwant %q", got, c.want)
		}
	}
	if ok, err := NotRegressFrom(base).On("tpot_p50_ms").AllowMismatch().Match(other); ok || err != nil {
		t.Errorf("AllowMismatch must judge (and find the 20%% slowdown): %v %v", ok, err)
	}
	if got := errorOf(t, "not an artifact", NotRegressFrom(base).On("tpot_p50_ms")); got != "NotRegressFrom expects a *artifact.Benchmark, got string" {
		t.Errorf("wrong actual: %q", got)
	}
}

func TestRunTheWorkloadOf(t *testing.T) {
	t.Parallel()
	base := timed(32, 1)
	other := timed(32, 1)
	other.Concurrency, other.MaxTokens = 8, 128
	if got := failureOf(t, timed(6, 1.5), RunTheWorkloadOf(base)); got != "" {
		t.Errorf("the same workload at another size and speed failed: %q", got)
	}
	if got, want := failureOf(t, other, RunTheWorkloadOf(base)), "not the baseline's workload: concurrency 1 vs 8; max_tokens 64 vs 128"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := errorOf(t, base, RunTheWorkloadOf(nil)); got != "RunTheWorkloadOf: no baseline artifact" {
		t.Errorf("nil baseline: %q", got)
	}
}
