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
	verdict.FinishSuite("example", judged, failed)
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
