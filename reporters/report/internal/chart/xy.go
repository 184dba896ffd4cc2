package chart

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// XY is a chart of series against one x axis.
type XY struct {
	// ID is the svg's id; Title heads it and Desc says what it shows (both read by screen
	// readers).
	ID, Title, Desc string
	XLabel, YLabel  string
	// XLog spaces the x axis in powers of two (concurrency).
	XLog   bool
	Series []Series
	Lines  []Line
	Marks  []Mark
	// Width and Height default to 640×300.
	Width, Height float64
}

// Drawable reports whether the chart has a point to draw.
func (c XY) Drawable() bool {
	for _, s := range c.Series {
		if len(c.points(s)) > 0 {
			return true
		}
	}
	return false
}

// points are the series' drawable points in x order.
func (c XY) points(s Series) []Point {
	pts := slices.DeleteFunc(slices.Clone(s.Points), func(p Point) bool {
		return !finite(p.X) || !finite(p.Y) || (c.XLog && p.X <= 0)
	})
	slices.SortStableFunc(pts, func(a, b Point) int { return cmpFloat(a.X, b.X) })
	return pts
}

// Write writes the chart as one <svg> element; a chart with no finite point is an error.
func (c XY) Write(w io.Writer) error {
	drawn := make([][]Point, len(c.Series))
	var xs, ys []float64
	for i, s := range c.Series {
		drawn[i] = c.points(s)
		for _, p := range drawn[i] {
			xs, ys = append(xs, p.X), append(ys, p.Y)
		}
	}
	if len(xs) == 0 {
		return fmt.Errorf("chart %s: no point to draw", c.ID)
	}
	width, height := orDefault(c.Width, defaultWidth), orDefault(c.Height, defaultHeight)
	for _, l := range c.Lines {
		if finite(l.Y) {
			ys = append(ys, l.Y)
		}
	}
	items := make([]legendItem, len(c.Series))
	for i, s := range c.Series {
		items[i] = legendItem{name: s.Name, color: palette[i%len(palette)], marker: markers[i%len(markers)], dashed: s.Dashed}
	}
	rows := legendRows(items, width)
	xa := linearAxis(xs, false)
	if c.XLog {
		xa = log2Axis(xs)
	}
	ya := linearAxis(append(ys, 0), true)

	b := &builder{}
	open(b, c.ID, "chart", c.Title, c.Desc, width, height)
	top := marginTop + legend(b, rows)
	fr := frame{left: marginLeft, right: width - marginRight, top: top + 6, bottom: height - marginBottom}
	fr.axes(b, xa, ya, c.XLabel, c.YLabel)
	for _, l := range c.Lines {
		if !finite(l.Y) {
			continue
		}
		y := fr.y(ya, l.Y)
		b.f(`<g class="budget-line"><title>%s</title>`, esc(l.Label))
		b.line(fr.left, y, fr.right, y, budgetColor, ` stroke-width="1.5" stroke-dasharray="6 4"`)
		b.f(`<text x="%s" y="%s" text-anchor="end" font-size="%d" fill="%s">%s</text></g>`, num(fr.right-4), num(y-4), fontSize-1, budgetColor, esc(l.Label))
	}
	for _, m := range c.Marks {
		if !finite(m.X) || (c.XLog && m.X <= 0) {
			continue
		}
		x := fr.x(xa, m.X)
		b.f(`<g class="mark"><title>%s</title>`, esc(m.Label))
		b.line(x, fr.top, x, fr.bottom, mutedColor, ` stroke-dasharray="2 3"`)
		b.f(`<text x="%s" y="%s" font-size="%d" fill="%s">%s</text></g>`, num(x+4), num(fr.top+10), fontSize-1, mutedColor, esc(m.Label))
	}
	for i, s := range c.Series {
		color, marker := palette[i%len(palette)], markers[i%len(markers)]
		pts := drawn[i]
		b.f(`<g class="series"><title>%s</title>`, esc(s.Name))
		if len(pts) > 1 {
			coords := make([]string, len(pts))
			for j, p := range pts {
				coords[j] = num(fr.x(xa, p.X)) + "," + num(fr.y(ya, p.Y))
			}
			dash := ""
			if s.Dashed {
				dash = ` stroke-dasharray="5 3"`
			}
			b.f(`<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`, strings.Join(coords, " "), color, dash)
		}
		for _, p := range pts {
			b.f(`<g class="point" data-x="%s" data-source="%s">`, esc(fmt.Sprint(p.X)), esc(p.Source))
			pc := color
			if p.Failed {
				pc = failColor
			}
			b.marker(marker, fr.x(xa, p.X), fr.y(ya, p.Y), pc, p.Failed)
			tip := s.Name + ": "
			if p.Label != "" {
				tip += p.Label + ", "
			}
			tip += fmt.Sprintf("%s = %s, %s = %s", c.XLabel, fmtValue(p.X), c.YLabel, fmtValue(p.Y))
			b.f(`<title>%s</title></g>`, esc(tip))
		}
		b.WriteString(`</g>`)
	}
	return b.writeTo(w)
}

// fmtValue prints a figure for a tooltip: up to four significant digits.
func fmtValue(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.4g", v), ".") }

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
