package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/reporters"
)

// Ungated is the outcome of a run that no gate judged: no gate spec ran and no budget was
// given.
const Ungated = "ungated"

// Verdict is the report's first word: whether the run passed and, when not, every check
// that failed with its figure, bound and sample count.
type Verdict struct {
	// Outcome is the gate outcome (reporters.GatePass, reporters.GateBudgetBroken, ...) or
	// Ungated.
	Outcome string
	// Word is "PASS", "FAIL" or "NOT GATED"; Summary says what was judged.
	Word, Summary string
	// Failed are the checks that did not pass, most severe first.
	Failed []Check
	// Basis says where the verdict comes from.
	Basis string
}

// Check is one failed check: a gate spec, or a budget the report judged.
type Check struct {
	Name    string
	Outcome string
	Message string
}

// Pass reports whether the run passed its gate.
func (v Verdict) Pass() bool { return v.Outcome == reporters.GatePass }

// Class is the verdict's CSS class: "pass", "fail" or "ungated".
func (v Verdict) Class() string {
	switch v.Outcome {
	case reporters.GatePass:
		return "pass"
	case Ungated:
		return "ungated"
	}
	return "fail"
}

// OutcomeText is the outcome for people: "budget broken".
func OutcomeText(outcome string) string { return strings.ReplaceAll(outcome, "_", " ") }

// FirstLine is the check's message up to its first line break.
func (c Check) FirstLine() string {
	line, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
	return strings.TrimSpace(line)
}

// Headline is the verdict in one line: "PASS: 13 gate checks held" or
// "FAIL (budget broken): <check>: <figure, bound and samples> (and 2 more)".
func (v Verdict) Headline() string {
	if len(v.Failed) == 0 {
		return v.Word + ": " + v.Summary
	}
	first := v.Failed[0]
	s := fmt.Sprintf("%s (%s): %s", v.Word, OutcomeText(first.Outcome), first.Name)
	if line := first.FirstLine(); line != "" {
		s += ": " + line
	}
	if n := len(v.Failed) - 1; n > 0 {
		s += fmt.Sprintf(" (and %d more)", n)
	}
	return s
}

// verdictOf judges the run: the gate summary when there is one; else the budgets against
// the endpoint's runs; else nothing is gated.
func verdictOf(in Input, runs []*RunView) Verdict {
	if g := in.Gate; g != nil && g.Specs == 0 && len(g.Failed) == 0 {
		return Verdict{Outcome: Ungated, Word: "NOT GATED", Basis: reporters.GateFileName + ": every gate spec was skipped or filtered out",
			Summary: fmt.Sprintf("%s measured, no gate check ran", plural(len(runs), "scenario", "scenarios"))}
	}
	if g := in.Gate; g != nil {
		v := Verdict{Outcome: g.Outcome, Word: "PASS", Basis: fmt.Sprintf("%s: the gate specs of %s", reporters.GateFileName, plural(len(g.SuiteSpecs), "suite", "suites"))}
		if g.Outcome != reporters.GatePass {
			v.Word = "FAIL"
		}
		v.Summary = fmt.Sprintf("%s held", plural(g.Specs-len(g.Failed), "gate check", "gate checks"))
		if len(g.Failed) > 0 {
			v.Summary = fmt.Sprintf("%s of %s failed", plural(len(g.Failed), "gate check", "gate checks"), fmtInt(g.Specs))
		}
		for _, f := range g.Failed {
			v.Failed = append(v.Failed, Check{Name: f.Spec, Outcome: f.Outcome, Message: f.Message})
		}
		bySeverity(v.Failed)
		return v
	}
	if len(in.Budgets) == 0 {
		v := Verdict{Outcome: Ungated, Word: "NOT GATED", Basis: "no gate spec ran and no budget was given",
			Summary: fmt.Sprintf("%s measured, not judged", plural(len(runs), "scenario", "scenarios"))}
		if n := failedRuns(runs); n > 0 {
			v.Summary += fmt.Sprintf("; %s had failed requests", plural(n, "scenario", "scenarios"))
		}
		return v
	}
	v := Verdict{Outcome: reporters.GatePass, Word: "PASS", Basis: "the budgets, judged by the report against every scenario of the endpoint"}
	checks := 0
	for _, r := range runs {
		checks++
		if r.B.Failed > 0 {
			v.Failed = append(v.Failed, Check{Name: r.Name + " completes every request", Outcome: reporters.GateRunFailed,
				Message: fmt.Sprintf("%d of %d requests failed", r.B.Failed, r.B.Requests)})
		}
	}
	for _, r := range runs {
		for _, b := range in.Budgets {
			checks++
			if j := budget.Judge(b, r.B); j.Err != nil || !j.Pass {
				v.Failed = append(v.Failed, Check{Name: r.Name + " meets the budget " + b.String(), Outcome: reporters.GateBudgetBroken, Message: j.Message()})
			}
		}
	}
	v.Summary = fmt.Sprintf("%s held", plural(checks, "check", "checks"))
	if len(v.Failed) > 0 {
		bySeverity(v.Failed)
		v.Word, v.Outcome = "FAIL", v.Failed[0].Outcome
		v.Summary = fmt.Sprintf("%s of %s failed", plural(len(v.Failed), "check", "checks"), fmtInt(checks))
	}
	return v
}

// severity ranks the gate outcomes, most severe first.
var severity = map[string]int{reporters.GateRunFailed: 0, reporters.GateNotComparable: 1, reporters.GateRegression: 2, reporters.GateBudgetBroken: 3}

// bySeverity sorts checks most severe first; an outcome it does not know counts as a failed
// run.
func bySeverity(checks []Check) {
	for i, c := range checks {
		if _, ok := severity[c.Outcome]; !ok {
			checks[i].Outcome = reporters.GateRunFailed
		}
	}
	slices.SortStableFunc(checks, func(a, b Check) int { return severity[a.Outcome] - severity[b.Outcome] })
}

func failedRuns(runs []*RunView) int {
	n := 0
	for _, r := range runs {
		if r.B.Failed > 0 {
			n++
		}
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmtInt(n) + " " + many
}
