package cli

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/reporters/report"
)

// runReport writes the report of an output directory (report.html and report.md), as the
// suites do at the end of a run: after a merge, with another baseline, or elsewhere.
func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newCommand("report", stderr, "usage: anvilbench report [flags] OUT_DIR\n\n"+
		"Writes OUT_DIR/report.html and OUT_DIR/report.md from the artifacts, gate.json and\n"+
		"capacity curves in OUT_DIR, and prints the verdict's line.\n\nFlags:\n")
	baseline := fs.String("baseline", "", "the output directory of an earlier run to compare with, as ANVIL_BASELINE_DIR")
	budgets := fs.String("budgets", "", "budgets to draw on the charts (and judge, without a gate.json), as ANVIL_BUDGETS")
	title := fs.String("title", "", "the report's title")
	if err := fs.Parse(args); err != nil {
		return helpOr(err, exitUnjudged)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUnjudged
	}
	bs, err := budget.Parse(*budgets)
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench report: -budgets: %v\n", err)
		return exitUnjudged
	}
	dir := fs.Arg(0)
	m, err := report.WriteDir(dir, report.Options{Title: *title, Budgets: bs, BaselineDir: *baseline})
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench report: %v\n", err)
		return exitUnjudged
	}
	for _, n := range m.Notes {
		fmt.Fprintf(stderr, "anvilbench report: %s\n", n)
	}
	fmt.Fprintf(stdout, "%s\nwrote %s and %s\n", m.Verdict.Headline(), filepath.Join(dir, report.HTMLFile), filepath.Join(dir, report.MarkdownFile))
	return exitOK
}
