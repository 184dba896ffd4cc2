package reporters

import (
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
