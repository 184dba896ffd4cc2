package matchers_test

import (
	"strings"
	"testing"

	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/gate"
	. "github.com/anvilbench/anvilbench/matchers"
)

// failureOf runs one assertion and returns its failure message, "" when it passed.
func failureOf(t *testing.T, actual any, m types.GomegaMatcher) string {
	t.Helper()
	var msg string
	g := gomega.NewGomega(func(message string, _ ...int) { msg = message })
	g.Expect(actual).To(m)
	return msg
}

// run is an artifact with six TPOT samples whose p50 is 6.31 ms.
func run() *artifact.Benchmark {
	b := &artifact.Benchmark{Requests: 6, Completed: 6, ResponseWords: 32}
	b.Metrics.TPOT = artifact.Distribution{Samples: 6, P50: artifact.F(6.31), P95: artifact.F(6.9)}
	b.Metrics.DecodeTokS = artifact.Distribution{Samples: 6, P50: artifact.F(151.2)}
	b.Metrics.ThroughputTokS = artifact.F(2.5)
	exact := true
	for i := range 6 {
		b.RequestTimings = append(b.RequestTimings, artifact.RequestTiming{RequestIndex: i, ControlledOutput: &artifact.ControlledOutput{
			CaptureComplete: true, ExactAdherence: &exact, ObservedCodeWords: 32, Passed: true, Policy: "strict", RequestedWords: 32,
		}})
	}
	return b
}

func TestBudgetMessages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		m    types.GomegaMatcher
		want string
	}{
		{HaveMetricAtMost("tpot_p50_ms", 6), "tpot p50 6.31ms exceeds budget 6.00ms over 6 samples"},
		{HaveMetricAtMost("tpot_p50_ms", 7), ""},
		{HaveMetricAtLeast("decode_tok_s_p50", 160), "decode_tok_s p50 151.20 tok/s is below budget 160.00 tok/s over 6 samples"},
		{MeetBudget(budget.Budget{Metric: "throughput_tok_s", Op: ">", Limit: 3}), "throughput_tok_s 2.50 tok/s is not above budget 3.00 tok/s over 6 samples"},
		{MeasureNear("tpot_p50_ms", 5, 0.05), "tpot p50 6.31ms is 26.2% off the true 5.00ms (tolerance 5.0%) over 6 samples"},
		{MeasureNear("tpot_p50_ms", 6.3, 0.05), ""},
	}
	for _, c := range cases {
		if got := failureOf(t, run(), c.m); got != c.want {
			t.Errorf("got %q\nwant %q", got, c.want)
		}
	}
}

func TestBudgetErrorsOnNothingToJudge(t *testing.T) {
	t.Parallel()
	empty := &artifact.Benchmark{Requests: 6}
	got := failureOf(t, empty, HaveMetricAtMost("tpot_p50_ms", 6))
	if !strings.Contains(got, "tpot p50 has no value: 0 of 6 requests succeeded") {
		t.Errorf("zero samples must error, got %q", got)
	}
	if got := failureOf(t, "not an artifact", HaveMetricAtMost("tpot_p50_ms", 6)); !strings.Contains(got, "expects a *artifact.Benchmark, got string") {
		t.Errorf("wrong actual: %q", got)
	}
}

func TestHaveNoFailedRequests(t *testing.T) {
	t.Parallel()
	if got := failureOf(t, run(), HaveNoFailedRequests()); got != "" {
		t.Fatalf("a clean run failed: %s", got)
	}
	b := run()
	b.Completed, b.RequestTimings = 3, b.RequestTimings[:3]
	b.Failures = []artifact.Failure{
		{RequestIndex: 3, ErrorType: "http_error", ErrorMessage: "HTTP 503 Service Unavailable"},
		{RequestIndex: 4, ErrorType: "stall", ErrorMessage: "read stream: no bytes for 60s"},
		{RequestIndex: 5, ErrorType: "http_error", ErrorMessage: "HTTP 503 Service Unavailable"},
	}
	want := "3 of 6 requests failed (2 http_error, 1 stall); first: request 3 http_error: HTTP 503 Service Unavailable"
	if got := failureOf(t, b, HaveNoFailedRequests()); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// Most answers missed the words: a model that does not follow the instruction, and
	// observe is named where the verdict's first line is read.
	b.Completed, b.RequestTimings = 2, b.RequestTimings[:2]
	b.Failures = nil
	for i := 2; i < 6; i++ {
		b.Failures = append(b.Failures, artifact.Failure{RequestIndex: i, ErrorType: "controlled_output_mismatch", ErrorMessage: "32 code words and 5 other words"})
	}
	if got := failureOf(t, b, HaveNoFailedRequests()); !strings.Contains(got, "ANVIL_CONTROLLED_OUTPUT_POLICY=observe") {
		t.Errorf("4 of 6 answers missed the words: %q", got)
	}
}

func TestAdhereToControlledOutput(t *testing.T) {
	t.Parallel()
	if got := failureOf(t, run(), AdhereToControlledOutput()); got != "" {
		t.Fatalf("an exact run failed: %s", got)
	}
	b := run()
	miss := false
	b.RequestTimings[2].ControlledOutput = &artifact.ControlledOutput{CaptureComplete: true, ExactAdherence: &miss, ObservedCodeWords: 30, ObservedExtraWords: 2, Policy: "observe", RequestedWords: 32, Passed: true}
	b.RequestTimings[4].ControlledOutput = &artifact.ControlledOutput{CaptureComplete: false, Policy: "observe", RequestedWords: 32, Passed: true}
	got := failureOf(t, b, AdhereToControlledOutput())
	for _, want := range []string{"2 of 6 responses missed exactly 32 code words", "request 2: 30 code words and 2 other words", "request 4: capture truncated"} {
		if !strings.Contains(got, want) {
			t.Errorf("message %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "observe") {
		t.Errorf("two misses of six suggest observe: %q", got)
	}
	// Most answers miss: the model does not follow the instruction, and observe is named.
	for _, i := range []int{0, 1, 3, 4} {
		b.RequestTimings[i].ControlledOutput = b.RequestTimings[2].ControlledOutput
	}
	if got := failureOf(t, b, AdhereToControlledOutput()); !strings.Contains(got, "ANVIL_CONTROLLED_OUTPUT_POLICY=observe") {
		t.Errorf("five misses of six do not name observe: %q", got)
	}
	b = run()
	b.ResponseWords = 0
	if got := failureOf(t, b, AdhereToControlledOutput()); !strings.Contains(got, "asked for no controlled output") {
		t.Errorf("a run without controlled output must error: %q", got)
	}
}

func TestHaveStreamedAnswers(t *testing.T) {
	t.Parallel()
	b := run()
	for i := range b.RequestTimings {
		b.RequestTimings[i].ContentChunks, b.RequestTimings[i].GenerationMs = 33, 160
	}
	if got := failureOf(t, b, HaveStreamedAnswers()); got != "" {
		t.Fatalf("streamed answers failed: %s", got)
	}
	for i := range b.RequestTimings {
		b.RequestTimings[i].GenerationMs = 0
	}
	want := "6 of the 6 answers of 4 or more output chunks were not streamed: each arrived at once"
	if got := failureOf(t, b, HaveStreamedAnswers()); !strings.HasPrefix(got, want) {
		t.Errorf("got %q\nwant it to start %q", got, want)
	}
}

func TestHaveOneServedModel(t *testing.T) {
	t.Parallel()
	b := run()
	b.Model = "m"
	b.Extension = &artifact.Extension{ServedModels: map[string]int{"m": 6}}
	if got := failureOf(t, b, HaveOneServedModel()); got != "" {
		t.Fatalf("one model failed: %s", got)
	}
	b.Extension.ServedModels = map[string]int{"m": 4, "m-small": 2}
	want := `the responses named 2 models, 4 "m", 2 "m-small" (requested "m")`
	if got := failureOf(t, b, HaveOneServedModel()); !strings.HasPrefix(got, want) {
		t.Errorf("got %q\nwant it to start %q", got, want)
	}
}

func TestHaveHadTheEngineToItself(t *testing.T) {
	t.Parallel()
	b := run()
	for i := range b.RequestTimings {
		b.RequestTimings[i].PromptTokens, b.RequestTimings[i].OutputTokens, b.RequestTimings[i].OutputTokenSource = new(100), new(33), "usage"
	}
	b.Extension = &artifact.Extension{EngineMetrics: artifact.EngineMetrics{Scraped: true,
		RunningAtStart: artifact.F(0), PromptTokens: artifact.F(600), GenerationTokens: artifact.F(198)}}
	if got := failureOf(t, b, HaveHadTheEngineToItself()); got != "" {
		t.Fatalf("an engine alone with the run failed: %s", got)
	}
	b.Extension.EngineMetrics.GenerationTokens = artifact.F(400)
	want := "generated tokens: the engine counted 400, the run's 6 responses reported 198: 202 more (102.0%; bound 2% + 1 per request) were another workload's"
	if got := failureOf(t, b, HaveHadTheEngineToItself()); !strings.Contains(got, want) {
		t.Errorf("got %q\nwant it to hold %q", got, want)
	}
}

// HaveClientKeptUp and Check judge with the gate's own check: a client that wanted more
// CPU than its bound fails with the figure and the bound, and any check made a matcher
// reads as the check's own words.
func TestClientKeptUpAndAnyCheck(t *testing.T) {
	t.Parallel()
	b := run()
	b.Extension = &artifact.Extension{ClientOverhead: artifact.ClientOverhead{Cores: 1, CPUSharePct: artifact.F(39), CPUWaitPct: artifact.F(70)}}
	want := "the client wanted 109% of the 1 core it may use during the request phase (39% running, 70% waiting for a core; bound 90%)"
	if got := failureOf(t, b, HaveClientKeptUp(gate.ClientBounds{})); !strings.Contains(got, want) {
		t.Errorf("HaveClientKeptUp: %q, want %q", got, want)
	}
	if got := failureOf(t, b, HaveClientKeptUp(gate.ClientBounds{MaxCPUPct: 120})); got != "" {
		t.Errorf("within a bound of 120%%: %q", got)
	}
	if got := failureOf(t, b, Check(gate.ClientKeptUp(gate.ClientBounds{}))); !strings.Contains(got, want) {
		t.Errorf("Check: %q, want %q", got, want)
	}
	if got := failureOf(t, b, Check(gate.NoFailedRequests())); got != "" {
		t.Errorf("Check of a held check: %q", got)
	}
}

// HaveMeasuredAWarmEngine fails on a warm-up whose last requests were still slow.
func TestHaveMeasuredAWarmEngine(t *testing.T) {
	t.Parallel()
	b := run()
	b.Metrics.TPOT.P50 = artifact.F(5)
	b.Extension = &artifact.Extension{Warmup: &artifact.Warmup{Requests: 32, LastRequests: 8, LastTPOTP50Ms: artifact.F(12)}}
	if got := failureOf(t, b, HaveMeasuredAWarmEngine()); !strings.Contains(got, "the engine was still cold when the measured phase began") {
		t.Errorf("a cold warm-up: %q", got)
	}
	b.Extension.Warmup.LastTPOTP50Ms = artifact.F(5.2)
	if got := failureOf(t, b, HaveMeasuredAWarmEngine()); got != "" {
		t.Errorf("a warm warm-up: %q", got)
	}
}
