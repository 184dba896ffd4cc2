package matchers

import (
	"fmt"
	"math"

	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/internal/units"
)

// MeasureNear succeeds when the artifact's metric is within a relative tolerance of a
// known true value, which is how the harness checks its own clock against an engine with
// injected latencies:
//
//	Expect(run).To(MeasureNear("tpot_p50_ms", 5.0, 0.05))
//
// It fails with e.g. "tpot p50 5.41ms is 8.2% off the true 5.00ms (tolerance 5.0%) over 6 samples".
func MeasureNear(metric string, truth, tolerance float64) types.GomegaMatcher {
	return &nearMatcher{metric: metric, truth: truth, tolerance: tolerance}
}

type nearMatcher struct {
	metric           string
	truth, tolerance float64
	verdict          budget.Verdict
	off              float64
}

func (m *nearMatcher) Match(actual any) (bool, error) {
	a, err := benchmarkOf("MeasureNear", actual)
	if err != nil {
		return false, err
	}
	if m.truth == 0 {
		return false, fmt.Errorf("MeasureNear %s: a true value of 0 has no relative tolerance", m.metric)
	}
	// Judge only to resolve the figure and its samples; the bound is relative.
	m.verdict = budget.Judge(budget.Budget{Metric: m.metric, Op: budget.AtMost, Limit: math.Inf(1)}, a)
	if m.verdict.Err != nil {
		return false, fmt.Errorf("MeasureNear: %w", m.verdict.Err)
	}
	m.off = (m.verdict.Value - m.truth) / m.truth
	return math.Abs(m.off) <= m.tolerance, nil
}

func (m *nearMatcher) message() string {
	unit := units.Of(m.metric)
	return fmt.Sprintf("%s %s is %.1f%% off the true %s (tolerance %.1f%%) over %d samples",
		label(m.metric), units.Format(m.verdict.Value, unit), 100*math.Abs(m.off),
		units.Format(m.truth, unit), 100*m.tolerance, m.verdict.Samples)
}

func (m *nearMatcher) FailureMessage(any) string { return m.message() }

func (m *nearMatcher) NegatedFailureMessage(any) string {
	return m.message() + " (expected it to be farther off)"
}

// label names a metric for people: "tpot_p50_ms" is "tpot p50".
func label(metric string) string {
	if f, ok := artifact.LookupFigure(metric); ok {
		return f.Label()
	}
	return metric
}
