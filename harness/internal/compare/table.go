package compare

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// failedMetric is the pseudo-metric of the table that compares failed requests (the top-level
// "failed" count), not a key of the metrics block.
const failedMetric = "failed"

// DefaultMetrics are the rows of the comparison table when none are named: TTFT p50 and
// p95, TPOT p50 and p95, e2e p50, decode p50, throughput and failed requests.
func DefaultMetrics() []string {
	var out []string
	for _, f := range artifact.HeadlineFigures() {
		out = append(out, f.Key)
	}
	return append(out, failedMetric)
}

// Row is one metric of the comparison table.
type Row struct {
	Metric string
	// Baseline and Current are the figures compared (those of the verdict when it was
	// reached, else the artifacts' own); nil when an artifact has none.
	Baseline, Current *float64
	// Outcome is the verdict; Message says it in one line.
	Outcome Outcome
	Message string
	// Verdict is the full regression verdict; nil for the Failed row.
	Verdict *Verdict
}

// Delta is Current/Baseline − 1, or for the Failed row the change in the count; nil when a
// figure is missing or the baseline figure is 0.
func (r Row) Delta() *float64 {
	if r.Baseline == nil || r.Current == nil {
		return nil
	}
	d := *r.Current - *r.Baseline
	if r.Metric != failedMetric {
		if *r.Baseline == 0 {
			return nil
		}
		d = *r.Current / *r.Baseline - 1
	}
	return &d
}

// Report is a current artifact compared with a baseline, metric by metric.
type Report struct {
	// BaselineName and CurrentName label the two artifacts in the rendered report (file
	// names, say); Compare leaves them empty.
	BaselineName, CurrentName string
	// By is the gate of every row.
	By float64
	// Differences are the workload differences; Comparable is true when there are none.
	Comparable  bool
	Differences []artifact.Difference
	Rows        []Row
}

// Outcome sums up the report: NotComparable when the workloads differ and no row was
// judged; else Regressed when any row regressed; else Invalid or Insufficient when any row
// could not be judged (Invalid first); else Inconclusive when any row could not resolve a
// change of the gate's size; else Pass.
func (r Report) Outcome() Outcome {
	seen := map[Outcome]bool{}
	for _, row := range r.Rows {
		seen[row.Outcome] = true
	}
	for _, o := range []Outcome{NotComparable, Regressed, Invalid, Insufficient, Inconclusive} {
		if seen[o] {
			return o
		}
	}
	if len(r.Rows) == 0 {
		return Invalid
	}
	return Pass
}

// Compare judges each of metrics (DefaultMetrics when empty) of current against baseline
// with Regression at gate by, and the Failed row by the failed-requests rule: a regression
// when the current run has failures and a larger share of failed requests than the
// baseline. With a history (Options.History) baseline may be nil: the history's latest
// run then stands for it in the workload check and the failed row.
func Compare(baseline, current *artifact.Benchmark, metrics []string, by float64, opts Options) Report {
	if len(metrics) == 0 {
		metrics = DefaultMetrics()
	}
	if baseline == nil && len(opts.History) > 0 {
		baseline = slices.MaxFunc(opts.History, func(a, b *artifact.Benchmark) int { return cmp.Compare(a.StartedAtUnixNs, b.StartedAtUnixNs) })
	}
	diffs := artifact.Differences(baseline, current)
	r := Report{By: by, Comparable: len(diffs) == 0, Differences: diffs}
	for _, m := range metrics {
		if m == failedMetric {
			r.Rows = append(r.Rows, failedRow(baseline, current, diffs, opts))
			continue
		}
		v := Regression(baseline, current, m, by, opts)
		row := Row{Metric: m, Outcome: v.Outcome, Message: v.Message(), Verdict: &v}
		if v.Outcome == Pass || v.Outcome == Regressed || v.Outcome == Inconclusive {
			row.Baseline, row.Current = &v.Baseline, &v.Current
		} else {
			row.Baseline, row.Current = lookup(baseline, m), lookup(current, m)
		}
		r.Rows = append(r.Rows, row)
	}
	return r
}

// failedRow compares the failed requests of the two runs.
func failedRow(baseline, current *artifact.Benchmark, diffs []artifact.Difference, opts Options) Row {
	row := Row{Metric: failedMetric}
	if baseline == nil || current == nil {
		row.Outcome, row.Message = Invalid, "failed: a baseline and a current artifact are both needed"
		return row
	}
	b, c := float64(baseline.Failed), float64(current.Failed)
	row.Baseline, row.Current = &b, &c
	counts := fmt.Sprintf("%d of %d requests vs %d of %d", baseline.Failed, baseline.Requests, current.Failed, current.Requests)
	switch {
	case len(diffs) > 0 && !opts.AllowMismatch:
		row.Outcome, row.Message = NotComparable, "failed: not comparable: "+counts
	case current.Requests <= 0 || baseline.Requests <= 0:
		row.Outcome, row.Message = Invalid, "failed: an artifact attempted no requests: "+counts
	case current.Failed > 0 && c/float64(current.Requests) > b/float64(baseline.Requests):
		row.Outcome, row.Message = Regressed, "failed requests rose: "+counts
	default:
		row.Outcome, row.Message = Pass, "failed requests did not rise: "+counts
	}
	return row
}

// lookup is the artifact's own figure for a metrics key, nil when absent or null.
func lookup(a *artifact.Benchmark, key string) *float64 {
	if a == nil {
		return nil
	}
	v, _, ok := a.Metrics.Lookup(key)
	if !ok {
		return nil
	}
	return v
}
