package report_test

import (
	"fmt"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/reporters/report"
)

// Build a report from artifacts and a gate summary, as WriteDir does from an output
// directory, and render its Markdown to any writer.
func ExampleBuild() {
	run := func(name string, tpot float64) report.Run {
		b := &artifact.Benchmark{Schema: artifact.Schema, BaseURL: "http://127.0.0.1:8000/v1", Model: "my-model",
			Requests: 20, Concurrency: 4, ContextTokens: new(8000), Completed: 20,
			Extension: &artifact.Extension{Scenario: name, Complete: true}}
		b.Metrics.TPOT = artifact.Distribution{Samples: 20, P50: artifact.F(tpot)}
		return report.Run{Path: "scenarios/" + name + ".json", Benchmark: b}
	}
	verdict := &gate.Summary{RunID: "run-1", Suites: []gate.SuiteState{{Name: "engine", State: gate.SuiteFinished, Checks: 8}},
		Failed: []gate.Failure{{Check: "scenario agent-16k meets the budget tpot_p50_ms<=6", Kind: gate.KindBudget,
			Message: "tpot p50 7.20ms exceeds budget 6.00ms over 20 samples", Outcome: gate.BudgetBroken}}}
	verdict.Judge()
	m, err := report.Build(report.Input{
		Runs: []report.Run{run("agent-16k", 7.2), run("short-chat", 5.1)},
		Gate: verdict,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Verdict.Headline())
	for _, s := range m.Scenarios {
		fmt.Printf("%s: %s, tpot p50 %s\n", s.Name, s.Workload, s.Figures[2].Text)
	}
	var md strings.Builder
	if err := m.WriteMarkdown(&md); err != nil { // m.WriteHTML writes the page
		fmt.Println(err)
	}
	first, _, _ := strings.Cut(md.String(), "\n")
	fmt.Println(first)
	// Output:
	// FAIL (budget broken): scenario agent-16k meets the budget tpot_p50_ms<=6: tpot p50 7.20ms exceeds budget 6.00ms over 20 samples
	// agent-16k: 20 × 4 at 8,000 tok, tpot p50 7.20 ms
	// short-chat: 20 × 4 at 8,000 tok, tpot p50 5.10 ms
	// # ❌ FAIL (budget broken): scenario agent-16k meets the budget tpot_p50_ms<=6: tpot p50 7.20ms exceeds budget 6.00ms over 20 samples
}
