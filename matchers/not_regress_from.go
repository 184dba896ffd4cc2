package matchers

import (
	"errors"
	"fmt"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/compare"
)

// DefaultRegressionGate is the gate of NotRegressFrom when By is not called: 5%.
const DefaultRegressionGate = 0.05

// NotRegressFrom succeeds when the run's metric did not regress from a baseline artifact of
// the same workload beyond noise (compare.Regression: worse by more than half the gate and
// significant):
//
//	Expect(run).To(NotRegressFrom(baseline).On("tpot_p50_ms").By(0.05))
//
// It fails with e.g. "tpot p50 regressed 9.8% (5.00ms -> 5.49ms, 95% CI of the ratio
// 1.081..1.112, p=2e-05, 32 vs 32 requests): worse than the 5.0% gate". It errors when there
// is nothing to judge: no metric, a workload that is not comparable (naming the differing
// fields, unless AllowMismatch), fewer than compare.MinRows requests either side.
func NotRegressFrom(baseline *artifact.Benchmark) *RegressionMatcher {
	return &RegressionMatcher{baseline: baseline, by: DefaultRegressionGate}
}

// RegressionMatcher is the matcher NotRegressFrom builds; each method returns a configured
// copy.
type RegressionMatcher struct {
	baseline *artifact.Benchmark
	metric   string
	by       float64
	opts     compare.Options
	verdict  compare.Verdict
}

// On names the metrics key judged, e.g. "tpot_p50_ms" or "decode_tok_s_p50".
func (m *RegressionMatcher) On(metric string) *RegressionMatcher {
	c := *m
	c.metric = metric
	return &c
}

// By sets the gate: the smallest relative change that must be caught (0.05 is 5%).
func (m *RegressionMatcher) By(gate float64) *RegressionMatcher {
	c := *m
	c.by = gate
	return &c
}

// AllowMismatch judges even when the workloads differ.
func (m *RegressionMatcher) AllowMismatch() *RegressionMatcher {
	c := *m
	c.opts.AllowMismatch = true
	return &c
}

// Match judges actual against the baseline and caches the verdict for the messages. Only a
// regression is a failure; nothing to judge is an error.
func (m *RegressionMatcher) Match(actual any) (bool, error) {
	a, err := benchmarkOf("NotRegressFrom", actual)
	if err != nil {
		return false, err
	}
	switch {
	case m.baseline == nil:
		return false, errors.New("NotRegressFrom: no baseline artifact (got nil)")
	case m.metric == "":
		return false, errors.New(`NotRegressFrom: no metric; name one with .On("tpot_p50_ms")`)
	}
	m.verdict = compare.Regression(m.baseline, a, m.metric, m.by, m.opts)
	switch m.verdict.Outcome {
	case compare.Pass:
		return true, nil
	case compare.Regressed:
		return false, nil
	}
	return false, fmt.Errorf("NotRegressFrom: %s", m.verdict.Message())
}

// FailureMessage is the verdict's one-line message.
func (m *RegressionMatcher) FailureMessage(any) string { return m.verdict.Message() }

// NegatedFailureMessage is the verdict's message for Not(NotRegressFrom(...)).
func (m *RegressionMatcher) NegatedFailureMessage(any) string {
	return m.verdict.Message() + " (expected a regression)"
}
