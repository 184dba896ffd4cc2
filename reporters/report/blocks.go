package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/reporters/report/internal/chart"
)

// blockRow is one figure of a run of repeated blocks: its value in each block and across
// them.
type blockRow struct {
	Name   string
	Values []string
	// Mean, SD, CV and CI95 are across the blocks ("—" with fewer than two values).
	Mean, SD, CV, CI95 string
}

// Blocks are the run's repeated blocks figure by figure; none for a run of one block.
func (v *runView) Blocks() []blockRow {
	x := v.B.Extension
	if x == nil || x.Blocks == nil || len(x.Blocks.Blocks) < 2 {
		return nil
	}
	var rows []blockRow
	for _, h := range artifact.HeadlineFigures() {
		key := h.Key
		f, ok := x.Blocks.Figures[key]
		if !ok {
			continue
		}
		format := func(p *artifact.Float) string { return fmtPtr(p, func(x float64) string { return fmtMetric(x, key) }) }
		row := blockRow{Name: describeMetric(key), Mean: format(f.Mean), SD: format(f.SD), CV: "—", CI95: "—"}
		for _, val := range f.Values {
			row.Values = append(row.Values, format(val))
		}
		if f.CV != nil {
			row.CV = fmtNumber(100*float64(*f.CV), 1) + "%"
		}
		if f.CI95Low != nil && f.CI95High != nil {
			row.CI95 = format(f.CI95Low) + " – " + format(f.CI95High)
		}
		rows = append(rows, row)
	}
	return rows
}

// BlockNumbers are the blocks' column heads: 1, 2, ...
func (v *runView) BlockNumbers() []int {
	var out []int
	for i := range len(v.B.Extension.Blocks.Blocks) {
		out = append(out, i+1)
	}
	return out
}

// blockChart draws TPOT p50 and TTFT p50 block by block against the minutes since the
// first block began, with the partner's blocks of an interleaved run beside them: a drift
// shows as a slope both engines share, a difference of the engines as a gap.
func blockChart(v *runView, partner *runView) (kindChart, bool) {
	x := v.B.Extension
	if x == nil || x.Blocks == nil || len(x.Blocks.Blocks) < 2 {
		return kindChart{}, false
	}
	sides := []*runView{v}
	if partner != nil {
		sides = append(sides, partner)
	}
	origin := int64(0)
	for _, s := range sides {
		if t, ok := blockStart(s.B, 0); ok && (origin == 0 || t < origin) {
			origin = t
		}
	}
	c := chart.XY{ID: "chart-blocks-" + v.ID, Title: "Blocks: " + v.Name, XLabel: "minutes since the first block", YLabel: "ms"}
	for _, key := range []string{"tpot_p50_ms", "ttft_p50_ms"} {
		for i, s := range sides {
			f, ok := s.B.Extension.Blocks.Figures[key]
			if !ok || s.B.Extension.Blocks == nil {
				continue
			}
			name := describeMetric(key)
			if partner != nil {
				name += map[int]string{0: ", this build", 1: ", baseline build"}[i]
			}
			series := chart.Series{Name: name, Dashed: i == 1}
			for j, val := range f.Values {
				t, ok := blockStart(s.B, j)
				if val == nil || !ok {
					continue
				}
				series.Points = append(series.Points, chart.Point{X: float64(t-origin) / 60e9, Y: float64(*val), Label: fmt.Sprintf("block %d", j+1)})
			}
			c.Series = append(c.Series, series)
		}
	}
	if !c.Drawable() {
		return kindChart{}, false
	}
	c.Desc = fmt.Sprintf("TPOT p50 and TTFT p50 of each of %d blocks", len(x.Blocks.Blocks))
	var buf bytes.Buffer
	if c.Write(&buf) != nil {
		return kindChart{}, false
	}
	caption := fmt.Sprintf("%d blocks of %d requests.", len(x.Blocks.Blocks), x.Blocks.RequestsPerBlock)
	if partner != nil {
		caption = fmt.Sprintf("%d blocks of %d requests of each build, interleaved in the order %s (A the baseline build): a drift both share cancels.",
			len(x.Blocks.Blocks), x.Blocks.RequestsPerBlock, orDash(x.Interleaved.Order))
	}
	return kindChart{SVG: buf.String(), Caption: caption}, true
}

// blockStart is when block j of b began, in Unix ns.
func blockStart(b *artifact.Benchmark, j int) (int64, bool) {
	x := b.Extension
	if x == nil || x.Blocks == nil || j >= len(x.Blocks.Blocks) {
		return 0, false
	}
	return b.StartedAtUnixNs + int64(float64(x.Blocks.Blocks[j].StartOffsetMs)*1e6), true
}

// trendChart draws a history baseline's runs, their levels and this run after them, for
// the gated figures: where main stepped, and where this run sits against its latest level.
func trendChart(v *runView) (kindChart, bool) {
	x := v.B.Extension
	if x == nil || x.Baseline == nil || len(x.Baseline.History) == 0 {
		return kindChart{}, false
	}
	h := x.Baseline.History
	c := chart.XY{ID: "chart-trend-" + v.ID, Title: "Against the history: " + v.Name, XLabel: "run (oldest first; the last is this run)", YLabel: "ms"}
	var shifts []string
	for _, key := range []string{"tpot_p50_ms", "ttft_p50_ms"} {
		runs, level := chart.Series{Name: describeMetric(key)}, chart.Series{Name: describeMetric(key) + " level", Dashed: true}
		for i, r := range h {
			val, ok := r.Metrics[key]
			if !ok {
				continue
			}
			runs.Points = append(runs.Points, chart.Point{X: float64(i + 1), Y: val, Label: r.RunID})
			level.Points = append(level.Points, chart.Point{X: float64(i + 1), Y: r.Levels[key], Label: r.RunID})
			if i > 0 && r.Levels[key] != h[i-1].Levels[key] {
				shifts = append(shifts, fmt.Sprintf("%s changed level at run %d (%s)", describeMetric(key), i+1, signedPct(r.Levels[key]/h[i-1].Levels[key]-1)))
			}
		}
		if cur, _, ok := v.B.Metrics.Lookup(key); ok && cur != nil && len(runs.Points) > 0 {
			runs.Points = append(runs.Points, chart.Point{X: float64(len(h) + 1), Y: float64(*cur), Label: "this run"})
		}
		c.Series = append(c.Series, runs, level)
	}
	if !c.Drawable() {
		return kindChart{}, false
	}
	c.Desc = fmt.Sprintf("TPOT p50 and TTFT p50 of %d earlier runs and this one", len(h))
	var buf bytes.Buffer
	if c.Write(&buf) != nil {
		return kindChart{}, false
	}
	caption := fmt.Sprintf("%d earlier runs (%s), then this run; dashed: the level between changes (E-divisive means, 5%%).", len(h), x.Baseline.Source)
	if len(shifts) > 0 {
		caption += " " + joinSentences(shifts)
	} else {
		caption += " No change of level."
	}
	return kindChart{SVG: buf.String(), Caption: caption}, true
}

// joinSentences is ss as sentences: each ends with a period.
func joinSentences(ss []string) string { return strings.Join(ss, ". ") + "." }

// partnerOf is the other engine's run of an interleaved run among runs; nil for another.
func partnerOf(v *runView, runs []*runView) *runView {
	x := v.B.Extension
	if x == nil || x.Interleaved == nil {
		return nil
	}
	i := slices.IndexFunc(runs, func(o *runView) bool {
		ox := o.B.Extension
		return o != v && ox != nil && ox.Interleaved != nil && ox.Interleaved.Pairing == x.Interleaved.Pairing
	})
	if i < 0 {
		return nil
	}
	return runs[i]
}
