package anvil

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/anvil/internal/junit"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/checklog"
	"github.com/anvilbench/anvilbench/internal/runrecord"
	"github.com/anvilbench/anvilbench/reporters/report"
)

// joinRun records the suite as running in its run's gate.json: from here on, a run that
// ends without the suite's report is a failed run.
func joinRun(suite string) {
	r := runOf()
	s, err := gate.UpdateSummary(r.OutDir, r.ID, recordSuite(suite))
	if err != nil {
		Fail(fmt.Sprintf("the run's verdict cannot be written: %v", err))
	}
	if p := failedBefore(&s, suite); p != nil {
		Skip(fmt.Sprintf("the run failed before any scenario, in suite %s: %s", p.Suite, firstLine(p.Message)))
	}
}

// failedBefore is the run's preflight when a suite other than suite failed it: the run
// ended there, and suite has nothing to add. Nil otherwise.
func failedBefore(s *gate.Summary, suite string) *gate.Preflight {
	if p := s.Preflight; p != nil && !p.OK && p.Suite != suite {
		return p
	}
	return nil
}

// configurationFailed records an invalid configuration as the run's failed preflight,
// unless the run has one already.
func configurationFailed(s *gate.Summary, suite string, err error) {
	if s.Preflight == nil {
		s.Preflight = &gate.Preflight{Suite: suite, Message: err.Error(), Outcome: gate.RunFailed}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// recordSuite notes the suite in a run's summary: running, with the ANVIL_* variables set
// when the run started and those its selected specs use.
func recordSuite(suite string) func(*gate.Summary) {
	return func(s *gate.Summary) {
		if len(s.Suites) == 0 {
			s.Variables = config.Set(environ())
		}
		st := s.Suite(suite)
		st.Uses = uses()
		if _, err := loaded(); err != nil {
			// What the specs would have read is unknown: none of the variables is unused.
			st.Uses = config.Set(environ())
		}
	}
}

// planSuite appends what this suite's selected specs would read to the plan file of
// anvilbench run's dry run (runrecord.PlanFileVariable).
func planSuite(suite string) {
	path := os.Getenv(runrecord.PlanFileVariable)
	if path == "" || path == runrecord.PlanOff {
		return
	}
	p := runrecord.SuitePlan{Suite: suite, Uses: uses()}
	if _, err := loaded(); err != nil {
		p.Uses = config.Set(environ()) // an invalid configuration is the run's to report
	}
	line, err := json.Marshal(p)
	if err != nil {
		Fail(err.Error())
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		Fail(fmt.Sprintf("the run's plan: %v", err))
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		Fail(fmt.Sprintf("the run's plan: %v", err))
	}
}

// classifyFailure attaches to a failed spec the judgement of the matcher that failed it
// (package matchers records the one Gomega reported), so the verdict names the outcome of
// what failed, labels or not. A spec the toolkit judged carries its judgement already.
func classifyFailure() {
	failing, recorded := checklog.Take()
	spec := CurrentSpecReport()
	if !spec.Failed() || !recorded {
		return
	}
	for _, e := range spec.ReportEntries {
		if e.Name == junit.CheckEntry {
			return
		}
	}
	AddReportEntry(junit.CheckEntry, failing, ReportEntryVisibilityNever)
}

// finishRun merges the suite into the run's JUnit file and verdict, rewrites the report
// from the run's artifacts, and prints the verdict so far.
func finishRun(suiteReport types.Report) {
	if suiteConfig, _ := GinkgoConfiguration(); suiteConfig.DryRun {
		// Nothing ran, so there is no verdict to write (Ginkgo reports every spec of a dry
		// run as passed); what the selected specs would read goes to anvilbench run's plan.
		planSuite(suiteReport.SuiteDescription)
		return
	}
	r := runOf()
	suite := suiteReport.SuiteDescription
	// Not from Current: on a configuration error BeforeSuite failed, or did not run, and
	// current is nil.
	cfg, cfgErr := loaded()
	checks, failed, noted := junit.SuiteVerdict(suiteReport)
	withProblem, unbuilt := unbuiltTree(suiteReport, cfgErr)
	record := recordSuite(suite)
	reported := false
	s, err := gate.UpdateSummary(r.OutDir, r.ID, func(s *gate.Summary) {
		record(s)
		f := failed
		// The problem is the run's: once a suite before this one reported it, this one,
		// like a suite skipped for it, adds nothing.
		if unbuilt != nil && failedBefore(s, suite) == nil {
			configurationFailed(s, suite, unbuilt)
			_, f, _ = junit.SuiteVerdict(withProblem)
			reported = true
		}
		s.FinishSuite(suite, checks, f, noted)
	})
	if reported {
		suiteReport = withProblem
	}
	if err != nil {
		Fail(fmt.Sprintf("write the run's verdict in %s: %v", r.OutDir, err))
	}
	dst := filepath.Join(r.OutDir, "junit.xml")
	if err := junit.WriteJUnit(suiteReport, dst, junit.JUnitOptions{RunID: r.ID, Redact: []string{cfg.APIKey.Reveal()}}); err != nil {
		Fail(fmt.Sprintf("write %s: %v", dst, err))
	}
	m, err := report.WriteDir(r.OutDir, report.Options{Budgets: cfg.ParsedBudgets(), BaselineDir: cfg.BaselineDir, RunID: r.ID})
	if err != nil {
		Fail(fmt.Sprintf("write the report in %s: %v", r.OutDir, err))
	}
	for _, n := range m.Notes {
		GinkgoWriter.Println("report:", n)
	}
	fmt.Fprintf(os.Stdout, "\nanvilbench: run %s, verdict after suite %s (exit code %d): %s\n", r.ID, suite, s.ExitCode, m.Verdict.Headline())
	if reported {
		Fail(unbuilt.Error())
	}
}

// unbuiltTree is the suite's report with cfgErr, the configuration's problem, as its
// set-up's failure (for the verdict and JUnit) when the suite ran no spec, and that
// problem; nil when the suite ran specs or the configuration is valid. The gated
// containers are built from the configuration, and an invalid one builds none: a suite
// made of them alone, or whose label filter selected only them, then runs no spec, so
// Ginkgo skips the BeforeSuite that reports the problem, and the verdict would blame the
// label filter.
func unbuiltTree(suiteReport types.Report, cfgErr error) (types.Report, error) {
	for _, spec := range suiteReport.SpecReports {
		ran := spec.LeafNodeType == types.NodeTypeIt && !spec.State.Is(types.SpecStateSkipped|types.SpecStatePending)
		if ran || spec.State.Is(types.SpecStateFailureStates) {
			return suiteReport, nil
		}
	}
	if cfgErr == nil {
		return suiteReport, nil
	}
	suiteReport.SuiteSucceeded = false
	suiteReport.SpecReports = append(slices.Clone(suiteReport.SpecReports), types.SpecReport{
		LeafNodeType: types.NodeTypeSynchronizedBeforeSuite,
		State:        types.SpecStateFailed,
		Failure:      types.Failure{Message: cfgErr.Error(), FailureNodeType: types.NodeTypeSynchronizedBeforeSuite},
	})
	return suiteReport, cfgErr
}

// environ is the process environment as a map.
func environ() map[string]string {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}
