package gate_test

import (
	"fmt"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// Judge an artifact with the checks of a gated scenario and sum them up as a run's
// verdict: the outcome that wins and its exit code.
func ExampleSpec() {
	run, err := artifact.Read("../../testdata/reference/benchmark-v1-example.json")
	if err != nil {
		panic(err)
	}
	spec := gate.DefaultSpec()
	spec.ContextTolerance = 0.06 // the original tool sized this run's prompts 5% short
	spec.Budgets, _ = budget.Parse("tpot_p50_ms<=6, tpot_p50_ms<=5")
	var failed []gate.Failure
	judged := 0
	for _, c := range spec.Checks() {
		r := c.Judge(run)
		if r.Skipped != "" {
			continue
		}
		judged++
		fmt.Printf("%s: %s\n", r.Check, r.Outcome)
		if !r.Passed() {
			failed = append(failed, gate.Failure{Check: r.Check, Kind: r.Kind, Outcome: r.Outcome, Message: r.Message})
		}
	}
	verdict := gate.Summary{RunID: "example"}
	verdict.FinishSuite("example", judged, failed, nil)
	fmt.Printf("verdict: %s (exit %d): %s\n", verdict.Outcome.Text(), verdict.ExitCode, verdict.Reason)
	// Output:
	// completes every request: pass
	// answers with exactly the requested words: pass
	// streams its answers: pass
	// is served the planned context within 6.0%: pass
	// meets the budget tpot_p50_ms<=6: pass
	// meets the budget tpot_p50_ms<=5: budget_broken
	// verdict: budget broken (exit 3): meets the budget tpot_p50_ms<=5: tpot p50 5.98ms exceeds budget 5.00ms over 6 samples
}

// Judge whether a run had the engine to itself: the engine's counters over the run set
// against the usage its responses reported.
func ExampleEngineToItself() {
	run := &artifact.Benchmark{Extension: &artifact.Extension{EngineMetrics: artifact.EngineMetrics{
		Scraped: true, RunningAtStart: artifact.F(1), WaitingAtStart: artifact.F(0),
		PromptTokens: artifact.F(4000), GenerationTokens: artifact.F(400),
	}}}
	for i := range 4 {
		run.RequestTimings = append(run.RequestTimings, artifact.RequestTiming{RequestIndex: i,
			PromptTokens: new(1000), OutputTokens: new(64), OutputTokenSource: "usage"})
	}
	r := gate.EngineToItself().Judge(run)
	fmt.Printf("%s: %s\n%s\n", r.Check, r.Outcome.Text(), r.Message)
	// Output:
	// had the engine to itself: invalid run
	// the engine held 1 request when the run began (1 running, 0 waiting); generated tokens: the engine counted 400, the run's 4 responses reported 256: 144 more (56.2%; bound 2% + 1 per request) were another workload's: the figures measured a busier engine than the workload planned
}
