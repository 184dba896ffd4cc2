package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

// ungatedView is the outcome of a directory no run judged and no budget was given for: a
// report of artifacts alone (e.g. merged ones).
const ungatedView gate.Outcome = "ungated"

// verdictView is the report's first word: whether the run passed and, when not, every check
// that failed with its figure, bound and sample count.
type verdictView struct {
	// Outcome is the run's gate outcome, or Ungated.
	Outcome gate.Outcome
	// Word is "PASS", "FAIL" or "NOT GATED"; Summary says what was judged.
	Word, Summary string
	// Failed are the checks that did not pass, most severe first; Noted those that held
	// or were skipped with a note (Notes, in order: inconclusive passed by
	// gate_inconclusive=pass, no baseline yet), each message beginning with its note.
	Failed, Noted []checkView
	Notes         []string
	// Basis says where the verdict comes from.
	Basis string
}

// checkView is one failed check: a gated spec, a set-up step, or a budget the report judged.
type checkView struct {
	Name    string
	Outcome gate.Outcome
	Message string
}

// Pass reports whether the run passed its gate.
func (v verdictView) Pass() bool { return v.Outcome == gate.Pass }

// Class is the verdict's CSS class: "pass", "fail" or "ungated".
func (v verdictView) Class() string {
	switch v.Outcome {
	case gate.Pass:
		return "pass"
	case ungatedView:
		return "ungated"
	}
	return "fail"
}

// outcomeText is the outcome for people: "budget broken".
func outcomeText(outcome gate.Outcome) string { return outcome.Text() }

// FirstLine is the check's message up to its first line break.
func (c checkView) FirstLine() string {
	line, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
	return strings.TrimSpace(line)
}

// Headline is the verdict in one line: "PASS: 13 checks held" or
// "FAIL (budget broken): <check>: <figure, bound and samples> (and 2 more)".
func (v verdictView) Headline() string {
	if len(v.Failed) == 0 {
		return v.Word + ": " + v.Summary
	}
	first := v.Failed[0]
	s := fmt.Sprintf("%s (%s): %s", v.Word, outcomeText(first.Outcome), first.Name)
	if line := first.FirstLine(); line != "" {
		s += ": " + line
	}
	if n := len(v.Failed) - 1; n > 0 {
		s += fmt.Sprintf(" (and %d more)", n)
	}
	return s
}

// verdictOf judges the run: its verdict (gate.json) when the directory holds a run; a
// failed run when it holds a run without a verdict of its own; else the budgets against
// the endpoint's runs; else nothing is gated.
func verdictOf(in Input, runs []*runView) verdictView {
	if g := in.Gate; g != nil && (in.RunID == "" || g.RunID == in.RunID) {
		return fromSummary(*g, runs)
	}
	if in.RunID != "" {
		return verdictView{Outcome: gate.RunFailed, Word: "FAIL", Basis: "run " + in.RunID + " has no verdict of its own",
			Failed: []checkView{{Name: "the run", Outcome: gate.RunFailed, Message: fmt.Sprintf("%s holds no verdict of run %s: the run did not get to judge anything", runrecord.SummaryFile, in.RunID)}}}
	}
	if len(in.Budgets) == 0 {
		v := verdictView{Outcome: ungatedView, Word: "NOT GATED", Basis: "no run's verdict and no budget",
			Summary: fmt.Sprintf("%s measured, not judged", plural(len(runs), "scenario", "scenarios"))}
		if n := failedRuns(runs); n > 0 {
			v.Summary += fmt.Sprintf("; %s had failed requests", plural(n, "scenario", "scenarios"))
		}
		return v
	}
	return budgetsVerdict(in, runs)
}

// fromSummary is the verdict of a run's gate summary.
func fromSummary(g gate.Summary, runs []*runView) verdictView {
	v := verdictView{Outcome: g.Outcome, Word: "PASS", Basis: fmt.Sprintf("%s of run %s: %s", runrecord.SummaryFile, g.RunID, plural(len(g.Suites), "suite", "suites"))}
	if g.Outcome != gate.Pass {
		v.Word = "FAIL"
	}
	failures := g.Failures()
	v.Summary = fmt.Sprintf("%s held over %s", plural(g.Checks-len(g.Failed), "check", "checks"), plural(len(runs), "scenario", "scenarios"))
	if len(runs) == 0 && g.Conformance != nil {
		v.Summary = fmt.Sprintf("%s of the endpoint's conformance held", plural(g.Checks-len(g.Failed), "check", "checks"))
	}
	if len(failures) > 0 {
		v.Summary = fmt.Sprintf("%s of %s failed", plural(len(failures), "check", "checks"), fmtInt(max(g.Checks, len(failures))))
	}
	for _, f := range failures {
		v.Failed = append(v.Failed, checkView{Name: f.Check, Outcome: f.Outcome, Message: f.Message})
	}
	notes := map[string]int{}
	for _, f := range g.Noted {
		if notes[f.State]++; notes[f.State] == 1 {
			v.Notes = append(v.Notes, f.State)
		}
		v.Noted = append(v.Noted, checkView{Name: f.Check, Outcome: f.Outcome, Message: f.State + ": " + f.Message})
	}
	for _, note := range v.Notes {
		v.Summary += fmt.Sprintf("; %s %s", plural(notes[note], "check", "checks"), note)
	}
	return v
}

// budgetsVerdict judges the budgets against every run of the endpoint, as a gated
// scenario would: each run's requests, then each budget.
func budgetsVerdict(in Input, runs []*runView) verdictView {
	v := verdictView{Outcome: gate.Pass, Word: "PASS", Basis: "the budgets, judged by the report against every scenario of the endpoint"}
	checks := []gate.Check{gate.NoFailedRequests()}
	for _, b := range in.Budgets {
		checks = append(checks, gate.MeetBudget(b))
	}
	judged := 0
	for _, r := range runs {
		for _, c := range checks {
			judged++
			if res := c.Judge(r.B); !res.Passed() {
				v.Failed = append(v.Failed, checkView{Name: r.Name + " " + res.Check, Outcome: res.Outcome, Message: res.Message})
			}
		}
	}
	v.Summary = fmt.Sprintf("%s held", plural(judged, "check", "checks"))
	if len(v.Failed) > 0 {
		bySeverity(v.Failed)
		v.Word, v.Outcome = "FAIL", v.Failed[0].Outcome
		v.Summary = fmt.Sprintf("%s of %s failed", plural(len(v.Failed), "check", "checks"), fmtInt(judged))
	}
	return v
}

// bySeverity sorts checks most severe first (gate.Outcomes).
func bySeverity(checks []checkView) {
	slices.SortStableFunc(checks, func(a, b checkView) int {
		switch {
		case a.Outcome.Worse(b.Outcome):
			return -1
		case b.Outcome.Worse(a.Outcome):
			return 1
		}
		return 0
	})
}

func failedRuns(runs []*runView) int {
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
