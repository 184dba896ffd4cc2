package compare

import (
	"fmt"
	"strconv"

	"github.com/anvilbench/anvilbench/harness/budget"
)

// Message is the verdict in one line, e.g.
// "tpot p50 regressed 9.8% (5.00ms -> 5.49ms, 95% CI of the ratio 1.081..1.112, p=2e-05,
// 32 vs 32 requests): worse than the 5.0% gate".
func (v Verdict) Message() string {
	name := budget.Describe(v.Metric)
	gate := percent(v.By)
	switch v.Outcome {
	case Invalid:
		if v.Err != nil {
			return v.Err.Error()
		}
		return name + ": invalid comparison"
	case NotComparable:
		return fmt.Sprintf("%s: not comparable: %s", name, Explain(v.Differences))
	case Insufficient:
		return fmt.Sprintf("%s: not comparable: %d vs %d requests with a figure (a comparison needs at least %d on each side)", name, v.BaselineSamples, v.CurrentSamples, minRows)
	case Inconclusive:
		return fmt.Sprintf("%s inconclusive: changed %s (%s): these samples resolve a change of %s at best, not the %s gate; about %d requests in each run would",
			name, signedPercent(v.Ratio-1), v.figures(), percent(v.Detectable), gate, v.RequestsNeeded)
	case Regressed:
		tail := "worse than the " + gate + " gate"
		if v.Worse < v.By {
			tail = "significant and more than half the " + gate + " gate"
		}
		return fmt.Sprintf("%s regressed %s (%s): %s", name, percent(v.Worse), v.figures(), tail)
	}
	switch {
	case v.Improved:
		return fmt.Sprintf("%s improved %s (%s): better by more than half the %s gate", name, percent(-v.Worse), v.figures(), gate)
	case v.Significant:
		return fmt.Sprintf("%s changed %s (%s): significant but within half the %s gate", name, signedPercent(v.Ratio-1), v.figures(), gate)
	}
	return fmt.Sprintf("%s changed %s (%s): not significant, no regression at the %s gate (a change of %s would have shown)",
		name, signedPercent(v.Ratio-1), v.figures(), gate, percent(v.Detectable))
}

// figures is "5.00ms -> 5.49ms, 95% CI of the ratio 1.081..1.112, p=2e-05, 32 vs 32 requests".
func (v Verdict) figures() string {
	unit := budget.Unit(v.Metric)
	return fmt.Sprintf("%s -> %s, 95%% CI of the ratio %.3f..%.3f, p=%s, %d vs %d requests",
		budget.Format(v.Baseline, unit), budget.Format(v.Current, unit), v.RatioLow, v.RatioHigh,
		strconv.FormatFloat(v.P, 'g', 2, 64), v.BaselineSamples, v.CurrentSamples)
}

// signedPercent is "+1.2%" or "-0.8%".
func signedPercent(f float64) string { return fmt.Sprintf("%+.1f%%", 100*f) }
