// Package junit writes a suite's part of its run's outputs from the Ginkgo report: the
// merged JUnit XML of every suite of the run, and the suite's share of the verdict
// (SuiteVerdict).
package junit

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/anvilbench/anvilbench/internal/atomicfile"

	greporters "github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

// runProperty marks each suite of a JUnit file with the run that wrote it (config.Run), so
// the suites of one run merge and those of an earlier run are dropped.
const runProperty = "anvilbench_run_id"

// JUnitOptions tune WriteJUnit.
type JUnitOptions struct {
	// Redact lists secrets to replace with "[redacted]" anywhere in the file, as a last
	// line of defence: nothing should have printed them in the first place.
	Redact []string
	// RunID names the run (config.Run); required.
	RunID string
}

// WriteJUnit writes report's suite into the JUnit file dst, atomically. Suites already in
// dst from the same invocation are kept, so `ginkgo -r` over several suites leaves one
// file with all of them; a file from an earlier invocation is replaced. Setup nodes are
// omitted and timelines kept only for specs that did not pass.
func WriteJUnit(report types.Report, dst string, opts JUnitOptions) error {
	if opts.RunID == "" {
		return fmt.Errorf("junit %s: no run id", dst)
	}
	suite, err := junitSuite(report)
	if err != nil {
		return fmt.Errorf("junit %s: %w", dst, err)
	}
	suite.Properties.Properties = append(suite.Properties.Properties,
		greporters.JUnitProperty{Name: runProperty, Value: opts.RunID})

	merged := greporters.JUnitTestSuites{}
	for _, s := range existingSuites(dst, opts.RunID) {
		if s.Name != suite.Name || s.Package != suite.Package {
			merged.TestSuites = append(merged.TestSuites, s)
		}
	}
	merged.TestSuites = append(merged.TestSuites, suite)
	for _, s := range merged.TestSuites {
		merged.Tests += s.Tests
		merged.Disabled += s.Disabled + s.Skipped
		merged.Errors += s.Errors
		merged.Failures += s.Failures
		merged.Time += s.Time
	}

	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("  ", "    ")
	if err := enc.Encode(merged); err != nil {
		return fmt.Errorf("junit %s: encode: %w", dst, err)
	}
	out := buf.Bytes()
	for _, secret := range opts.Redact {
		if secret != "" {
			out = bytes.ReplaceAll(out, []byte(secret), []byte("[redacted]"))
		}
	}
	return atomicfile.Write(dst, out)
}

// junitSuite renders report with Ginkgo's own JUnit generator and reads back its suite.
func junitSuite(report types.Report) (greporters.JUnitTestSuite, error) {
	dir, err := os.MkdirTemp("", "anvilbench-junit-")
	if err != nil {
		return greporters.JUnitTestSuite{}, err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "suite.xml")
	// Suite setup nodes are left out unless they failed: a BeforeSuite that failed on the
	// configuration is the run's only failure and must reach CI.
	report.SpecReports = slices.DeleteFunc(slices.Clone(report.SpecReports), func(r types.SpecReport) bool {
		return r.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) && !r.State.Is(types.SpecStateFailureStates)
	})
	err = greporters.GenerateJUnitReportWithConfig(report, tmp, greporters.JunitReportConfig{
		OmitTimelinesForSpecState: types.SpecStatePassed | types.SpecStateSkipped | types.SpecStatePending,
	})
	if err != nil {
		return greporters.JUnitTestSuite{}, fmt.Errorf("generate: %w", err)
	}
	suites, err := readSuites(tmp)
	if err != nil {
		return greporters.JUnitTestSuite{}, err
	}
	if len(suites.TestSuites) != 1 {
		return greporters.JUnitTestSuite{}, fmt.Errorf("generated %d suites, want 1", len(suites.TestSuites))
	}
	return suites.TestSuites[0], nil
}

func readSuites(path string) (greporters.JUnitTestSuites, error) {
	var suites greporters.JUnitTestSuites
	data, err := os.ReadFile(path)
	if err != nil {
		return suites, err
	}
	if err := xml.Unmarshal(data, &suites); err != nil {
		return suites, fmt.Errorf("decode %s: %w", path, err)
	}
	return suites, nil
}

// existingSuites returns the suites of dst written by the same run; none when dst is
// missing, unreadable or from another run.
func existingSuites(dst, runID string) []greporters.JUnitTestSuite {
	suites, err := readSuites(dst)
	if err != nil {
		return nil
	}
	var same []greporters.JUnitTestSuite
	for _, s := range suites.TestSuites {
		for _, p := range s.Properties.Properties {
			if p.Name == runProperty && p.Value == runID {
				same = append(same, s)
				break
			}
		}
	}
	return same
}
