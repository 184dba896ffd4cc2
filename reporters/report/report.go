// Package report builds the report people read after a run, report.html and report.md,
// from the artifacts of an output directory: the verdict first (from the gate summary),
// the endpoint under test and its scenarios with their baseline deltas, charts that draw
// one line per comparable set, the harness's self-tests apart, and a section per run.
//
// Load reads a directory into an Input; Build turns an Input into a Model; the Model's
// WriteHTML and WriteMarkdown render it to any io.Writer. WriteDir does all three and
// writes both files atomically.
//
// report.html is one self-contained file: inline CSS and SVG (package chart), no script,
// nothing fetched, so it works offline, from a CI artifact or an e-mail attachment.
// report.md holds the verdict and the tables, for $GITHUB_STEP_SUMMARY; its first line
// says pass or fail and names the first broken check.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/atomicfile"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

// File names, in the output directory.
const (
	HTMLFile     = "report.html"
	MarkdownFile = "report.md"
)

// defaultTitle is the title of a report whose input names none.
const defaultTitle = "anvilbench report"

// Caps on what the report lists, so a 10,000-request run stays a readable, bounded file.
// What is left out is counted ("… and 40 more").
const (
	maxFailuresHTML     = 500  // failures listed per run in report.html
	maxFailuresMarkdown = 20   // failures listed per run in report.md (a step summary takes 1 MiB)
	maxTimelineRequests = 2000 // requests drawn in one timeline
)

// Run is one artifact and its path relative to the output directory
// ("capacity/reference.json").
type Run struct {
	Path string
	*artifact.Benchmark
}

// Input is everything a report is built from.
type Input struct {
	// Title heads the report; empty is defaultTitle.
	Title string
	// Runs are the artifacts of the run, in any order.
	Runs []Run
	// Gate is the run's verdict (gate.json); nil when the directory has none (a directory of
	// artifacts no run of the suites wrote, e.g. merged ones).
	Gate *gate.Summary
	// RunID, when set, is the run the report shows: artifacts of other runs are left out
	// with a note, and a verdict of another run, or none, is a failed run's.
	RunID string
	// Budgets are drawn on the charts of their metric and, without a gate summary, judged
	// against the endpoint's runs for the verdict.
	Budgets []budget.Budget
	// Baseline are the artifacts of an earlier run: each run is compared with the baseline
	// artifact at its own path, and drawn beside it on the charts.
	Baseline []Run
	// Notes say what was left out (files that are not artifacts, unreadable files).
	Notes []string
	// Generated is printed as the report's time; zero leaves it out, so a report of the
	// same input is byte-for-byte the same.
	Generated time.Time
}

// Options tune WriteDir.
type Options struct {
	Title   string
	Budgets []budget.Budget
	// BaselineDir is the output directory of an earlier run to compare with; empty for none.
	BaselineDir string
	// RunID is the run to report; empty takes the run the directory holds (its run.json),
	// or every artifact of a directory without one.
	RunID string
}

// WriteDir loads outDir (Load), builds the report and writes outDir/report.html and
// outDir/report.md, each atomically, both rendered before either is written. It returns
// the report's model, whose Verdict and Notes (what was left out) a caller can print.
func WriteDir(outDir string, opts Options) (*Model, error) {
	in, err := load(outDir)
	if err != nil {
		return nil, err
	}
	in.Title, in.Budgets = opts.Title, opts.Budgets
	if opts.RunID != "" {
		in.RunID = opts.RunID
	}
	if opts.BaselineDir != "" {
		base, notes, err := loadRuns(opts.BaselineDir)
		if err != nil {
			notes = append(notes, "not read: "+err.Error())
		}
		in.Baseline = base
		for _, n := range notes {
			in.Notes = append(in.Notes, "baseline "+opts.BaselineDir+": "+n)
		}
	}
	m, err := Build(in)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var html, md bytes.Buffer
	if err := m.WriteHTML(&html); err != nil {
		return nil, fmt.Errorf("report: html: %w", err)
	}
	if err := m.WriteMarkdown(&md); err != nil {
		return nil, fmt.Errorf("report: markdown: %w", err)
	}
	for name, data := range map[string][]byte{HTMLFile: html.Bytes(), MarkdownFile: md.Bytes()} {
		if err := atomicfile.Write(filepath.Join(outDir, name), data); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	return m, nil
}

// load reads an output directory: its artifacts (loadRuns), its run's verdict
// (runrecord.SummaryFile) and run id (runrecord.Current). A file that cannot be read is left out with a note,
// never failing the load; the error is reserved for a directory that cannot be listed.
func load(outDir string) (Input, error) {
	runs, notes, err := loadRuns(outDir)
	if err != nil {
		return Input{}, err
	}
	in := Input{Runs: runs, Notes: notes}
	switch g, err := gate.ReadSummary(filepath.Join(outDir, runrecord.SummaryFile)); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		in.Notes = append(in.Notes, runrecord.SummaryFile+": not read: "+err.Error())
	default:
		in.Gate = &g
	}
	if id, err := runrecord.Current(outDir); err == nil {
		in.RunID = id
	}
	return in, nil
}

// loadRuns reads every outDir/<suite>/<name>.json that is an anvil-serving.benchmark/v1
// artifact, in path order. One bad file never fails the load: a JSON file of another schema
// is skipped with a note, a file that cannot be read or decoded is left out with a note
// naming its path and error. Hidden files and directories are ignored; the error is
// reserved for an outDir that cannot be listed.
func loadRuns(outDir string) ([]Run, []string, error) {
	suites, err := os.ReadDir(outDir)
	if err != nil {
		return nil, nil, fmt.Errorf("load runs: %w", err)
	}
	var runs []Run
	var notes []string
	for _, suite := range suites {
		if strings.HasPrefix(suite.Name(), ".") || !isDir(outDir, suite) {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(outDir, suite.Name()))
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s/: not listed: %v", suite.Name(), err))
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
				continue
			}
			rel := path.Join(suite.Name(), name)
			if isDir(filepath.Join(outDir, suite.Name()), e) {
				notes = append(notes, rel+": skipped: a directory")
				continue
			}
			b, err := artifact.Read(filepath.Join(outDir, suite.Name(), name))
			switch {
			case errors.Is(err, artifact.ErrNotArtifact):
				notes = append(notes, rel+": skipped: "+unwrapped(err))
			case err != nil:
				notes = append(notes, rel+": not read: "+unwrapped(err))
			default:
				runs = append(runs, Run{Path: rel, Benchmark: b})
			}
		}
	}
	return runs, slices.Clip(notes), nil
}

func isDir(dir string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && info.IsDir()
}

// unwrapped drops artifact.Read's "read artifact <path>: ", as the note names the path
// already (relative, not absolute).
func unwrapped(err error) string {
	if inner := errors.Unwrap(err); inner != nil {
		return inner.Error()
	}
	return err.Error()
}
