package reporters

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

func gateSpec(kind string, state types.SpecState, failedIn types.NodeType) types.SpecReport {
	return types.SpecReport{
		LeafNodeType: types.NodeTypeIt, LeafNodeText: kind, LeafNodeLabels: []string{"gate", "kind:" + kind},
		State: state, Failure: types.Failure{Message: kind + " broke", FailureNodeType: failedIn},
	}
}

func TestSummarizeGateRanksOutcomes(t *testing.T) {
	t.Parallel()
	passed, failed := types.SpecStatePassed, types.SpecStateFailed
	cases := []struct {
		specs []types.SpecReport
		want  string
		code  int
	}{
		{[]types.SpecReport{gateSpec("requests", passed, 0), gateSpec("budget", passed, 0)}, GatePass, 0},
		{[]types.SpecReport{gateSpec("requests", passed, 0), gateSpec("budget", failed, types.NodeTypeIt)}, GateBudgetBroken, 3},
		{[]types.SpecReport{gateSpec("budget", failed, types.NodeTypeIt), gateSpec("regression", failed, types.NodeTypeIt)}, GateRegression, 1},
		{[]types.SpecReport{gateSpec("regression", failed, types.NodeTypeIt), gateSpec("comparable", failed, types.NodeTypeIt)}, GateNotComparable, 2},
		{[]types.SpecReport{gateSpec("budget", failed, types.NodeTypeIt), gateSpec("requests", failed, types.NodeTypeIt)}, GateRunFailed, 4},
		// A budget spec that failed in the setup that runs the scenario is a failed run.
		{[]types.SpecReport{gateSpec("budget", failed, types.NodeTypeBeforeAll)}, GateRunFailed, 4},
		{[]types.SpecReport{gateSpec("budget", types.SpecStateTimedout, types.NodeTypeIt)}, GateRunFailed, 4},
	}
	for i, c := range cases {
		s, ok := SummarizeGate(types.Report{SpecReports: c.specs})
		if !ok || s.Outcome != c.want || s.ExitCode != c.code {
			t.Errorf("case %d: outcome %s (%d), want %s (%d)", i, s.Outcome, s.ExitCode, c.want, c.code)
		}
	}
	if _, ok := SummarizeGate(types.Report{SpecReports: []types.SpecReport{{LeafNodeType: types.NodeTypeIt}}}); ok {
		t.Error("a report without gate specs has no gate outcome")
	}
}

// Suites of one invocation merge into one gate summary, as into one JUnit file; a summary
// of an earlier invocation is replaced.
func TestWriteGateSummaryMergesTheSuitesOfOneRun(t *testing.T) {
	t.Parallel()
	dst := filepath.Join(t.TempDir(), GateFileName)
	passed, failed := types.SpecStatePassed, types.SpecStateFailed
	capacity := types.Report{SuiteDescription: "capacity", SpecReports: []types.SpecReport{gateSpec("requests", passed, 0), gateSpec("budget", failed, types.NodeTypeIt)}}
	engine := types.Report{SuiteDescription: "engine", SpecReports: []types.SpecReport{gateSpec("regression", failed, types.NodeTypeIt), gateSpec("output", passed, 0)}}
	read := func() GateSummary {
		t.Helper()
		var s GateSummary
		data, err := os.ReadFile(dst)
		if err != nil || json.Unmarshal(data, &s) != nil {
			t.Fatalf("read %s: %v", dst, err)
		}
		return s
	}

	if err := WriteGateSummary(capacity, dst, "run-1"); err != nil {
		t.Fatal(err)
	}
	if err := WriteGateSummary(engine, dst, "run-1"); err != nil {
		t.Fatal(err)
	}
	s := read()
	if s.Outcome != GateRegression || s.ExitCode != 1 || s.Specs != 4 || len(s.Failed) != 2 {
		t.Errorf("merged: %+v", s)
	}
	// The same suite again in the same run replaces its own entries.
	if err := WriteGateSummary(engine, dst, "run-1"); err != nil {
		t.Fatal(err)
	}
	if s := read(); s.Specs != 4 || len(s.Failed) != 2 {
		t.Errorf("suite written twice: %+v", s)
	}
	if err := WriteGateSummary(capacity, dst, "run-2"); err != nil {
		t.Fatal(err)
	}
	if s := read(); s.Outcome != GateBudgetBroken || s.Specs != 2 || len(s.Failed) != 1 {
		t.Errorf("a new run: %+v", s)
	}
}
