package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/matchers"
	"github.com/anvilbench/anvilbench/reporters"
)

// runJudge gates an existing artifact (a merged one, typically) as the gated specs gate a
// run: requests, controlled output, context, budgets, and with a baseline comparability
// and regression. It prints each check, writes gate.json to -o and exits with the gate's
// code (0 pass, 1 regression, 2 not comparable, 3 budget broken, 4 run failed).
func runJudge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("judge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	budgets := fs.String("budgets", "", "budgets, as ANVIL_BUDGETS: tpot_p50_ms<=6, ttft_p95_ms<=1500@upper95")
	budgetsFile := fs.String("budgets-file", "", "a budgets file, as ANVIL_BUDGETS_FILE")
	baselinePath := fs.String("baseline", "", "the artifact the run must not regress from, as ANVIL_BASELINE")
	gateMetrics := fs.String("gate-metrics", "tpot_p50_ms,ttft_p50_ms", "metrics judged against the baseline")
	by := fs.Float64("by", 0.05, "the relative change that counts as a regression")
	allowMismatch := fs.Bool("allow-mismatch", false, "judge against a baseline of another workload anyway")
	tolerance := fs.Float64("context-tolerance", 0.02, "how far the counted prompt tokens may be from the plan")
	out := fs.String("o", "", "write gate.json into this directory")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: anvilbench judge [flags] ARTIFACT.json\n\n"+
			"Gates an artifact (e.g. one anvilbench merge wrote) as the gated specs gate a run.\n"+
			"Exit status: 0 pass, 1 regression, 2 not comparable, 3 budget broken, 4 run failed.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return helpOr(err, reporters.GateExitCodes[reporters.GateRunFailed])
	}
	if len(paths) != 1 {
		fs.Usage()
		return reporters.GateExitCodes[reporters.GateRunFailed]
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "anvilbench judge: "+format+"\n", a...)
		return reporters.GateExitCodes[reporters.GateRunFailed]
	}
	run, err := artifact.Read(paths[0])
	if err != nil {
		return fail("%v", err)
	}
	bs, err := budget.Parse(*budgets)
	if err != nil {
		return fail("-budgets: %v", err)
	}
	if *budgetsFile != "" {
		more, err := budget.ReadFile(*budgetsFile)
		if err != nil {
			return fail("-budgets-file: %v", err)
		}
		bs = append(bs, more...)
	}

	var checks []reporters.GateCheck
	check := func(name, kind string, m types.GomegaMatcher) {
		ok, err := m.Match(run)
		msg := ""
		switch {
		case err != nil:
			ok, msg = false, err.Error()
		case !ok:
			msg = m.FailureMessage(run)
		}
		checks = append(checks, reporters.GateCheck{Name: name, Kind: kind, Passed: ok, Message: msg})
	}
	check("completes every request", reporters.KindRequests, matchers.HaveNoFailedRequests())
	if run.ControlledOutputPolicy == "strict" {
		check("answers with exactly the requested words", reporters.KindOutput, matchers.AdhereToControlledOutput())
	}
	if run.Extension == nil || run.Extension.ContextAccuracy.Samples > 0 {
		check(fmt.Sprintf("is served the planned context within %.1f%%", 100**tolerance), reporters.KindContext, matchers.HitPlannedContext(*tolerance))
	}
	for _, b := range bs {
		check("meets the budget "+b.String(), reporters.KindBudget, matchers.MeetBudget(b))
	}
	if *baselinePath != "" {
		baseline, err := artifact.Read(*baselinePath)
		if err != nil {
			return fail("-baseline: %v", err)
		}
		if !*allowMismatch {
			check("runs the baseline's workload", reporters.KindComparable, matchers.RunTheWorkloadOf(baseline))
		}
		for m := range strings.SplitSeq(*gateMetrics, ",") {
			if m = strings.TrimSpace(m); m == "" {
				continue
			}
			gate := matchers.NotRegressFrom(baseline).On(m).By(*by)
			if *allowMismatch {
				gate = gate.AllowMismatch()
			}
			check(fmt.Sprintf("does not regress %s by %.0f%% from the baseline", m, 100**by), reporters.KindRegression, gate)
		}
	}

	summary := reporters.SummarizeChecks("judge", checks)
	for _, c := range checks {
		verdict := "pass"
		if !c.Passed {
			verdict = "FAIL: " + c.Message
		}
		fmt.Fprintf(stdout, "  [%s] %s: %s\n", c.Kind, c.Name, verdict)
	}
	fmt.Fprintf(stdout, "gate: %s (%d checks, %d failed)\n", summary.Outcome, summary.Specs, len(summary.Failed))
	if *out != "" {
		if err := artifact.WriteJSON(filepath.Join(*out, reporters.GateFileName), summary); err != nil {
			return fail("%v", err)
		}
	}
	return summary.ExitCode
}
