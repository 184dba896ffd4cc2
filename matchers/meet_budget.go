package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// MeetBudget succeeds when the artifact's metric holds the budget (gate.MeetBudget):
//
//	Expect(run).To(MeetBudget(budget.Budget{Metric: "tpot_p50_ms", Op: "<=", Limit: 6}))
//
// It fails with e.g. "tpot p50 6.31ms exceeds budget 6.00ms over 6 samples" (the run's gate:
// budget broken), and errors when the metric is null or has no samples. The budget's
// options are honoured (see budget.Parse): a percentile with fewer samples than it needs
// (p99 100, p95 20, p90 10 unless @min says otherwise) errors with "tpot p99: insufficient
// samples: 6 of the 100 required" (inconclusive, or a failed run when requests failed), and
// a bound judges that end of the 95% confidence interval:
//
//	Expect(run).To(MeetBudget(budget.Budget{Metric: "tpot_p95_ms", Op: budget.AtMost, Limit: 8, Bound: budget.Upper95}))
//
// fails with e.g. "tpot p95 upper CI95 bound 8.41ms exceeds budget 8.00ms over 80 samples
// (point 7.12ms)".
func MeetBudget(b budget.Budget) types.GomegaMatcher { return named("MeetBudget", gate.MeetBudget(b)) }

// HaveMetricAtMost is MeetBudget with <=: Expect(run).To(HaveMetricAtMost("tpot_p50_ms", 6)).
func HaveMetricAtMost(metric string, limit float64) types.GomegaMatcher {
	return MeetBudget(budget.Budget{Metric: metric, Op: budget.AtMost, Limit: limit})
}

// HaveMetricAtLeast is MeetBudget with >=: Expect(run).To(HaveMetricAtLeast("decode_tok_s_p50", 150)).
func HaveMetricAtLeast(metric string, limit float64) types.GomegaMatcher {
	return MeetBudget(budget.Budget{Metric: metric, Op: budget.AtLeast, Limit: limit})
}
