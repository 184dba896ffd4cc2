package junit

import (
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

func spec(text string, labels []string, state types.SpecState, failedIn types.NodeType, entry *gate.Result) types.SpecReport {
	r := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, LeafNodeLabels: labels, State: state,
		Failure: types.Failure{Message: text + " broke", FailureNodeType: failedIn}}
	if entry != nil {
		r.ReportEntries = append(r.ReportEntries, types.ReportEntry{Name: CheckEntry, Value: types.WrapEntryValue(*entry)})
	}
	return r
}

// A failure's outcome comes from the check that failed it, whatever the spec's labels; a
// failure no check explains takes its kind label, else it is a failed run.
func TestSuiteVerdictClassifiesByWhatFailed(t *testing.T) {
	t.Parallel()
	failed, passed := types.SpecStateFailed, types.SpecStatePassed
	requests := &gate.Result{Kind: gate.KindRequests, Outcome: gate.RunFailed, Message: "2 of 6 requests failed"}
	regressed := &gate.Result{Kind: gate.KindRegression, Outcome: gate.Regression, Message: "tpot p50 regressed 9.8%"}
	cases := []struct {
		name string
		spec types.SpecReport
		want gate.Outcome
	}{
		{"failed requests in a budget-labelled spec", spec("budget", []string{"gate", "kind:budget"}, failed, types.NodeTypeIt, requests), gate.RunFailed},
		{"a regression in an unlabelled spec", spec("mine", nil, failed, types.NodeTypeIt, regressed), gate.Regression},
		{"a plain assertion in a budget-labelled spec", spec("budget", []string{"kind:budget"}, failed, types.NodeTypeIt, nil), gate.BudgetBroken},
		{"a plain assertion without labels", spec("mine", nil, failed, types.NodeTypeIt, nil), gate.RunFailed},
		{"a budget spec whose set-up failed", spec("budget", []string{"kind:budget"}, failed, types.NodeTypeBeforeAll, nil), gate.RunFailed},
		{"a regression that timed out", spec("mine", nil, types.SpecStateTimedout, types.NodeTypeIt, regressed), gate.RunFailed},
	}
	for _, c := range cases {
		checks, got, _ := SuiteVerdict(types.Report{SuiteDescription: "s", SuiteSucceeded: false, SpecReports: []types.SpecReport{
			spec("ok", nil, passed, 0, nil), spec("skipped", nil, types.SpecStateSkipped, 0, nil), c.spec}})
		if checks != 2 || len(got) != 1 || got[0].Outcome != c.want {
			t.Errorf("%s: %d checks, %+v; want 2 checks and %s", c.name, checks, got, c.want)
		}
	}
	// A failed BeforeSuite (the configuration, the preflight) is the run's failure.
	setup := types.SpecReport{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: failed,
		Failure: types.Failure{Message: "invalid anvilbench configuration: ANVIL_CONCURENCY: unknown variable"}}
	checks, got, _ := SuiteVerdict(types.Report{SuiteDescription: "capacity", SpecReports: []types.SpecReport{setup}})
	if checks != 0 || len(got) != 1 || got[0].Outcome != gate.RunFailed || got[0].Check != "suite capacity set-up (SynchronizedBeforeSuite)" {
		t.Errorf("set-up: %d %+v", checks, got)
	}
	// A suite that did not succeed with nothing to show for it (an interrupt).
	_, got, _ = SuiteVerdict(types.Report{SuiteDescription: "capacity", SpecialSuiteFailureReasons: []string{"Interrupted by User"}})
	if len(got) != 1 || got[0].Outcome != gate.RunFailed || got[0].Message != "Interrupted by User" {
		t.Errorf("interrupted: %+v", got)
	}
}

// A comparison that passed only because the gate passes an inconclusive one is listed
// apart: not a failure, not a silent pass; a plain pass is neither.
func TestSuiteVerdictListsWhatPassedInconclusive(t *testing.T) {
	t.Parallel()
	allowed := &gate.Result{Kind: gate.KindRegression, Outcome: gate.Pass, Judged: true, Noted: "inconclusive, passed by gate_inconclusive=pass", Message: "tpot p50 inconclusive: resolves 40% at best"}
	held := &gate.Result{Kind: gate.KindRegression, Outcome: gate.Pass, Judged: true, Message: "tpot p50 changed +0.1%"}
	checks, failed, inconclusive := SuiteVerdict(types.Report{SuiteDescription: "s", SuiteSucceeded: true, SpecReports: []types.SpecReport{
		spec("tpot", nil, types.SpecStatePassed, types.NodeTypeIt, allowed), spec("ttft", nil, types.SpecStatePassed, types.NodeTypeIt, held)}})
	if checks != 2 || len(failed) != 0 || len(inconclusive) != 1 || inconclusive[0].Check != "tpot" || inconclusive[0].State != "inconclusive, passed by gate_inconclusive=pass" || inconclusive[0].Message != allowed.Message {
		t.Errorf("checks %d, failed %v, inconclusive %+v", checks, failed, inconclusive)
	}
}
