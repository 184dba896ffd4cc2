package gate

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
)

// synthetic is an artifact of n successful requests whose TPOT is tpot·(1 + jitter·Z).
func synthetic(n int, tpot, jitter float64, seed uint64) *artifact.Benchmark {
	rng := rand.New(rand.NewPCG(seed, 1))
	a := &artifact.Benchmark{
		Schema: artifact.Schema, MeasurementProtocol: artifact.ProtocolV3, Model: "m", Requests: n, Completed: n, Concurrency: 4,
		ContextTokens: new(4096), ContextDistribution: map[string]int{"4096": n}, MaxTokens: 64, ResponseWords: 32,
		ControlledOutputPolicy: "strict", PromptCacheMode: "unique", ServeFlags: artifact.ServeFlags{ThinkingMode: "unsupported"},
	}
	var tpots []float64
	for i := range n {
		t := tpot * (1 + jitter*rng.NormFloat64())
		tpots = append(tpots, t)
		a.RequestTimings = append(a.RequestTimings, artifact.RequestTiming{RequestIndex: i, TTFTMs: 200, TimeToFirstOutputMs: 200,
			E2EMs: artifact.Float(200 + 32*t), GenerationMs: artifact.Float(32 * t), TPOTMs: artifact.F(t), OutputTokens: new(33)})
	}
	slices.Sort(tpots)
	a.Metrics.TPOT = artifact.Distribution{Samples: n, P50: artifact.F(tpots[(n+1)/2-1]), P95: artifact.F(tpots[n-1])}
	return a
}

func TestPrecedenceAndExitCodes(t *testing.T) {
	t.Parallel()
	want := map[Outcome]int{Pass: 0, Regression: 1, NotComparable: 2, BudgetBroken: 3, RunFailed: 4, Inconclusive: 5, InvalidRun: 6, "from a newer version": 4}
	for o, code := range want {
		if o.ExitCode() != code {
			t.Errorf("%s exits %d, want %d", o, o.ExitCode(), code)
		}
	}
	if got := worstOf(BudgetBroken, Regression, Inconclusive); got != Regression {
		t.Errorf("a regression and a broken budget: %s wins, want regression", got)
	}
	if got := worstOf(Inconclusive, BudgetBroken); got != BudgetBroken {
		t.Errorf("a definite finding outranks inconclusive: %s", got)
	}
	if got := worstOf(NotComparable, InvalidRun, RunFailed); got != RunFailed {
		t.Errorf("%s", got)
	}
	if worstOf() != Pass {
		t.Error("no outcome is a pass")
	}
}

// The kind of a failure comes from what failed: a budget with no figure because requests
// failed is a failed run, too few samples without failures is inconclusive.
func TestBudgetOutcomeComesFromWhatFailed(t *testing.T) {
	t.Parallel()
	b, _ := budget.Parse("tpot_p50_ms<=4, tpot_p95_ms<=9")
	run := synthetic(8, 5, 0.01, 1)
	if r := MeetBudget(b[0]).Judge(run); r.Outcome != BudgetBroken || !r.Judged || !strings.Contains(r.Message, "exceeds budget 4.00ms over 8 samples") {
		t.Errorf("broken: %+v", r)
	}
	if r := MeetBudget(b[1]).Judge(run); r.Outcome != Inconclusive || r.Judged {
		t.Errorf("8 samples for a p95: %+v", r)
	}
	failed := synthetic(8, 5, 0.01, 1)
	failed.RequestTimings, failed.Completed, failed.Failed = nil, 0, 8
	failed.Failures = []artifact.Failure{{RequestIndex: 0, ErrorType: "http_error"}}
	failed.Metrics.TPOT = artifact.Distribution{}
	if r := MeetBudget(b[0]).Judge(failed); r.Outcome != RunFailed || !strings.Contains(r.Message, "8 of 8 requests failed") {
		t.Errorf("no figure, failed requests: %+v", r)
	}
	if r := MeetBudget(b[0]).Judge(nil); r.Outcome != RunFailed || r.Check != "meets the budget tpot_p50_ms<=4" || r.Kind != KindBudget {
		t.Errorf("no artifact: %+v", r)
	}
}

func TestRegressionOutcomes(t *testing.T) {
	t.Parallel()
	base := synthetic(60, 5, 0.05, 2)
	how := Comparison{By: 0.05, RunCV: 0.001} // a spread between sessions measured to be tiny
	if r := NoRegression(Against{Baseline: base}, "tpot_p50_ms", how).Judge(synthetic(60, 5.5, 0.05, 3)); r.Outcome != Regression || r.Resolution.Design != "stored run" {
		t.Errorf("10%% slower: %+v", r)
	}
	if r := NoRegression(Against{Baseline: base}, "tpot_p50_ms", how).Judge(synthetic(60, 5, 0.05, 4)); r.Outcome != Pass {
		t.Errorf("unchanged: %+v", r)
	}
	// At the default spread between sessions one run against one stored run resolves no
	// 5% change: inconclusive, naming the interleaved pairs that would.
	how.RunCV = 0
	r := NoRegression(Against{Baseline: base}, "tpot_p50_ms", how).Judge(synthetic(60, 5, 0.05, 4))
	if r.Outcome != Inconclusive || r.Judged || r.Resolution.PairsNeeded < 2 || !strings.Contains(r.Message, "interleaved pairs against the baseline build would") {
		t.Errorf("one stored run: %+v", r)
	}
	how.OnInconclusive = InconclusivePass
	if r := NoRegression(Against{Baseline: base}, "tpot_p50_ms", how).Judge(synthetic(60, 5, 0.05, 4)); r.Outcome != Pass || r.Noted != notedInconclusive || !strings.Contains(r.Message, "inconclusive") {
		t.Errorf("inconclusive allowed: %+v", r)
	}
	if r := NoRegression(Against{Baseline: synthetic(4, 5, 0.05, 7)}, "tpot_p50_ms", Comparison{}).Judge(base); r.Outcome != NotComparable {
		t.Errorf("a 4-request baseline: %+v", r)
	}
}

// Against main's history, a run of main's own (gate_on_main) reports a step and an
// inconclusive comparison without failing; a pull request's run fails on both. A history
// too short to measure a spread is noted, for either.
func TestARunOfMainsOwnHistoryReportsItsStep(t *testing.T) {
	t.Parallel()
	history := func(factors ...float64) []*artifact.Benchmark {
		var runs []*artifact.Benchmark
		for k, f := range factors {
			a := synthetic(60, 5*f, 0.05, uint64(10+k))
			a.StartedAtUnixNs = int64(k+1) * 1e9
			runs = append(runs, a)
		}
		return runs
	}
	steady := history(1, 1.01, 0.99, 1.005, 0.995, 1)
	slower := synthetic(60, 6.5, 0.05, 40) // 30% slower
	for _, onMain := range []bool{false, true} {
		how := Comparison{By: 0.05, OnMain: onMain}
		r := NoRegression(Against{History: steady, Metrics: 1}, "tpot_p50_ms", how).Judge(slower)
		switch {
		case !onMain && r.Outcome != Regression:
			t.Errorf("a pull request 30%% slower than main's history: %+v", r)
		case onMain && (r.Outcome != Pass || r.Noted != notedMainStepped || !strings.Contains(r.Message, "regressed")):
			t.Errorf("main 30%% slower than its own history: %+v", r)
		}
		wide := history(0.9, 1, 1.1)
		r = NoRegression(Against{History: wide, Metrics: 1}, "tpot_p50_ms", how).Judge(synthetic(60, 5, 0.05, 41))
		switch {
		case !onMain && r.Outcome != Inconclusive:
			t.Errorf("a pull request against 3 runs 10%% apart: %+v", r)
		case onMain && (r.Outcome != Pass || r.Noted != notedMainInconclusive || !strings.Contains(r.Message, "inconclusive")):
			t.Errorf("main against 3 runs of its own 10%% apart: %+v", r)
		}
		// What a history resolves is known before the run: said to a pull request, not on main.
		spec := Spec{BaselinePath: "main-runs", History: wide, Metrics: metricList{"tpot_p50_ms"}, Comparison: how}
		if reach := spec.HistoryReach(); onMain != (reach == "") || !onMain && !regexp.MustCompile(`^its history of 3 runs resolves tpot p50 to [0-9.]+% at best, not the 5.0% gate: (a history of [0-9]+ runs would|no history can)`).MatchString(reach) {
			t.Errorf("on main %v, told before the run: %q", onMain, reach)
		}
		if spec.History = steady; spec.HistoryReach() != "" {
			t.Errorf("a history that resolves the gate: %q", spec.HistoryReach())
		}
		r = NoRegression(Against{History: steady[:2], Metrics: 1}, "tpot_p50_ms", how).Judge(slower)
		if r.Outcome != Pass || r.Noted != notedShortHistory || !strings.Contains(r.Skipped, "holds 2 comparable runs") {
			t.Errorf("on main %v, a history of 2: %+v", onMain, r)
		}
	}
}

func TestRefusalsBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	b, _ := budget.Parse("tpot_p99_ms<=9, tpot_p50_ms<=9")
	s := DefaultSpec()
	s.Budgets, s.Baseline, s.BaselinePath = b, synthetic(4, 5, 0.05, 8), "base.json"
	got := s.Refusals(60, 1)
	if len(got) != 3 {
		t.Fatalf("refusals %+v, want the p99 budget and both gated metrics", got)
	}
	if got[0].Outcome != RunFailed || !strings.Contains(got[0].Message, "needs 100 samples but the scenario sends 60 requests") {
		t.Errorf("p99 budget: %+v", got[0])
	}
	for _, r := range got[1:] {
		if r.Outcome != NotComparable || !strings.Contains(r.Message, "the baseline has 4 requests with a figure") {
			t.Errorf("4-request baseline: %+v", r)
		}
	}
	// An upper bound of a p95 needs 72 samples in one block; over blocks it is theirs.
	b, _ = budget.Parse("ttft_p95_ms<=4000@upper95")
	s = DefaultSpec()
	s.Budgets = b
	if got := s.Refusals(60, 1); len(got) != 1 || !strings.Contains(got[0].Message, "needs 72 samples for its upper95 but the scenario sends 60 requests in one block") {
		t.Errorf("a p95 bound over 60 requests: %+v", got)
	}
	if got := s.Refusals(72, 1); len(got) != 0 {
		t.Errorf("a p95 bound over 72 requests: %+v", got)
	}
	if got := s.Refusals(60, 3); len(got) != 0 {
		t.Errorf("a p95 bound over 3 blocks: %+v", got)
	}
	// A p95 needs 20 samples: 16 requests are too few, 3 blocks of 16 are 48.
	b, _ = budget.Parse("ttft_p95_ms<=1500")
	s.Budgets = b
	if got := s.Refusals(16, 1); len(got) != 1 || !strings.Contains(got[0].Message, "needs 20 samples but the scenario sends 16 requests: send more") {
		t.Errorf("a p95 over 16 requests: %+v", got)
	}
	if got := s.Refusals(48, 3); len(got) != 0 {
		t.Errorf("a p95 over 3 blocks of 16: %+v", got)
	}
	if got := s.Refusals(12, 3); len(got) != 1 || !strings.Contains(got[0].Message, "sends 12 requests in 3 blocks") {
		t.Errorf("a p95 over 3 blocks of 4: %+v", got)
	}
}

func TestChecksOfASpec(t *testing.T) {
	t.Parallel()
	b, _ := budget.Parse("tpot_p50_ms<=6")
	s := DefaultSpec()
	s.Budgets, s.Baseline, s.BaselinePath = b, synthetic(60, 5, 0.05, 9), "base.json"
	var names []string
	for _, c := range s.Checks() {
		names = append(names, c.Name)
	}
	want := []string{"completes every request", "answers with exactly the requested words", "streams its answers", "is served by one model", "serves the thinking mode asked for", "is served the planned context within 2.0%",
		"was measured by a client that kept up", "had the engine to itself", "stops the requests its clients leave", "counts images as the rule says", "measured a warm engine", "measured GPUs that held their clocks", "held a steady state", "made one valid call of its tool", "answers with valid JSON of its schema",
		"serves from its prefix cache what the workload shares",
		"meets the budget tpot_p50_ms<=6", "runs the baseline's workload",
		"does not regress tpot_p50_ms from the baseline (fails a significant change over 2.5%, resolves 5%)", "does not regress ttft_p50_ms from the baseline (fails a significant change over 2.5%, resolves 5%)"}
	if !slices.Equal(names, want) {
		t.Errorf("checks %q\nwant %q", names, want)
	}
	observed := synthetic(8, 5, 0.01, 10)
	observed.ControlledOutputPolicy = "observe"
	if r := s.Checks()[1].Judge(observed); r.Skipped == "" || !r.Passed() {
		t.Errorf("strict adherence under observe: %+v", r)
	}
}

func TestClientKeptUp(t *testing.T) {
	t.Parallel()
	run := synthetic(8, 5, 0.01, 11)
	run.Extension = &artifact.Extension{ClientOverhead: artifact.ClientOverhead{Cores: 1, CPUSharePct: artifact.F(39), CPUWaitPct: artifact.F(70),
		StartLagSharePct: artifact.F(0.5), StartLagP99Ms: artifact.F(4), StartLagMaxMs: artifact.F(6), StartLagSamples: 8}}
	r := ClientKeptUp(ClientBounds{}).Judge(run)
	if r.Outcome != InvalidRun || !strings.Contains(r.Message, "the client wanted 109% of the 1 core it may use during the request phase (39% running, 70% waiting for a core; bound 90%)") {
		t.Errorf("starved: %+v", r)
	}
	run.Extension.ClientOverhead.CPUWaitPct = artifact.F(5)
	if r := ClientKeptUp(ClientBounds{}).Judge(run); r.Outcome != Pass {
		t.Errorf("unhindered: %+v", r)
	}
	run.Extension.ClientOverhead.StartLagSharePct = artifact.F(12)
	if r := ClientKeptUp(ClientBounds{MaxStartLagPct: 10}).Judge(run); r.Outcome != InvalidRun || !strings.Contains(r.Message, "held requests back 12.0% of the time") {
		t.Errorf("lagging: %+v", r)
	}
}

// A summary fails closed: a suite that started and never reported, a variable no spec
// used, and a run that judged nothing are each a failed run.
func TestSummaryFailsClosed(t *testing.T) {
	t.Parallel()
	s := Summary{RunID: "run-1", Variables: []string{"ANVIL_BUDGETS", "ANVIL_REQUESTS"}}
	s.Suite("capacity").Uses = []string{"ANVIL_REQUESTS", "ANVIL_BUDGETS"}
	s.Judge()
	if s.Outcome != RunFailed || !strings.Contains(s.Reason, "suite capacity started at") {
		t.Errorf("unfinished: %s %q", s.Outcome, s.Reason)
	}
	s.FinishSuite("capacity", 0, nil, nil)
	if s.Outcome != RunFailed || !strings.Contains(s.Reason, "no check ran") {
		t.Errorf("nothing judged: %s %q", s.Outcome, s.Reason)
	}
	s.FinishSuite("capacity", 5, []Failure{{Suite: "capacity", Check: "meets the budget tpot_p50_ms<=1", Kind: KindBudget, Outcome: BudgetBroken, Message: "tpot p50 5.00ms exceeds budget 1.00ms over 60 samples"}}, nil)
	if s.Outcome != BudgetBroken || s.ExitCode != 3 || s.Reason != "meets the budget tpot_p50_ms<=1: tpot p50 5.00ms exceeds budget 1.00ms over 60 samples" {
		t.Errorf("broken budget: %s %d %q", s.Outcome, s.ExitCode, s.Reason)
	}
	s.Suite("curves").Uses = []string{"ANVIL_REQUESTS"}
	s.FinishSuite("curves", 3, nil, nil)
	s.Suites[0].Uses = []string{"ANVIL_REQUESTS"}
	s.Judge()
	if s.Outcome != RunFailed || !slices.Equal(s.Unused, []string{"ANVIL_BUDGETS"}) || !strings.Contains(s.Reason, "ANVIL_BUDGETS is set but no spec of this run used it") {
		t.Errorf("unused: %s %v %q", s.Outcome, s.Unused, s.Reason)
	}
}

// The constants a program reads are the defaults the tags give the configuration.
func TestDefaultsAreTheTagsDefaults(t *testing.T) {
	t.Parallel()
	s := DefaultSpec()
	if s.By != defaultBy || s.ContextTolerance != defaultContextTolerance || s.OnInconclusive != defaultOnInconclusive ||
		s.Client.MaxCPUPct != defaultMaxClientCPUPct || s.Client.MaxStartLagPct != defaultMaxStartLagPct ||
		!slices.Equal(s.Metrics, defaultMetrics()) {
		t.Errorf("DefaultSpec %+v", s)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("the defaults are invalid: %v", err)
	}
}

func TestPlannedPrefixCache(t *testing.T) {
	t.Parallel()
	span := func(i, cached, lo, hi int) artifact.RequestSpan {
		return artifact.RequestSpan{RequestIndex: i, Outcome: "ok", TraceLine: new(i + 1), CachedTokens: new(cached),
			PromptTokens: new(1000), ExpectedCachedMin: new(lo), ExpectedCachedMax: new(hi)}
	}
	run := func(spans ...artifact.RequestSpan) *artifact.Benchmark {
		return &artifact.Benchmark{Requests: len(spans), Extension: &artifact.Extension{Timeline: spans, CacheBlockTokens: 16}}
	}
	check := PlannedPrefixCache()
	if r := check.Judge(run(span(0, 0, 0, 0), span(1, 512, 512, 512), span(2, 520, 512, 760))); !r.Passed() || r.Skipped != "" {
		t.Errorf("as planned: %+v", r)
	}
	r := check.Judge(run(span(0, 0, 0, 0), span(1, 0, 512, 512), span(2, 800, 512, 760)))
	if r.Outcome != RunFailed || !strings.Contains(r.Message, "2 of 3 requests") ||
		!strings.Contains(r.Message, "request 1 (trace line 2): cached 0 tokens, the workload shares 512") ||
		!strings.Contains(r.Message, "request 2 (trace line 3): cached 800 tokens, the workload shares 512 to 760") {
		t.Errorf("off the plan: %+v", r)
	}
	// Within a cache block either side holds: an engine caches whole blocks.
	if r := check.Judge(run(span(0, 497, 512, 512))); !r.Passed() {
		t.Errorf("15 tokens short: %+v", r)
	}
	// Without cached tokens in usage, the engine's metrics judge the total.
	none := run(artifact.RequestSpan{RequestIndex: 0, Outcome: "ok", PromptTokens: new(1000), ExpectedCachedMin: new(512), ExpectedCachedMax: new(512)})
	if r := check.Judge(none); !r.Passed() || r.Skipped == "" {
		t.Errorf("nothing reported: %+v", r)
	}
	none.Extension.EngineMetrics = artifact.EngineMetrics{PrefixCacheHitRate: artifact.F(0), PromptTokens: artifact.F(1000)}
	if r := check.Judge(none); r.Outcome != RunFailed || !strings.Contains(r.Message, "did not serve the shared prefixes") {
		t.Errorf("no hits in the metrics: %+v", r)
	}
	none.Extension.EngineMetrics.PrefixCacheHitRate = artifact.F(0.5)
	if r := check.Judge(none); !r.Passed() {
		t.Errorf("hits in the metrics: %+v", r)
	}
}

func TestStructuredOutputChecks(t *testing.T) {
	t.Parallel()
	run := func(policy string, output string) *artifact.Benchmark {
		return &artifact.Benchmark{Requests: 3, ControlledOutputPolicy: policy,
			Failures: []artifact.Failure{{RequestIndex: 1, ErrorType: "structured_output_mismatch", ResponseReceived: true,
				ErrorMessage: "structured output validation failed: the arguments are not valid JSON: unexpected EOF"}},
			Extension: &artifact.Extension{StructuredOutput: &artifact.StructuredOutput{Output: output, Responses: 3, Valid: 1},
				Timeline: []artifact.RequestSpan{{RequestIndex: 0}, {RequestIndex: 1}, {RequestIndex: 2, StructureProblem: new(`no tool call (text "x")`)}}}}
	}
	r := ValidToolCalls().Judge(run("strict", "tool_call"))
	if r.Outcome != RunFailed || !strings.Contains(r.Message, "2 of 3 requests did not hold a valid tool_call") ||
		!strings.Contains(r.Message, "request 1: the arguments are not valid JSON: unexpected EOF") || !strings.Contains(r.Message, `request 2: no tool call (text "x")`) {
		t.Errorf("%+v", r)
	}
	if r := ValidJSONAnswers().Judge(run("strict", "tool_call")); r.Judged || r.Passed() {
		t.Errorf("a tool-call run judged for JSON answers: %+v", r)
	}
	// In a gated scenario's checks, skipped under observe and for other outputs.
	for _, c := range DefaultSpec().Checks() {
		if c.Name == ValidToolCalls().Name {
			if r := c.Judge(run("observe", "tool_call")); r.Skipped == "" {
				t.Errorf("under observe: %+v", r)
			}
			if r := c.Judge(run("strict", "json_schema")); r.Skipped == "" {
				t.Errorf("a JSON-schema run: %+v", r)
			}
		}
	}
}

// Answers that arrive at once measured a buffer: most of them fail the run, a few are
// reported, and answers too short to tell skip the check.
func TestStreamedAnswers(t *testing.T) {
	t.Parallel()
	run := func(atOnce, streamed, short int) *artifact.Benchmark {
		a := synthetic(atOnce+streamed+short, 5, 0, 1)
		for i := range a.RequestTimings {
			r := &a.RequestTimings[i]
			switch {
			case i < atOnce:
				r.ContentChunks, r.GenerationMs, r.E2EMs, r.TPOTMs = 33, 0.004, r.TTFTMs, nil
			case i < atOnce+streamed:
				r.ContentChunks = 33
			default:
				r.ContentChunks = 3
			}
		}
		return a
	}
	c := StreamedAnswers()
	if r := c.Judge(run(6, 0, 2)); r.Outcome != RunFailed || !r.Judged ||
		!strings.Contains(r.Message, "6 of the 6 answers of 4 or more output chunks were not streamed") || !strings.Contains(r.Message, "proxy_buffering") {
		t.Errorf("every answer at once: %+v", r)
	}
	if r := c.Judge(run(4, 3, 0)); r.Outcome != RunFailed {
		t.Errorf("4 of 7 at once: %+v", r)
	}
	if r := c.Judge(run(1, 7, 0)); !r.Passed() || !r.Judged || r.Message != "7 of the 8 answers of 4 or more output chunks arrived over time; 1 arrived at once" {
		t.Errorf("1 of 8 at once: %+v", r)
	}
	if r := c.Judge(run(0, 0, 5)); !r.Passed() || r.Skipped == "" {
		t.Errorf("only short answers: %+v", r)
	}
	// A budget on the missing TPOT says why it is missing.
	b, _ := budget.Parse("tpot_p50_ms<=6")
	a := run(6, 0, 0)
	a.Metrics.TPOT = artifact.Distribution{}
	if r := MeetBudget(b[0]).Judge(a); r.Passed() || !strings.Contains(r.Message, "6 of the 6 answers of 4 or more output chunks arriving at once") {
		t.Errorf("tpot budget without tpot: %+v", r)
	}
}

// Two models naming the responses of one run fail it; one name, requested or not, passes.
func TestOneServedModel(t *testing.T) {
	t.Parallel()
	run := func(served map[string]int) *artifact.Benchmark {
		a := synthetic(8, 5, 0, 1)
		a.Model = "llama-70b"
		a.Extension = &artifact.Extension{ServedModels: served}
		return a
	}
	c := OneServedModel()
	if r := c.Judge(run(map[string]int{"llama-70b": 6, "llama-8b": 2})); r.Outcome != RunFailed || !r.Judged ||
		!strings.Contains(r.Message, `the responses named 2 models, 6 "llama-70b", 2 "llama-8b" (requested "llama-70b")`) {
		t.Errorf("two models: %+v", r)
	}
	if r := c.Judge(run(map[string]int{"llama-70b": 8})); !r.Passed() || r.Message != `all 8 responses named the requested model "llama-70b"` {
		t.Errorf("the requested model: %+v", r)
	}
	if r := c.Judge(run(map[string]int{"default": 8})); !r.Passed() || !strings.Contains(r.Message, `named the model "default", not the requested "llama-70b"`) {
		t.Errorf("a default name: %+v", r)
	}
	if r := c.Judge(run(nil)); !r.Passed() || r.Skipped == "" {
		t.Errorf("no name: %+v", r)
	}
}

// The thinking mode asked for is the one served: reasoning with it enabled, none with it
// disabled; a run that asked for none is not judged.
func TestThinkingAsAsked(t *testing.T) {
	t.Parallel()
	run := func(mode string, reasoning ...int) *artifact.Benchmark {
		a := synthetic(len(reasoning), 5, 0, 1)
		a.ServeFlags.ThinkingMode = mode
		for i, n := range reasoning {
			a.RequestTimings[i].ReasoningChunks = n
		}
		return a
	}
	c := ThinkingAsAsked()
	if r := c.Judge(run("enabled", 0, 0, 0)); r.Outcome != RunFailed || !strings.Contains(r.Message, "none of the 3 responses streamed reasoning") {
		t.Errorf("enabled, no reasoning: %+v", r)
	}
	if r := c.Judge(run("disabled", 0, 12, 0)); r.Outcome != RunFailed || !strings.Contains(r.Message, "1 of the 3 responses streamed reasoning") {
		t.Errorf("disabled, reasoning: %+v", r)
	}
	if r := c.Judge(run("enabled", 16, 0, 16)); !r.Passed() || r.Message != "thinking enabled: 2 of the 3 responses streamed reasoning" {
		t.Errorf("enabled, reasoning: %+v", r)
	}
	if r := c.Judge(run("disabled", 0, 0)); !r.Passed() || !r.Judged {
		t.Errorf("disabled, none: %+v", r)
	}
	if r := c.Judge(run("default", 16)); !r.Passed() || r.Skipped == "" {
		t.Errorf("no mode asked: %+v", r)
	}
}
