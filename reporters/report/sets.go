package report

import (
	"bytes"
	"cmp"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/internal/units"
	"github.com/anvilbench/anvilbench/reporters/report/internal/chart"
)

// chartView is one rendered chart.
type chartView struct {
	ID, Title string
	// SVG is the chart's markup (package chart escapes what it draws).
	SVG string
	// Caption says what the chart shows beyond its title (the knee, what was left out).
	Caption string
}

// A sweep is a variable a ladder of runs varies: runs that differ in it alone (and in
// what follows from it) form one comparable set, drawn as one line.
type sweep struct {
	id, xLabel string
	xLog       bool
	x          func(*runView) (float64, bool)
	// varies are the workload-identity fields (artifact.Differences) the sweep may change.
	varies []string
	// figures are the y of its charts: a family, its default key and its title.
	figures []sweepFigure
}

type sweepFigure struct{ family, key, title string }

var sweeps = []sweep{
	{
		id: "concurrency", xLabel: "concurrency", xLog: true,
		x:      func(r *runView) (float64, bool) { return float64(r.B.Concurrency), r.B.Concurrency > 0 },
		varies: []string{"concurrency", "context_distribution"},
		figures: []sweepFigure{
			{"tpot", "tpot_p50_ms", "TPOT"}, {"ttft", "ttft_p50_ms", "TTFT"}, {"throughput", "throughput_tok_s", "Throughput"},
		},
	},
	{
		id: "context", xLabel: "planned context (tokens)",
		x: func(r *runView) (float64, bool) {
			c, exact := plannedContext(r.B)
			return c, exact && c > 0
		},
		varies:  []string{"context_tokens", "context_distribution"},
		figures: []sweepFigure{{"ttft", "ttft_p50_ms", "TTFT"}},
	},
}

// set is one comparable set: the runs of one ladder against one endpoint and model, the
// same workload apart from the swept variable, in x order with one run per x.
type set struct {
	stem, endpoint, engine string
	runs                   []*runView
	xs                     []float64
}

// closedLoop reports whether a run kept its concurrency in flight: an open loop's or a
// burst's concurrency is no load level of a ladder.
func closedLoop(b *artifact.Benchmark) bool {
	return b.Extension == nil || b.Extension.Arrival.Model == "" || b.Extension.Arrival.Model == artifact.ArrivalClosedLoop
}

func (s *set) admits(sw sweep, r *runView) bool {
	if stemOf(r) != s.stem || r.B.BaseURL != s.endpoint || deref(r.B.Engine) != s.engine {
		return false
	}
	return onlyVaries(sw, s.runs[0].B, r.B)
}

// onlyVaries reports whether two runs' workloads differ in nothing but what the sweep
// varies. A field neither records (an older artifact's) is no difference between them.
func onlyVaries(sw sweep, a, b *artifact.Benchmark) bool {
	for _, d := range artifact.Differences(a, b) {
		if d.Unknown && d.Baseline == d.Current {
			continue
		}
		if !slices.Contains(sw.varies, d.Field) {
			return false
		}
	}
	return true
}

// stemOf is the ladder a run belongs to: its suite and its name with the numbers taken
// out ("curves/concurrency-N").
func stemOf(r *runView) string { return suiteOf(r.Path) + "/" + stem(r.Name) }

// setsOf groups runs into the comparable sets of a sweep; a set with fewer than two
// distinct x is no set. A second run at the same x (a repeat) stays out of the line.
func setsOf(sw sweep, runs []*runView) []*set {
	var sets []*set
	for _, r := range runs {
		x, ok := sw.x(r)
		if !ok || !closedLoop(r.B) {
			continue
		}
		var into *set
		for _, s := range sets {
			if s.admits(sw, r) {
				into = s
				break
			}
		}
		if into == nil {
			into = &set{stem: stemOf(r), endpoint: r.B.BaseURL, engine: deref(r.B.Engine)}
			sets = append(sets, into)
		}
		if slices.Contains(into.xs, x) {
			continue
		}
		into.runs, into.xs = append(into.runs, r), append(into.xs, x)
	}
	return slices.DeleteFunc(sets, func(s *set) bool { return len(s.runs) < 2 })
}

// comparableCharts draws every sweep's sets: one chart per figure, one line per set, a
// dashed line for the baseline's runs of the same ladder, the budgets of the figure's
// family as horizontal lines. A sweep with no set draws nothing.
func comparableCharts(runs []*runView, baseline []Run, budgets []budget.Budget) ([]chartView, error) {
	var baseViews []*runView
	for _, r := range baseline {
		if r.Benchmark != nil {
			baseViews = append(baseViews, newRunView(r, nil, nil))
		}
	}
	var charts []chartView
	for _, sw := range sweeps {
		sets := setsOf(sw, runs)
		if len(sets) == 0 {
			continue
		}
		baseSets := setsOf(sw, baseViews)
		for _, fig := range sw.figures {
			key, bs := budgetsOf(budgets, fig.family, fig.key)
			c := chart.XY{
				ID:     "chart-" + sw.id + "-" + fig.family,
				Title:  fmt.Sprintf("%s (%s) against %s", fig.title, describeMetric(key), sw.xLabel),
				XLabel: sw.xLabel, YLabel: describeMetric(key) + " (" + units.Of(key) + ")", XLog: sw.xLog,
			}
			for _, s := range sets {
				c.Series = append(c.Series, series(s, key, false))
				for _, b := range baseSets {
					if b.stem == s.stem && matches(sw, b, s) {
						c.Series = append(c.Series, series(b, key, true))
						break
					}
				}
			}
			for _, b := range bs {
				c.Lines = append(c.Lines, chart.Line{Y: b.Limit, Label: "budget " + b.String()})
			}
			if !c.Drawable() {
				continue
			}
			c.Desc = fmt.Sprintf("%s of %s, one line per comparable set", describeMetric(key), plural(len(sets), "set of runs", "sets of runs"))
			var buf bytes.Buffer
			if err := c.Write(&buf); err != nil {
				return nil, err
			}
			charts = append(charts, chartView{ID: c.ID, Title: c.Title, SVG: buf.String()})
		}
	}
	return charts, nil
}

// matches reports whether a baseline set ran the current set's workload.
func matches(sw sweep, base, cur *set) bool { return onlyVaries(sw, base.runs[0].B, cur.runs[0].B) }

// series is a set's line, named after its ladder, model and endpoint.
func series(s *set, key string, baseline bool) chart.Series {
	name := s.stem[strings.Index(s.stem, "/")+1:] + " · " + s.runs[0].B.Model + " @ " + host(s.endpoint)
	if baseline {
		name += " (baseline)"
	}
	out := chart.Series{Name: name, Dashed: baseline}
	for i, r := range s.runs {
		v, _, _ := r.B.Metrics.Lookup(key)
		if v == nil {
			continue
		}
		out.Points = append(out.Points, chart.Point{X: s.xs[i], Y: *v, Label: r.Name, Source: r.B.BaseURL})
	}
	return out
}

// host is an endpoint's host and port, or the endpoint when it is no URL.
func host(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return u.Host
	}
	return endpoint
}

// curveChart draws a capacity search: its first SLO budget's figure against the load, of
// the engine and (dashed) of the baseline build searched beside it, the probes that broke
// hollow, the budget as a line and the capacity as a mark.
func curveChart(n int, r Run) (chartView, bool, error) {
	s := r.Extension.Search
	budgets, err := budget.Parse(strings.Join(s.SLO, ","))
	if err != nil {
		return chartView{}, false, fmt.Errorf("capacity search %s: %w", r.Path, err)
	}
	if len(budgets) == 0 || len(s.Probes) == 0 {
		return chartView{}, false, nil
	}
	b := budgets[0]
	name := strings.TrimSuffix(path.Base(r.Path), ".json")
	over := strings.ReplaceAll(s.Over, "_", " ")
	xy := chart.XY{
		ID:     fmt.Sprintf("chart-search-%d", n),
		Title:  fmt.Sprintf("Capacity search %s: %s against %s", name, describeMetric(b.Metric), over),
		XLabel: over, YLabel: describeMetric(b.Metric) + " (" + units.Of(b.Metric) + ")", XLog: true,
	}
	sides := []struct {
		name string
		side *artifact.SearchSide
		url  string
	}{{name, &s.SearchSide, r.BaseURL}}
	if s.Baseline != nil && r.Extension.Interleaved != nil {
		sides = append(sides, struct {
			name string
			side *artifact.SearchSide
			url  string
		}{name + " (baseline build)", s.Baseline, r.Extension.Interleaved.PartnerBaseURL})
	}
	for k, side := range sides {
		series := chart.Series{Name: side.name, Dashed: k == 1}
		probes := slices.Clone(side.side.Probes)
		slices.SortStableFunc(probes, func(a, b artifact.SearchProbe) int { return cmp.Compare(a.Load, b.Load) })
		for _, p := range probes {
			if len(p.Figures) == 0 || p.Figures[0].Value == nil {
				continue
			}
			series.Points = append(series.Points, chart.Point{X: float64(p.Load), Y: float64(*p.Figures[0].Value), Failed: p.Decided != "held",
				Label: fmt.Sprintf("%s at %s %g, attempt %d (%s)", side.name, over, float64(p.Load), p.Attempt, p.Verdict), Source: side.url})
		}
		xy.Series = append(xy.Series, series)
	}
	xy.Lines = []chart.Line{{Y: b.Limit, Label: "SLO " + b.String()}}
	caption := fmt.Sprintf("Capacity: %s %g, the highest load held; ", over, float64(s.Capacity))
	switch {
	case s.Capacity == 0:
		caption = "No capacity: even the lowest load probed broke the SLO; "
	case s.Broke == nil:
		caption = fmt.Sprintf("Capacity: at least %s %g: no load broke the SLO up to the search's bound; ", over, float64(s.Capacity))
	default:
		caption += fmt.Sprintf("%g broke it (%s); ", float64(*s.Broke), strings.Join(s.BrokeFirst, ", "))
	}
	caption += fmt.Sprintf("%d probes, %d requests.", len(s.Probes), s.Requests)
	if s.Baseline != nil {
		caption += fmt.Sprintf(" The baseline build: %g.", float64(s.Baseline.Capacity))
	}
	if s.Capacity > 0 {
		xy.Marks = []chart.Mark{{X: float64(s.Capacity), Label: fmt.Sprintf("capacity %g", float64(s.Capacity))}}
	}
	if !xy.Drawable() {
		return chartView{}, false, nil
	}
	xy.Desc = caption
	var buf bytes.Buffer
	if err := xy.Write(&buf); err != nil {
		return chartView{}, false, err
	}
	return chartView{ID: xy.ID, Title: xy.Title, SVG: buf.String(), Caption: caption}, true, nil
}
