package matchers

import (
	"errors"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// DefaultRegressionGate is the gate of NotRegressFrom when By is not called: 5%.
const DefaultRegressionGate = gate.DefaultBy

// NotRegressFrom succeeds when the run's metric did not regress from a baseline artifact of
// the same workload beyond noise, and the samples could have seen a change of the gate's
// size (gate.NoRegression, compare.Regression):
//
//	Expect(run).To(NotRegressFrom(baseline).On("tpot_p50_ms").By(0.05))
//
// It fails with e.g. "tpot p50 regressed 9.8% (5.00ms -> 5.49ms, 95% CI of the ratio
// 1.081..1.112, p=2e-05, 32 vs 32 requests): worse than the 5.0% gate". It errors when
// there is nothing to judge: no metric, a workload that is not comparable (naming the
// differing fields, unless AllowMismatch), fewer than 5 requests either side,
// and samples that cannot resolve a change of the gate's size (inconclusive: the message
// gives the change they resolve and the requests each run would need), unless
// OnInconclusive(gate.InconclusivePass).
func NotRegressFrom(baseline *artifact.Benchmark) *RegressionMatcher {
	return &RegressionMatcher{baseline: baseline, how: gate.Comparison{By: DefaultRegressionGate}}
}

// RegressionMatcher is the matcher NotRegressFrom builds; each method returns a configured
// copy.
type RegressionMatcher struct {
	baseline *artifact.Benchmark
	metric   string
	how      gate.Comparison
	matcher  *checkMatcher
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
	case m.baseline == nil:
		return false, errors.New("NotRegressFrom: no baseline artifact (got nil)")
	case m.metric == "":
		return false, errors.New(`NotRegressFrom: no metric; name one with .On("tpot_p50_ms")`)
	}
	m.matcher = named("NotRegressFrom", gate.NoRegression(m.baseline, m.metric, m.how))
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
