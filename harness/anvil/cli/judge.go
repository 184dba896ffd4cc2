package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

// runJudge gates an existing artifact (a merged one, typically) with the checks of a gated
// scenario (gate.Spec): its refusals first (a baseline it cannot be compared with, a budget
// it cannot judge), then requests, controlled output, context, the client, budgets, and
// with a baseline comparability and regression. It prints each check, writes gate.json to
// -o and exits with the gate's code.
func runJudge(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	failed := gate.RunFailed.ExitCode()
	g, ok := gateDefaults("judge", getenv, stderr)
	if !ok {
		return failed
	}
	fs := newCommand("judge", stderr, "usage: anvilbench judge [flags] ARTIFACT.json\n\n"+
		"Gates an artifact (e.g. one anvilbench merge wrote) as the gated specs gate a run.\n"+
		"Exit status: 0 pass, 1 regression, 2 not comparable, 3 budget broken, 4 run failed,\n"+
		"5 inconclusive, 6 invalid run.\n\nFlags:\n")
	budgets := fs.String("budgets", "", "budgets, as ANVIL_BUDGETS: tpot_p50_ms<=6, ttft_p95_ms<=1500@upper95")
	budgetsFile := fs.String("budgets-file", "", "a budgets file, as ANVIL_BUDGETS_FILE")
	baselinePath := fs.String("baseline", "", "the artifact, or a directory or glob of earlier runs, the run must not regress from, as ANVIL_BASELINE")
	gateMetrics := fs.String("gate-metrics", strings.Join(g.Metrics, ","), "metrics judged against the baseline (default ANVIL_GATE_METRICS)")
	by := fs.Float64("by", g.By, "the smallest relative change that must be resolved; a significant change over half of it regresses (default ANVIL_GATE_BY)")
	runCV := fs.Float64("run-cv", g.RunCV, "the run-to-run spread counted between two sessions no history measured (default ANVIL_GATE_RUN_CV)")
	restartCV := fs.Float64("restart-cv", g.RestartCV, "what two engines measured side by side do not share (default ANVIL_GATE_RESTART_CV)")
	allowMismatch := fs.Bool("allow-mismatch", g.AllowMismatch, "judge against a baseline of another workload anyway")
	inconclusive := fs.String("inconclusive", string(g.OnInconclusive), "what a comparison that cannot resolve the gate's change comes to: fail or pass (default ANVIL_GATE_INCONCLUSIVE)")
	tolerance := fs.Float64("context-tolerance", g.ContextTolerance, "how far the counted prompt tokens may be from the plan, as ANVIL_CONTEXT_TOLERANCE")
	maxCPU := fs.Float64("max-client-cpu-pct", g.Client.MaxCPUPct, "the CPU the client may want, in percent of its cores, as ANVIL_MAX_CLIENT_CPU_PCT")
	maxLag := fs.Float64("max-start-lag-pct", g.Client.MaxStartLagPct, "the share of the requests' time they may wait on the client to start, as ANVIL_MAX_START_LAG_PCT")
	out := fs.String("o", "", "write gate.json into this directory")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return helpOr(err, failed)
	}
	if len(paths) != 1 {
		fs.Usage()
		return failed
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "anvilbench judge: "+format+"\n", a...)
		return failed
	}
	run, err := artifact.Read(paths[0])
	if err != nil {
		return fail("%v", err)
	}
	spec := gate.Spec{ContextTolerance: *tolerance, Client: gate.ClientBounds{MaxCPUPct: *maxCPU, MaxStartLagPct: *maxLag},
		Comparison: gate.Comparison{By: *by, AllowMismatch: *allowMismatch, OnInconclusive: gate.InconclusivePolicy(*inconclusive), RunCV: *runCV, RestartCV: *restartCV}}
	if !spec.OnInconclusive.Valid() {
		return fail("-inconclusive %q: want fail or pass", *inconclusive)
	}
	if err := checkCV(*runCV, *restartCV); err != nil {
		return fail("%v", err)
	}
	if spec.Budgets, err = budget.Parse(*budgets); err != nil {
		return fail("-budgets: %v", err)
	}
	if *budgetsFile != "" {
		more, err := budget.ReadFile(*budgetsFile)
		if err != nil {
			return fail("-budgets-file: %v", err)
		}
		spec.Budgets = append(spec.Budgets, more...)
	}
	for m := range strings.SplitSeq(*gateMetrics, ",") {
		if m = strings.TrimSpace(m); m != "" {
			spec.Metrics = append(spec.Metrics, m)
		}
	}
	if *baselinePath != "" {
		baseline, err := config.ReadBaseline(*baselinePath, config.ScenarioOf(run))
		if err != nil {
			return fail("-baseline: %v", err)
		}
		spec.BaselinePath, spec.Baseline, spec.History = *baselinePath, baseline.One, baseline.History
	}

	blocks := 1
	if x := run.Extension; x != nil && x.Blocks != nil {
		blocks = len(x.Blocks.Blocks)
	}
	results := spec.Refusals(run.Requests, blocks)
	if len(results) == 0 {
		for _, c := range spec.Checks() {
			results = append(results, c.Judge(run))
		}
	}
	var failures []gate.Failure
	judged := 0
	for _, r := range results {
		verdict := "pass"
		switch {
		case r.Skipped != "":
			verdict = "skipped: " + r.Skipped
		case !r.Passed():
			verdict = strings.ToUpper(r.Outcome.Text()) + ": " + r.Message
			failures = append(failures, gate.Failure{Suite: "judge", Check: r.Check, Kind: r.Kind, Outcome: r.Outcome, State: "failed", Message: r.Message})
		}
		if r.Skipped == "" {
			judged++
		}
		fmt.Fprintf(stdout, "  [%s] %s: %s\n", r.Kind, r.Check, verdict)
	}
	id := "judge"
	if run.Extension != nil && runrecord.ValidID(run.Extension.RunID) {
		id = run.Extension.RunID
	}
	s := gate.Summary{RunID: id}
	s.FinishSuite("judge", judged, failures, nil)
	fmt.Fprintf(stdout, "gate: %s (%d checks, %d failed)\n", s.Outcome.Text(), s.Checks, len(failures))
	if *out != "" {
		if err := gate.WriteSummary(filepath.Join(*out, runrecord.SummaryFile), s); err != nil {
			return fail("%v", err)
		}
	}
	return s.ExitCode
}
