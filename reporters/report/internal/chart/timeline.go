package chart

import (
	"fmt"
	"io"
	"math"
	"slices"
)

// Span is one request on a timeline, in milliseconds from the start of the request phase.
type Span struct {
	// Start is when the request was sent, FirstToken when its first token arrived (NaN when
	// none did) and End when it ended (NaN when unknown), all on the run's clock.
	Start, FirstToken, End float64
	// Reasoning is when its first reasoning arrived, before FirstToken (NaN without).
	Reasoning float64
	// Failed marks a failed request.
	Failed bool
	// Label is the span's tooltip.
	Label string
}

// Timeline draws requests as bars on the run's clock, one row each in the given order:
// waiting for the first token, then streaming, failures in red.
type Timeline struct {
	ID, Title, Desc string
	Spans           []Span
	// Note is printed under the chart (what was left out).
	Note  string
	Width float64
}

// Write writes the timeline as one <svg> element; an empty timeline is an error.
func (t Timeline) Write(w io.Writer) error {
	if len(t.Spans) == 0 {
		return fmt.Errorf("timeline %s: no request to draw", t.ID)
	}
	width := orDefault(t.Width, defaultWidth)
	items := []legendItem{
		{name: "waiting for the first token", color: palette[4], swatch: true},
		{name: "streaming", color: palette[0], swatch: true},
		{name: "failed", color: failColor, swatch: true}}
	if slices.ContainsFunc(t.Spans, func(s Span) bool { return finite(s.Reasoning) }) {
		items = slices.Insert(items, 1, legendItem{name: "reasoning", color: palette[1], swatch: true})
	}
	rows := legendRows(items, width)
	plot := math.Min(math.Max(float64(len(t.Spans))*8, 72), 400)
	top := marginTop + float64(len(rows))*legendRow + 6
	height := top + plot + marginBottom
	if t.Note != "" {
		height += 16
	}
	xs := []float64{0}
	for _, s := range t.Spans {
		for _, v := range []float64{s.Start, s.FirstToken, s.End} {
			if finite(v) {
				xs = append(xs, v)
			}
		}
	}
	xa := linearAxis(xs, true)
	fr := frame{left: marginLeft, right: width - marginRight, top: top, bottom: top + plot}

	b := &builder{}
	open(b, t.ID, "chart chart-timeline", t.Title, t.Desc, width, height)
	legend(b, rows)
	fr.axes(b, xa, axis{}, "milliseconds since the request phase began", "requests, in index order")
	row := plot / float64(len(t.Spans))
	bar := math.Max(row*0.8, 0.5)
	for i, s := range t.Spans {
		if !finite(s.Start) {
			continue
		}
		y := fr.top + row*float64(i)
		end := s.End
		if !finite(end) {
			end = s.Start
		}
		x0, x1 := fr.x(xa, s.Start), fr.x(xa, math.Max(end, s.Start))
		b.f(`<g class="request"><title>%s</title>`, esc(s.Label))
		switch {
		case s.Failed:
			b.rect(x0, y, math.Max(2, x1-x0), bar, failColor)
		case finite(s.FirstToken):
			ft := fr.x(xa, math.Min(s.FirstToken, end))
			waited := ft
			if finite(s.Reasoning) && s.Reasoning < s.FirstToken {
				waited = fr.x(xa, math.Max(s.Reasoning, s.Start))
				b.rect(waited, y, math.Max(0.5, ft-waited), bar, palette[1])
			}
			b.rect(x0, y, math.Max(0.5, waited-x0), bar, palette[4])
			b.rect(ft, y, math.Max(0.5, x1-ft), bar, palette[0])
		default:
			b.rect(x0, y, math.Max(0.5, x1-x0), bar, palette[4])
		}
		b.WriteString(`</g>`)
	}
	if t.Note != "" {
		b.f(`<text x="%s" y="%s" text-anchor="middle" font-size="%d" font-style="italic" fill="%s">%s</text>`,
			num(width/2), num(height-8), fontSize-1, mutedColor, esc(t.Note))
	}
	return b.writeTo(w)
}
