package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/units"
)

// Message is the verdict in one line, e.g. "tpot p50 regressed 9.8% (5.00ms -> 5.49ms,
// 95% CI of the change +7.1%..+12.6%, p=2e-05): worse than the 5.0% gate; 6 interleaved
// pairs against the baseline build, what two engines side by side do not share counted at
// 0.5% (gate_restart_cv)".
func (v Verdict) Message() string {
	return v.message() + v.baselineNote()
}

func (v Verdict) message() string {
	name := label(v.Metric)
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
		if v.Err != nil {
			return fmt.Sprintf("%s: not comparable: %v", name, v.Err)
		}
		return fmt.Sprintf("%s: not comparable: %d vs %d requests with a figure (a comparison needs at least %d on each side)", name, v.BaselineSamples, v.CurrentSamples, minRows)
	case Inconclusive:
		if v.Err != nil {
			unit := units.Of(v.Metric)
			return fmt.Sprintf("%s inconclusive: changed %s (%s -> %s): %v", name, signedPercent(v.Ratio-1),
				units.Format(v.Baseline, unit), units.Format(v.Current, unit), v.Err)
		}
		return fmt.Sprintf("%s inconclusive: changed %s (%s); %s%s resolves %s, not the %s gate: %s",
			name, signedPercent(v.Ratio-1), v.figures(), v.Units, v.counted(), resolvable(v.Detectable), gate, v.resolvedBy())
	case Regressed:
		tail := "worse than the " + gate + " gate"
		if v.Worse < v.By {
			tail = "significant and more than half the " + gate + " gate"
		}
		msg := fmt.Sprintf("%s regressed %s (%s): %s; %s%s", name, percent(v.Worse), v.figures(), tail, v.Units, v.counted())
		if v.Attribution != nil {
			f, _ := artifact.LookupFigure(v.Metric)
			msg += "; " + v.Attribution.Text(f.Family)
		}
		return msg
	}
	switch {
	case v.Improved:
		return fmt.Sprintf("%s improved %s (%s): better by more than half the %s gate; %s%s", name, percent(-v.Worse), v.figures(), gate, v.Units, v.counted())
	case v.Significant:
		return fmt.Sprintf("%s changed %s (%s): significant but within half the %s gate; %s%s", name, signedPercent(v.Ratio-1), v.figures(), gate, v.Units, v.counted())
	}
	return fmt.Sprintf("%s changed %s (%s): not significant, no regression at the %s gate (a change of %s would have shown); %s%s",
		name, signedPercent(v.Ratio-1), v.figures(), gate, percent(v.Detectable), v.Units, v.counted())
}

// counted is ", with <the spread counted at a default>", or "" when the design measured
// every spread it counts.
func (v Verdict) counted() string {
	if v.Counted == "" {
		return ""
	}
	return " (" + v.Counted + ")"
}

// resolvedBy says what would resolve a change of the gate's size: so many interleaved
// pairs, or a history of so many runs, in place of this comparison.
func (v Verdict) resolvedBy() string {
	switch {
	case v.PairsNeeded > 0 && v.HistoryRunsNeeded > 0:
		return fmt.Sprintf("%d interleaved pairs against the baseline build, or a history of %d runs, would", v.PairsNeeded, v.HistoryRunsNeeded)
	case v.PairsNeeded > 0 && v.Design == DesignInterleaved:
		return fmt.Sprintf("%d interleaved pairs would", v.PairsNeeded)
	case v.PairsNeeded > 0:
		return fmt.Sprintf("%d interleaved pairs against the baseline build would (no history can: one run's own spread is wider than the gate)", v.PairsNeeded)
	case v.HistoryRunsNeeded > 0:
		return fmt.Sprintf("a history of %d runs would, or interleaved pairs against the baseline build", v.HistoryRunsNeeded)
	case v.Design == DesignHistory:
		return "no history can, one run's own spread being wider than the gate: interleave blocks against the baseline build (baseline_url)"
	case v.Design == DesignInterleaved && v.startsFloor > v.By:
		return fmt.Sprintf("no number of pairs would: what two starts differ by, as counted, alone leaves %s at best; gate a larger change (gate_by), or steady the engine's starts", percent(v.startsFloor))
	}
	return "no number of runs or pairs would at this spread: steady the figure (more requests in each block with requests, " +
		"fewer streams with concurrency, more blocks with repeats, a longer max_tokens for TPOT), or gate a larger change (gate_by)"
}

// resolvable is the smallest change a comparison resolves, "25.0% at best"; past a
// doubling, "no change under 100% (its spread alone 1930.7%)": a figure that large says
// the samples are too few or too spread to judge, not that the engine moved that much.
func resolvable(detectable float64) string {
	if detectable > 1 {
		return fmt.Sprintf("no change under 100%% (its spread alone %s)", percent(detectable))
	}
	return percent(detectable) + " at best"
}

// baselineNote tells a history's own shift apart from this run's change.
func (v Verdict) baselineNote() string {
	if v.BaselineChangedAt == 0 {
		return ""
	}
	return fmt.Sprintf("; the baseline already changed at run %d of %d (%s): judged against its level since", v.BaselineChangedAt, v.HistoryLength, signedPercent(v.BaselineChange))
}

// figures is "5.00ms -> 5.49ms, 95% CI of the change +7.1%..+12.6%, p=2e-05".
func (v Verdict) figures() string {
	unit := units.Of(v.Metric)
	return fmt.Sprintf("%s -> %s, 95%% CI of the change %s..%s, %s",
		units.Format(v.Baseline, unit), units.Format(v.Current, unit), signedPercent(v.RatioLow-1), signedPercent(v.RatioHigh-1),
		pValue(v.P))
}

// pValue is "p=0.0041", or "p<1e-16" below what a double resolves next to 1.
func pValue(p float64) string {
	if p < 1e-16 {
		return "p<1e-16"
	}
	return "p=" + strconv.FormatFloat(p, 'g', 2, 64)
}

// signedPercent is "+1.2%" or "-0.8%".
func signedPercent(f float64) string { return fmt.Sprintf("%+.1f%%", 100*f) }

// Explain is the differences in one line, separated by semicolons:
// "concurrency 1 vs 20; max_tokens 512 vs 64".
func Explain(diffs []artifact.Difference) string {
	parts := make([]string, len(diffs))
	for i, d := range diffs {
		parts[i] = d.String()
	}
	return strings.Join(parts, "; ")
}
