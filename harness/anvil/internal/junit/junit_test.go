package junit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

func report(suite, failure string) types.Report {
	spec := types.SpecReport{
		LeafNodeType: types.NodeTypeIt, LeafNodeText: "reference", State: types.SpecStatePassed,
		StartTime: time.Now(), EndTime: time.Now(),
	}
	if failure != "" {
		spec.State = types.SpecStateFailed
		spec.Failure = types.Failure{Message: failure}
	}
	return types.Report{SuiteDescription: suite, SuitePath: "/suites/" + suite, SuiteSucceeded: failure == "", SpecReports: types.SpecReports{spec}}
}

func TestWriteJUnitMergesSuitesOfOneInvocation(t *testing.T) {
	t.Parallel()
	dst := filepath.Join(t.TempDir(), "out", "junit.xml")
	if err := WriteJUnit(report("capacity", "tpot p50 6.31ms exceeds budget 6.00ms over 6 samples"), dst, JUnitOptions{RunID: "run-1"}); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(report("curves", ""), dst, JUnitOptions{RunID: "run-1"}); err != nil {
		t.Fatal(err)
	}
	suites, err := readSuites(dst)
	if err != nil {
		t.Fatal(err)
	}
	if len(suites.TestSuites) != 2 || suites.Tests != 2 || suites.Failures != 1 {
		t.Fatalf("merged %d suites, %d tests, %d failures", len(suites.TestSuites), suites.Tests, suites.Failures)
	}
	data, _ := os.ReadFile(dst)
	if !strings.Contains(string(data), "tpot p50 6.31ms exceeds budget 6.00ms over 6 samples") {
		t.Fatal("the failure message is not in the JUnit file")
	}

	// The same suite again in the same run replaces itself; a new run starts over.
	if err := WriteJUnit(report("curves", ""), dst, JUnitOptions{RunID: "run-1"}); err != nil {
		t.Fatal(err)
	}
	if suites, _ = readSuites(dst); len(suites.TestSuites) != 2 {
		t.Fatalf("rewriting a suite gave %d suites", len(suites.TestSuites))
	}
	if err := WriteJUnit(report("capacity", ""), dst, JUnitOptions{RunID: "run-2"}); err != nil {
		t.Fatal(err)
	}
	if suites, _ = readSuites(dst); len(suites.TestSuites) != 1 || suites.Failures != 0 {
		t.Fatalf("a new invocation kept %d suites, %d failures", len(suites.TestSuites), suites.Failures)
	}
}

func TestWriteJUnitRedactsSecrets(t *testing.T) {
	t.Parallel()
	dst := filepath.Join(t.TempDir(), "junit.xml")
	if err := WriteJUnit(report("capacity", "leaked sk-canary-123 here"), dst, JUnitOptions{Redact: []string{"sk-canary-123", ""}, RunID: "x"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(dst)
	if strings.Contains(string(data), "sk-canary-123") || !strings.Contains(string(data), "leaked [redacted] here") {
		t.Fatalf("secret not redacted:\n%s", data)
	}
}

// A suite setup node is left out of the file unless it failed: a configuration error in
// BeforeSuite is the run's only failure and must reach CI.
func TestWriteJUnitKeepsAFailedBeforeSuite(t *testing.T) {
	t.Parallel()
	dst := filepath.Join(t.TempDir(), "junit.xml")
	setup := func(state types.SpecState, msg string) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: state, Failure: types.Failure{Message: msg}}
	}
	r := report("capacity", "")
	r.SpecReports = append(r.SpecReports, setup(types.SpecStatePassed, ""), types.SpecReport{LeafNodeType: types.NodeTypeReportAfterSuite, State: types.SpecStatePassed})
	if err := WriteJUnit(r, dst, JUnitOptions{RunID: "run-1"}); err != nil {
		t.Fatal(err)
	}
	if suites, _ := readSuites(dst); suites.Tests != 1 {
		t.Fatalf("passed setup nodes are in the file: %d tests", suites.Tests)
	}
	r = report("capacity", "")
	r.SpecReports = types.SpecReports{setup(types.SpecStateFailed, "ANVIL_CONCURRENCY=0: out of range")}
	if err := WriteJUnit(r, dst, JUnitOptions{RunID: "run-2"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(dst)
	if suites, _ := readSuites(dst); suites.Failures != 1 || !strings.Contains(string(data), "ANVIL_CONCURRENCY=0: out of range") {
		t.Fatalf("the failed BeforeSuite is not in the file:\n%s", data)
	}
}
