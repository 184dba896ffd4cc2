package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/internal/compare"
	"github.com/anvilbench/anvilbench/internal/units"
)

// runHistory prints each metric of each scenario over the runs PATHS hold, oldest first,
// with the levels its change points leave; with -current, judges that run against the
// history as a gate would, and exits as compare does.
func runHistory(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	g, ok := gateDefaults("history", getenv, stderr)
	if !ok {
		return exitUnjudged
	}
	fs := newCommand("history", stderr, "usage: anvilbench history [flags] PATH...\n\n"+
		"Prints each metric over the runs the PATHs hold (artifacts, directories of them, globs), oldest first\n"+
		"and scenario by scenario, with where its level changed (E-divisive means, 5%). With -current, judges\n"+
		"that run against its scenario's history: \"the baseline already changed at run N\" is the history's\n"+
		"own step, not the run's regression. Exit status as compare's; 0 without -current.\n\nFlags:\n")
	metrics := fs.String("metrics", strings.Join(g.Metrics, ","), "comma-separated metrics to print (and judge with -current) (default ANVIL_GATE_METRICS)")
	current := fs.String("current", "", "a run to judge against the history of its scenario")
	by := fs.Float64("by", g.By, "with -current, the smallest relative change that must be resolved; a significant change over half of it regresses (default ANVIL_GATE_BY)")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return helpOr(err, exitUnjudged)
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "anvilbench history: "+format+"\n", a...)
		return exitUnjudged
	}
	if len(paths) == 0 {
		return fail("want at least one PATH of earlier runs")
	}
	list, err := metricList(*metrics)
	if err != nil {
		return fail("--metrics: %v", err)
	}
	runs, err := config.ReadRuns(paths...)
	if err != nil {
		return fail("%v", err)
	}
	var cur *artifact.Benchmark
	if *current != "" {
		if cur, err = artifact.Read(*current); err != nil {
			return fail("-current: %v", err)
		}
	}
	scenarios := map[string][]*artifact.Benchmark{}
	var order []string
	for _, a := range runs {
		name := config.ScenarioOf(a)
		if cur != nil && name != config.ScenarioOf(cur) {
			continue
		}
		if _, ok := scenarios[name]; !ok {
			order = append(order, name)
		}
		scenarios[name] = append(scenarios[name], a)
	}
	if len(order) == 0 {
		return fail("no run there%s", forScenario(cur))
	}
	for _, name := range order {
		printTrends(stdout, name, scenarios[name], list)
	}
	if cur == nil {
		return exitOK
	}
	history := scenarios[order[0]]
	report := compare.Compare(nil, cur, list, *by, compare.Options{History: history, Metrics: tested(list)})
	fmt.Fprintf(stdout, "\n%s against the history of %d runs:\n", *current, len(history))
	for _, row := range report.Rows {
		fmt.Fprintf(stdout, "  %s: %s\n", row.Metric, row.Message)
	}
	return exitCode(report, stderr)
}

// printTrends writes the scenario's runs metric by metric, each with its level changes.
func printTrends(w io.Writer, scenario string, runs []*artifact.Benchmark, metrics []string) {
	if scenario == "" {
		scenario = "(not written by anvilbench)"
	}
	fmt.Fprintf(w, "scenario %s: %d runs\n", scenario, len(runs))
	for _, m := range metrics {
		if m == "failed" {
			continue
		}
		t, err := compare.TrendOf(runs, m, 1)
		if err != nil {
			fmt.Fprintf(w, "\n%s: %v\n", m, err)
			continue
		}
		unit := units.Of(m)
		fmt.Fprintf(w, "\n%s\n", m)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "run\tstarted\trun id\tvalue\tlevel\t")
		for _, p := range t.Points {
			started := time.Unix(0, p.Artifact.StartedAtUnixNs).UTC().Format("2006-01-02 15:04")
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t\n", p.Run, started, p.Artifact.Run(), units.Format(p.Value, unit), units.Format(p.Level, unit))
		}
		tw.Flush()
		if len(t.Shifts) == 0 {
			fmt.Fprintf(w, "no change of level over %d runs\n", len(t.Points))
		}
		for _, s := range t.Shifts {
			fmt.Fprintf(w, "changed at run %d: %s -> %s (%+.1f%%)\n", s.AtRun, units.Format(s.From, unit), units.Format(s.To, unit), 100*s.Change)
		}
	}
	fmt.Fprintln(w)
}

// forScenario is " of scenario NAME" for the current run's scenario, "" without one.
func forScenario(cur *artifact.Benchmark) string {
	if cur == nil {
		return ""
	}
	return " of scenario " + config.ScenarioOf(cur)
}
