package matchers

import (
	"fmt"

	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/budget"
)

// MeetBudget succeeds when the artifact's metric holds the budget:
//
//	Expect(run).To(MeetBudget(budget.Budget{Metric: "tpot_p50_ms", Op: "<=", Limit: 6}))
//
// It fails with e.g. "tpot p50 6.31ms exceeds budget 6.00ms over 6 samples", and errors
// when the metric is null or has no samples. The budget's options are honoured (see
// budget.Parse): a percentile with fewer samples than it needs (p99 100, p95 20, p90 10
// unless @min says otherwise) errors with "tpot p99: insufficient samples: 6 of the 100
// required", and a bound judges that end of the 95% confidence interval:
//
//	Expect(run).To(MeetBudget(budget.Budget{Metric: "tpot_p95_ms", Op: "<=", Limit: 8}.
//		WithOptions(budget.Options{Bound: budget.Upper95})))
//
// fails with e.g. "tpot p95 upper CI95 bound 8.41ms exceeds budget 8.00ms over 80 samples
// (point 7.12ms)".
func MeetBudget(b budget.Budget) types.GomegaMatcher { return &budgetMatcher{budget: b} }

// HaveMetricAtMost is MeetBudget with <=: Expect(run).To(HaveMetricAtMost("tpot_p50_ms", 6)).
func HaveMetricAtMost(metric string, limit float64) types.GomegaMatcher {
	return MeetBudget(budget.Budget{Metric: metric, Op: budget.AtMost, Limit: limit})
}

// HaveMetricAtLeast is MeetBudget with >=: Expect(run).To(HaveMetricAtLeast("decode_tok_s_p50", 150)).
func HaveMetricAtLeast(metric string, limit float64) types.GomegaMatcher {
	return MeetBudget(budget.Budget{Metric: metric, Op: budget.AtLeast, Limit: limit})
}

type budgetMatcher struct {
	budget  budget.Budget
	verdict budget.Verdict
}

func (m *budgetMatcher) Match(actual any) (bool, error) {
	a, err := benchmarkOf("MeetBudget", actual)
	if err != nil {
		return false, err
	}
	m.verdict = budget.Judge(m.budget, a)
	if m.verdict.Err != nil {
		return false, fmt.Errorf("budget %s: %w", m.budget, m.verdict.Err)
	}
	return m.verdict.Pass, nil
}

func (m *budgetMatcher) FailureMessage(any) string { return m.verdict.Message() }

func (m *budgetMatcher) NegatedFailureMessage(any) string {
	return m.verdict.Message() + " (expected the budget to be broken)"
}
