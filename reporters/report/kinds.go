package report

import (
	"bytes"
	"fmt"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/reporters/report/internal/chart"
)

// kindChart is a chart of a workload kind's own: sessions' TTFT by turn, a trace's actual
// starts against its schedule.
type kindChart struct {
	SVG, Caption string
}

// kindCharts draws what the run's workload kind shows on its own, its blocks (beside its
// partner's of an interleaved run), the history it was judged against and its GPUs' clocks.
func kindCharts(v *runView, partner *runView) []kindChart {
	x := v.B.Extension
	if x == nil {
		return nil
	}
	var out []kindChart
	if x.Interleaved == nil || x.Interleaved.Role != artifact.RoleBaseline {
		if c, ok := blockChart(v, partner); ok {
			out = append(out, c)
		}
	}
	if c, ok := trendChart(v); ok {
		out = append(out, c)
	}
	if g := x.GPU; g != nil && len(g.GPUs) > 0 {
		if c, ok := gpuChart(v, g); ok {
			out = append(out, c)
		}
	}
	if s := x.Sessions; s != nil {
		if c, ok := turnChart(v, s); ok {
			out = append(out, c)
		}
	}
	if t := x.Trace; t != nil {
		if c, ok := traceChart(v, t, x.Timeline); ok {
			out = append(out, c)
		}
	}
	return out
}

// turnChart draws TTFT p50 and p95 by turn.
func turnChart(v *runView, s *artifact.Sessions) (kindChart, bool) {
	c := chart.XY{ID: "chart-turns-" + v.ID, Title: "TTFT by turn: " + v.Name, XLabel: "turn", YLabel: "TTFT (ms)"}
	p50, p95 := chart.Series{Name: "ttft p50"}, chart.Series{Name: "ttft p95"}
	caption := fmt.Sprintf("%d sessions of %d turns.", s.Sessions, s.Turns)
	for _, t := range s.ByTurn {
		if t.TTFTMs == nil {
			continue
		}
		label := fmt.Sprintf("turn %d, %d sessions", t.Turn, t.TTFTMs.Samples)
		p50.Points = append(p50.Points, chart.Point{X: float64(t.Turn), Y: float64(t.TTFTMs.P50), Label: label})
		p95.Points = append(p95.Points, chart.Point{X: float64(t.Turn), Y: float64(t.TTFTMs.P95), Label: label})
		if t.CacheHitRate != nil && t.ExpectedHitRate != nil {
			caption += fmt.Sprintf(" Turn %d: %s%% of prompt tokens cached (%s%% expected).", t.Turn,
				fmtNumber(100*float64(*t.CacheHitRate), 0), fmtNumber(100*float64(*t.ExpectedHitRate), 0))
		}
	}
	c.Series = []chart.Series{p50, p95}
	if !c.Drawable() {
		return kindChart{}, false
	}
	c.Desc = fmt.Sprintf("TTFT p50 and p95 of each turn over %d sessions", s.Sessions)
	var buf bytes.Buffer
	if c.Write(&buf) != nil {
		return kindChart{}, false
	}
	return kindChart{SVG: buf.String(), Caption: caption}, true
}

// traceChart draws each request's actual start against its start on the trace's schedule:
// on the diagonal when the replay kept to it.
func traceChart(v *runView, t *artifact.TraceReplay, spans []artifact.RequestSpan) (kindChart, bool) {
	c := chart.XY{ID: "chart-trace-" + v.ID, Title: "Trace replay: actual against intended start, " + v.Name,
		XLabel: "intended start (ms since the request phase began)", YLabel: "actual start (ms)"}
	actual, schedule := chart.Series{Name: "actual start"}, chart.Series{Name: "on schedule", Dashed: true}
	for k, s := range spans {
		if k == maxTimelineRequests {
			break
		}
		if s.StartOffsetMs == nil || s.IntendedStartOffsetMs == nil {
			continue
		}
		due, at := float64(*s.IntendedStartOffsetMs), float64(*s.StartOffsetMs)
		label := fmt.Sprintf("request %d", s.RequestIndex)
		if s.TraceLine != nil {
			label = fmt.Sprintf("line %d, %s late", *s.TraceLine, fmtMs(at-due))
		}
		actual.Points = append(actual.Points, chart.Point{X: due, Y: at, Label: label})
		schedule.Points = append(schedule.Points, chart.Point{X: due, Y: due})
	}
	c.Series = []chart.Series{actual, schedule}
	if !c.Drawable() {
		return kindChart{}, false
	}
	c.Desc = fmt.Sprintf("the actual start of each of %d requests against its start on the trace's schedule", len(actual.Points))
	caption := fmt.Sprintf("%s: %d of %d lines at %g× speed.", t.File, t.Selected, t.FileLines, float64(t.Speedup))
	if e := t.StartErrorMs; e != nil {
		caption += fmt.Sprintf(" Start error p50 %s, p99 %s.", fmtMs(float64(e.P50)), fmtMs(float64(e.P99)))
	}
	var buf bytes.Buffer
	if c.Write(&buf) != nil {
		return kindChart{}, false
	}
	return kindChart{SVG: buf.String(), Caption: caption}, true
}
