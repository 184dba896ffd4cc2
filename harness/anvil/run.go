package anvil

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// Run executes a scenario against target, writes its artifact to
// $ANVIL_OUT_DIR/<suite>/<spec>.json before anything is asserted, checks the artifact's
// invariants (capacity.Verify), and returns it. A run that cannot start (an invalid
// scenario, an unreachable endpoint, a fixed context the window cannot hold) fails the
// spec with the reason.
func Run(ctx context.Context, spec string, target capacity.Target, sc capacity.Scenario) *artifact.Benchmark {
	GinkgoHelper()
	return runIn(ctx, Current().Suite, spec, target, sc, nil)
}

// runIn is Run with the artifact written to $ANVIL_OUT_DIR/<dir>/<spec>.json, after
// annotate (when not nil) has added to it what the run was judged against.
func runIn(ctx context.Context, dir, spec string, target capacity.Target, sc capacity.Scenario, annotate func(*artifact.Benchmark)) *artifact.Benchmark {
	GinkgoHelper()
	sc = reporting(spec, sc)
	run, err := capacity.Run(ctx, target, sc)
	if err != nil {
		Fail(fmt.Sprintf("scenario %s did not start: %v", spec, err))
	}
	if annotate != nil {
		annotate(run)
	}
	recordIn(dir, spec, run)
	// Shown on the console without -v too, notes included.
	AddReportEntry("summary", Summarize(run))
	return run
}

// reporting is sc named spec, its progress on the console (progressWriter) at the
// configured interval unless it has its own.
func reporting(spec string, sc capacity.Scenario) capacity.Scenario {
	sc.Name = spec
	if sc.Progress == nil {
		sc.Progress = progressWriter()
		if sc.ProgressInterval == 0 {
			sc.ProgressInterval = Current().cfg.ProgressInterval
		}
	}
	return sc
}

// RunInterleaved executes a scenario against target and a baseline build in one measured
// phase, their blocks alternating in ABBA order (capacity.RunInterleaved), writes both
// artifacts before anything is asserted, $ANVIL_OUT_DIR/<suite>/<spec>.json and
// <spec>-baseline.json, checks their invariants, and returns them: the run, then the
// baseline build's, which matchers.NotRegressFrom judges the run against by their blocks.
func RunInterleaved(ctx context.Context, spec string, target capacity.Target, sc capacity.Scenario, with capacity.Interleaving) (run, baseline *artifact.Benchmark) {
	GinkgoHelper()
	return runInterleavedIn(ctx, Current().Suite, spec, target, sc, with, nil)
}

// runInterleavedIn is RunInterleaved with the artifacts written in $ANVIL_OUT_DIR/<dir>/.
func runInterleavedIn(ctx context.Context, dir, spec string, target capacity.Target, sc capacity.Scenario, with capacity.Interleaving, annotate func(*artifact.Benchmark)) (run, baseline *artifact.Benchmark) {
	GinkgoHelper()
	sc = reporting(spec, sc)
	run, baseline, err := capacity.RunInterleaved(ctx, target, sc, with)
	if err != nil {
		Fail(fmt.Sprintf("scenario %s did not start: %v", spec, err))
	}
	path := recordIn(dir, spec+baselineSuffix, baseline)
	if run.Extension != nil {
		run.Extension.Baseline = baseline.BaselineRef(path)
		run.Extension.Baseline.Design = artifact.DesignInterleaved
	}
	if annotate != nil {
		annotate(run)
	}
	recordIn(dir, spec, run)
	AddReportEntry("summary", Summarize(run))
	return run, baseline
}

// searchIn searches the highest load within budgets (capacity.SearchCapacity), beside
// the baseline build when with is set, and writes the engine's run at its capacity to
// $ANVIL_OUT_DIR/<dir>/<spec>.json (the baseline build's to <spec>-baseline.json) after
// annotate, each carrying every probe of the search.
func searchIn(ctx context.Context, dir, spec string, target capacity.Target, sc capacity.Scenario, budgets []budget.Budget, with *capacity.Interleaving, annotate func(*artifact.Benchmark)) (run, baseline *artifact.Benchmark) {
	GinkgoHelper()
	sc = reporting(spec, sc)
	run, baseline, err := capacity.SearchCapacity(ctx, target, sc, sc.Search, budgets, with)
	if err != nil && run == nil {
		Fail(fmt.Sprintf("scenario %s: search did not start: %v", spec, err))
	}
	for _, b := range []*artifact.Benchmark{run, baseline} {
		if b != nil && annotate != nil {
			annotate(b)
		}
	}
	if baseline != nil {
		path := recordIn(dir, spec+baselineSuffix, baseline)
		if run.Extension != nil {
			run.Extension.Baseline = baseline.BaselineRef(path)
			run.Extension.Baseline.Design = artifact.DesignInterleaved
		}
	}
	path := recordIn(dir, spec, run)
	if err != nil {
		Fail(fmt.Sprintf("scenario %s: the search stopped before it closed its bracket (%v); what it found is in %s", spec, err, path))
	}
	AddReportEntry("summary", Summarize(run))
	return run, baseline
}

// baselineSuffix ends the name of an interleaved run's baseline build's artifact:
// <spec>-baseline.json beside <spec>.json.
const baselineSuffix = "-baseline"

// progressWriter is where a running scenario's progress lines go: the spec's GinkgoWriter,
// which -v streams and JUnit keeps for a failed spec, and without -v the console as well,
// so a long run is never silent.
func progressWriter() io.Writer {
	_, reporter := GinkgoConfiguration()
	if reporter.Verbosity().GTE(types.VerbosityLevelVerbose) {
		return GinkgoWriter
	}
	return io.MultiWriter(GinkgoWriter, &console{w: os.Stdout})
}

// console starts the first progress line on a line of its own, after the reporter's dots.
type console struct {
	w       io.Writer
	started bool
}

func (c *console) Write(p []byte) (int, error) {
	if !c.started {
		c.started = true
		if _, err := io.WriteString(c.w, "\n"); err != nil {
			return 0, err
		}
	}
	return c.w.Write(p)
}

// Record writes a run's artifact to $ANVIL_OUT_DIR/<suite>/<spec>.json, checks its
// invariants (capacity.Verify: a violation is a harness bug, not an engine result) and
// returns the path relative to the output directory. The artifact carries the run's id
// (anvilbench.run_id), so the report and the verdict count it as this run's; a run
// recorded by a spec labelled LabelSelfTest is marked so (the extension's self_test), and
// reports keep it apart from the engine's results.
func Record(spec string, run *artifact.Benchmark) string {
	GinkgoHelper()
	return recordIn(Current().Suite, spec, run)
}

func recordIn(dir, spec string, run *artifact.Benchmark) string {
	GinkgoHelper()
	env := Current()
	if run.Extension != nil {
		run.Extension.SelfTest = slices.Contains(CurrentSpecReport().Labels(), LabelSelfTest)
		run.Extension.RunID = env.RunID
	}
	path, err := artifactPath(env.OutDir, dir, spec)
	if err != nil {
		Fail(err.Error())
	}
	if err := artifact.Write(path, run); err != nil {
		Fail(err.Error())
	}
	if err := capacity.Verify(run); err != nil {
		Fail(fmt.Sprintf("artifact %s is inconsistent: %v", path, err))
	}
	AddReportEntry("artifact", path, ReportEntryVisibilityNever)
	if x := run.Extension; x != nil && !x.Complete {
		// One line per scenario an interrupt stopped, to the console Ginkgo's reports share.
		fmt.Fprintf(os.Stdout, "anvilbench: scenario %s interrupted: %d of %d requests completed, %d failed or never finished; %s records them\n",
			spec, run.Completed, run.Requests, run.Requests-run.Completed, path)
	}
	rel, err := filepath.Rel(env.OutDir, path)
	if err != nil {
		return path
	}
	return rel
}

// PrivateEngine starts a reference engine for the current spec only, stopped when the
// spec ends, and returns it with a target pointing at it. Specs that prove the harness
// catches an engine's behaviour use one, whatever ANVIL_BASE_URL says; label them
// LabelSelfTest so they stay out of an engine's results.
func PrivateEngine(opts refengine.Options) (*refengine.Server, capacity.Target) {
	GinkgoHelper()
	s, err := refengine.Start(opts)
	if err != nil {
		Fail(fmt.Sprintf("start a private reference engine: %v", err))
	}
	DeferCleanup(s.Close)
	return s, capacity.Target{BaseURL: s.BaseURL(), Timeout: time.Minute, StallTimeout: 10 * time.Second}
}
