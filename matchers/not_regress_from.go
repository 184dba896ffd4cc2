package matchers

import (
	"errors"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// NotRegressFrom succeeds when the run's metric did not regress from a baseline artifact of
// the same workload beyond what varies between the two, and the comparison could have
// seen a change of the gate's size (gate.NoRegression, compare.Regression): against the
// baseline engine of an interleaved run (capacity.RunInterleaved), by its blocks;
// against a stored run, counting the run-to-run spread at gate.Comparison's RunCV.
//
//	Expect(run).To(NotRegressFrom(baseline).On("tpot_p50_ms").By(0.05))
//
// It fails with e.g. "tpot p50 regressed 9.8% (5.00ms -> 5.49ms, 95% CI of the change
// +7.1%..+12.6%, p=2e-05; 6 interleaved pairs against the baseline build, ...): worse than
// the 5.0% gate". It errors when there is nothing to judge: no metric, a workload that is
// not comparable (naming the differing fields, unless AllowMismatch), fewer than 5 requests
// either side, and a comparison that cannot resolve a change of the gate's size
// (inconclusive: the message gives the change it resolves and the pairs or history that
// would resolve the gate's), unless OnInconclusive(gate.InconclusivePass).
func NotRegressFrom(baseline *artifact.Benchmark) *RegressionMatcher {
	return &RegressionMatcher{against: gate.Against{Baseline: baseline}, how: gate.Comparison{}}
}

// NotRegressFromHistory is NotRegressFrom against a history of earlier runs of the
// scenario, whose spread it measures (see compare.DesignHistory).
func NotRegressFromHistory(history []*artifact.Benchmark) *RegressionMatcher {
	return &RegressionMatcher{against: gate.Against{History: history}, how: gate.Comparison{}}
}

// RegressionMatcher is the matcher NotRegressFrom builds; each method returns a configured
// copy.
type RegressionMatcher struct {
	against gate.Against
	metric  string
	how     gate.Comparison
	matcher *checkMatcher
}

// On names the metrics key judged, e.g. "tpot_p50_ms" or "decode_tok_s_p50".
func (m *RegressionMatcher) On(metric string) *RegressionMatcher {
	c := *m
	c.metric = metric
	return &c
}

// By sets the gate: the smallest relative change that must be caught (0.05 is 5%).
func (m *RegressionMatcher) By(gateBy float64) *RegressionMatcher {
	c := *m
	c.how.By = gateBy
	return &c
}

// RunCV sets the run-to-run spread counted between a run and one stored run, which no
// history measured (gate_run_cv; compare.DefaultRunCV, 5%, when not called). Set it from
// the engine's measured spread between restarts, never to what the gate needs.
func (m *RegressionMatcher) RunCV(cv float64) *RegressionMatcher {
	c := *m
	c.how.RunCV = cv
	return &c
}

// RestartCV sets what two engines measured side by side in an interleaved run do not share
// (gate_restart_cv; compare.DefaultRestartCV, 0.5%, when not called).
func (m *RegressionMatcher) RestartCV(cv float64) *RegressionMatcher {
	c := *m
	c.how.RestartCV = cv
	return &c
}

// AllowMismatch judges even when the workloads differ.
func (m *RegressionMatcher) AllowMismatch() *RegressionMatcher {
	c := *m
	c.how.AllowMismatch = true
	return &c
}

// OnInconclusive sets what a comparison that cannot resolve the gate's change comes to:
// gate.InconclusiveFail (the default) or gate.InconclusivePass.
func (m *RegressionMatcher) OnInconclusive(p gate.InconclusivePolicy) *RegressionMatcher {
	c := *m
	c.how.OnInconclusive = p
	return &c
}

// Match judges actual against the baseline. Only a regression is a failure; nothing to
// judge is an error.
func (m *RegressionMatcher) Match(actual any) (bool, error) {
	switch {
	case m.against.Baseline == nil && len(m.against.History) == 0:
		return false, errors.New("NotRegressFrom: no baseline artifact (got nil)")
	case m.metric == "":
		return false, errors.New(`NotRegressFrom: no metric; name one with .On("tpot_p50_ms")`)
	}
	m.matcher = named("NotRegressFrom", gate.NoRegression(m.against, m.metric, m.how))
	return m.matcher.Match(actual)
}

// FailureMessage is the verdict's one-line message.
func (m *RegressionMatcher) FailureMessage(actual any) string {
	return m.matcher.FailureMessage(actual)
}

// NegatedFailureMessage is the verdict's message for Not(NotRegressFrom(...)).
func (m *RegressionMatcher) NegatedFailureMessage(actual any) string {
	return m.matcher.result.Message + " (expected a regression)"
}
