package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
	"github.com/anvilbench/anvilbench/internal/units"
)

// throughput is the one scalar metric Regression judges.
const throughput = "throughput_tok_s"

// CheckMetric reports whether Compare can judge metric: Failed, throughput_tok_s, a mean
// or percentile key of a latency or rate family, or a figure of the engine's speculative
// decoding (spec_accept_rate, spec_accept_length). The error quotes the metric.
func CheckMetric(metric string) error {
	if metric == failedMetric {
		return nil
	}
	_, err := seriesOf(metric)
	return err
}

// series is how one metric is drawn from an artifact's rows for a regression test.
type series struct {
	name string
	// fig is the metric's definition: its per-request values (Figure.Values) are what
	// the test resamples, except for an engine counter (fig.Engine, spec_accept_rate),
	// which has none: its spread comes from blocks or a history.
	fig artifact.Figure
	q   float64 // percentile, or 0 for a mean
}

// seriesOf resolves a metrics key: a mean or percentile key of a latency or rate family,
// throughput_tok_s, or a figure of the engine's speculative decoding.
func seriesOf(metric string) (series, error) {
	f, ok := artifact.LookupFigure(metric)
	s := series{name: label(metric), fig: f}
	switch {
	case ok && (f.Engine || metric == throughput):
		return s, nil
	case !ok || f.Family == "":
		return s, fmt.Errorf("metric %q: want a mean or percentile key of a latency or rate family (e.g. tpot_p50_ms) or %s", metric, throughput)
	case !f.Judged:
		return s, fmt.Errorf("metric %q: %s counts tokens; it measures the workload, not the engine's speed", metric, f.Family)
	case f.Stat == "mean":
		return s, nil
	}
	if s.q = units.PercentileOf(f.Stat); s.q > 0 {
		return s, nil
	}
	return s, fmt.Errorf("metric %q: the %s of a run has no per-request test; want its mean or a percentile", metric, f.Stat)
}

// label names a metric for people: "tpot_p50_ms" is "tpot p50".
func label(metric string) string {
	if f, ok := artifact.LookupFigure(metric); ok {
		return f.Label()
	}
	return metric
}

// samples are the per-request values the test compares (Figure.Values): the family's row
// values, or for throughput each request's own delivered rate, output_tokens / e2e seconds
// (at a fixed concurrency the run's throughput moves with them).
func (s series) samples(a *artifact.Benchmark, lo, hi int) []float64 {
	values, _ := s.fig.Values(a, lo, hi)
	return values
}

// figure is the metric's value: the statistic over the rows (the artifact's own figure when
// its rows are intact), or for throughput the artifact's scalar, which is null when any
// request failed.
func (s series) figure(a *artifact.Benchmark, values []float64, side string) (float64, error) {
	switch {
	case s.fig.Family == "":
		if a.Metrics.ThroughputTokS == nil {
			return 0, fmt.Errorf("%s is null in the %s artifact (withheld when a request failed or usage was missing)", throughput, side)
		}
		return float64(*a.Metrics.ThroughputTokS), nil
	case s.q == 0:
		return stats.FMean(values), nil
	}
	sorted := slices.Sorted(slices.Values(values))
	return stats.Percentile(sorted, s.q)
}

// interval is the seeded bootstrap 95% interval of the ratio current/baseline of the
// statistic: of the percentile for percentile keys, of the mean for means and throughput.
func (s series) interval(baseline, current []float64, resamples int, seed int64) (lo, hi float64) {
	if s.q > 0 {
		lo, hi, _ = stats.BootstrapQuantileRatio(baseline, current, s.q, resamples, seed)
	} else {
		lo, hi, _ = stats.BootstrapMeanRatio(baseline, current, resamples, seed)
	}
	return lo, hi
}

// side is what one run holds of the metric: its figure, the requests it stands on and,
// for a figure of the rows, their values (nil for an engine figure).
type side struct {
	figure float64
	n      int
	rows   []float64
}

// read is the metric's side in a: for an engine figure, the run's figure and its completed
// requests; else the rows and, with enough of them, their figure.
func (s series) read(a *artifact.Benchmark, name string) (side, error) {
	if s.fig.Engine {
		out := side{n: len(a.RequestTimings)}
		v, _ := s.fig.Of(a)
		if v == nil {
			return out, fmt.Errorf("%s: the %s run has none: its engine exported no speculative decoding counters, or drafted nothing", s.name, name)
		}
		out.figure = *v
		return out, nil
	}
	rows := s.samples(a, math.MinInt, math.MaxInt)
	if len(rows) < minRows {
		return side{rows: rows, n: len(rows)}, nil
	}
	f, err := s.figure(a, rows, name)
	return side{figure: f, n: len(rows), rows: rows}, err
}

// blockFigures are the log of the metric's figure in each block of a, and each block's
// midpoint in Unix ns, the whole run one block when it records none; a block without a
// positive figure is left out.
func (s series) blockFigures(a *artifact.Benchmark) (logs []float64, mids []int64, err error) {
	x := a.Extension
	recorded := x != nil && x.Blocks != nil && len(x.Blocks.Blocks) > 0
	if recorded && s.fig.Engine {
		_, recorded = x.Blocks.Figures[s.fig.Key]
	}
	if !recorded {
		sd, err := s.read(a, "a")
		if err != nil || !(sd.figure > 0) {
			return nil, nil, err
		}
		return []float64{math.Log(sd.figure)}, []int64{(a.StartedAtUnixNs + a.FinishedAtUnixNs) / 2}, nil
	}
	per := x.Blocks.RequestsPerBlock
	for j, bl := range x.Blocks.Blocks {
		f := 0.0
		if s.fig.Family == "" {
			if v := x.Blocks.Figures[s.fig.Key].Values; j < len(v) && v[j] != nil {
				f = float64(*v[j])
			}
		} else {
			if rows := s.samples(a, j*per, (j+1)*per); len(rows) > 0 {
				f, _ = s.figure(nil, rows, "block")
			}
		}
		if f > 0 {
			logs = append(logs, math.Log(f))
			mids = append(mids, a.StartedAtUnixNs+int64((float64(bl.StartOffsetMs)+float64(bl.DurationMs)/2)*1e6))
		}
	}
	return logs, mids, nil
}
