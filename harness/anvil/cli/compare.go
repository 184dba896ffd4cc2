package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/internal/compare"
)

// compareFlags are the options of anvilbench compare.
type compareFlags struct {
	format        string
	by            float64
	metrics       string
	allowMismatch bool
	runCV         float64
	restartCV     float64
}

// runCompare parses the flags, reads both artifacts, prints the report and, when
// GITHUB_STEP_SUMMARY names a file, appends the markdown table to it.
func runCompare(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	var f compareFlags
	g, ok := gateDefaults("compare", getenv, stderr)
	if !ok {
		return exitUnjudged
	}
	fs := newCommand("compare", stderr, "usage: anvilbench compare [flags] OLD NEW.json\n\n"+
		"OLD is one artifact, or a directory or glob of earlier runs of NEW's scenario (a history).\n"+
		"The two artifacts of an interleaved run (NAME-baseline.json, NAME.json) are compared block by block.\n\n"+
		"Exit status: 0 no regression, 1 a regression, 2 not comparable (too few requests\nincluded) or bad input, 5 inconclusive: the samples cannot resolve a change of the gate's size.\n\nFlags:\n")
	fs.StringVar(&f.format, "format", "text", "output format: text, json or markdown")
	fs.Float64Var(&f.by, "by", g.By, "the smallest relative change that must be resolved (0.05 is 5%); a significant change over half of it regresses (default ANVIL_GATE_BY)")
	fs.StringVar(&f.metrics, "metrics", strings.Join(g.Metrics, ","), "comma-separated metrics to compare and gate (default ANVIL_GATE_METRICS, the gate's)")
	fs.BoolVar(&f.allowMismatch, "allow-mismatch", g.AllowMismatch, "compare even when the workloads differ")
	fs.Float64Var(&f.runCV, "run-cv", g.RunCV, "the run-to-run spread counted between two sessions no history measured (default ANVIL_GATE_RUN_CV)")
	fs.Float64Var(&f.restartCV, "restart-cv", g.RestartCV, "what two engines measured side by side do not share (default ANVIL_GATE_RESTART_CV)")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return helpOr(err, exitUnjudged) // the flag package has printed the problem and the usage
	}
	if len(paths) != 2 {
		fmt.Fprintf(stderr, "anvilbench compare: want OLD and NEW.json, got %d arguments %q\n", len(paths), paths)
		return exitUnjudged
	}
	render, err := renderer(f.format)
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench compare: %v\n", err)
		return exitUnjudged
	}
	metrics, err := metricList(f.metrics)
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench compare: --metrics: %v\n", err)
		return exitUnjudged
	}
	if err := checkCV(f.runCV, f.restartCV); err != nil {
		fmt.Fprintf(stderr, "anvilbench compare: %v\n", err)
		return exitUnjudged
	}
	current, err := artifact.Read(paths[1])
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench compare: current: %v\n", err)
		return exitUnjudged
	}
	baseline, err := config.ReadBaseline(paths[0], config.ScenarioOf(current))
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench compare: baseline: %v\n", err)
		return exitUnjudged
	}

	opts := compare.Options{AllowMismatch: f.allowMismatch, Metrics: tested(metrics), RunCV: f.runCV, RestartCV: f.restartCV, History: baseline.History}
	report := compare.Compare(baseline.One, current, metrics, f.by, opts)
	report.BaselineName, report.CurrentName = paths[0], paths[1]
	out, err := render(report)
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench compare: %v\n", err)
		return exitUnjudged
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "anvilbench compare: write the report: %v\n", err)
		return exitUnjudged
	}
	if path := getenv("GITHUB_STEP_SUMMARY"); path != "" {
		// A summary that cannot be written must not change the verdict; say so and go on.
		if err := appendFile(path, []byte(report.Markdown())); err != nil {
			fmt.Fprintf(stderr, "anvilbench compare: GITHUB_STEP_SUMMARY: %v\n", err)
		}
	}
	return exitCode(report, stderr)
}

// checkCV refuses a spread that is not a fraction: 0 would claim that sessions never differ.
func checkCV(runCV, restartCV float64) error {
	if !(runCV > 0 && runCV < 1) {
		return fmt.Errorf("-run-cv %v: want a coefficient of variation above 0 and below 1, e.g. 0.05", runCV)
	}
	if !(restartCV > 0 && restartCV < 1) {
		return fmt.Errorf("-restart-cv %v: want a coefficient of variation above 0 and below 1, e.g. 0.005", restartCV)
	}
	return nil
}

// tested counts the metrics a regression test judges (the failed row is a count, not a test).
func tested(metrics []string) int {
	n := 0
	for _, m := range metrics {
		if m != "failed" {
			n++
		}
	}
	return n
}

// exitCode maps the report to the exit status, explaining any non-zero one on stderr.
func exitCode(r compare.Report, stderr io.Writer) int {
	switch r.Outcome() {
	case compare.Pass:
		return exitOK
	case compare.NotComparable:
		fmt.Fprintln(stderr, "anvilbench compare: the artifacts measured different workloads (pass --allow-mismatch to compare anyway):")
		for _, d := range r.Differences {
			fmt.Fprintf(stderr, "  %s\n", d)
		}
		return exitUnjudged
	case compare.Regressed:
		for _, row := range r.Rows {
			if row.Outcome == compare.Regressed {
				fmt.Fprintf(stderr, "anvilbench compare: %s: %s\n", row.Metric, row.Message)
			}
		}
		return exitRegression
	case compare.Inconclusive:
		for _, row := range r.Rows {
			if row.Outcome == compare.Inconclusive {
				fmt.Fprintf(stderr, "anvilbench compare: %s: %s\n", row.Metric, row.Message)
			}
		}
		return gate.Inconclusive.ExitCode()
	}
	for _, row := range r.Rows {
		if row.Outcome == compare.Invalid || row.Outcome == compare.Insufficient {
			fmt.Fprintf(stderr, "anvilbench compare: %s: %s\n", row.Metric, row.Message)
		}
	}
	return exitUnjudged
}

// parseInterspersed parses flags placed before, between or after the positional arguments
// (the flag package alone stops at the first positional one) and returns those arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// renderer returns the report encoder of a --format value.
func renderer(format string) (func(compare.Report) ([]byte, error), error) {
	switch format {
	case "text":
		return func(r compare.Report) ([]byte, error) { return []byte(r.Text()), nil }, nil
	case "markdown":
		return func(r compare.Report) ([]byte, error) { return []byte(r.Markdown()), nil }, nil
	case "json":
		return compare.Report.JSON, nil
	}
	return nil, fmt.Errorf("--format %q: want text, json or markdown", format)
}

// metricList splits --metrics and checks every name.
func metricList(s string) ([]string, error) {
	var out []string
	for m := range strings.SplitSeq(s, ",") {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		if err := compare.CheckMetric(m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q names no metric", s)
	}
	return out, nil
}

// appendFile appends data to the file at path, creating it if needed.
func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("append to %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return nil
}
