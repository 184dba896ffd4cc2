package reporters

// Inline SVG charts of report.html, drawn from plain strings: every <svg> is a
// well-formed XML fragment (only the five predefined entities, numeric references, no
// namespaces needed inside HTML), carries role="img", an aria-label and a <title>, and a
// stable id and class ("chart chart-tpot-concurrency") that tests and readers can find.
// Colours are presentation attributes, so a chart copied out of the page keeps them; the
// palette is Okabe–Ito (distinguishable with colour-blindness), and series differ by
// marker shape and dash too. Text widths are estimated (no script measures them), from
// the 12px system sans-serif the page sets.

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
)

// Palette (Okabe–Ito).
const (
	colBlue       = "#0072B2"
	colOrange     = "#E69F00"
	colGreen      = "#009E73"
	colSky        = "#56B4E9"
	colVermilion  = "#D55E00"
	colFailedTTFT = "#F0A878"
	colPurple     = "#CC79A7"
	colYellow     = "#B8A000"
	colBudget     = "#8E3B76"
	colAxis       = "#444444"
	colGrid       = "#E3E3E3"
	colText       = "#222222"
	colMuted      = "#666666"
)

var seriesColors = []string{colBlue, colOrange, colGreen, colPurple, colSky, colYellow}
var seriesMarkers = []string{"circle", "square", "diamond", "triangle"}

// chart is one rendered chart.
type reportChart struct {
	SVG template.HTML // id, class and title are the svg element's own
}

// esc escapes text and attribute values for XML and HTML alike.
func svgEsc(s string) string { return html.EscapeString(s) }

// num prints a coordinate.
func svgNum(v float64) string {
	if !isFinite(v) {
		v = 0
	}
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// textWidth estimates the width of s at font size px.
func textWidth(s string, px float64) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case r == ' ' || r == '.' || r == ',' || r == ':' || r == 'i' || r == 'l' || r == '|':
			w += 0.3
		case r >= 'A' && r <= 'Z', r == 'm', r == 'w', r == '≥', r == '≤':
			w += 0.72
		default:
			w += 0.56
		}
	}
	return w * px
}

// axis is one axis: its domain, scale kind and ticks.
type chartAxis struct {
	lo, hi float64
	log    bool
	ticks  []float64
	format func(float64) string
}

// axisOpts say how to build an axis from values.
type axisOpts struct {
	logOK   bool // a log scale when the values span a factor of 8 or more
	pow2    bool // log ticks at powers of two (concurrency), else at 1, 2, 5 × 10^k
	zero    bool // a linear axis starts at zero
	integer bool // ticks are integers
	plain   bool // tick labels without a k suffix below 10000 (milliseconds)
}

func newAxis(vals []float64, o axisOpts) chartAxis {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if isFinite(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi { // no values
		lo, hi = 0, 1
	}
	single := lo == hi
	if o.logOK && lo > 0 && hi/lo >= 8 {
		return logAxis(lo, hi, o.pow2)
	}
	if o.zero && lo > 0 {
		lo = 0
	}
	if single { // one value: put it mid-axis
		if hi == 0 {
			hi = 1
		} else if hi > 0 && o.zero {
			hi *= 2
		} else {
			lo, hi = lo-math.Abs(lo)*0.5-0.5, hi+math.Abs(hi)*0.5+0.5
		}
	}
	step := niceStep((hi - lo) / 5)
	switch { // integer ticks: 0.5 -> 1, 2.5 -> 5
	case o.integer && step < 1:
		step = 1
	case o.integer && step != math.Trunc(step):
		step = math.Ceil(step/5) * 5
	}
	a := chartAxis{lo: math.Floor(lo/step+1e-9) * step, hi: math.Ceil(hi/step-1e-9) * step}
	if a.hi == a.lo {
		a.hi = a.lo + step
	}
	for t := a.lo; t <= a.hi+step*1e-6; t += step {
		a.ticks = append(a.ticks, math.Round(t/step)*step)
	}
	dec := 0
	if step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	kFrom := 1e3
	if o.plain {
		kFrom = 1e4
	}
	a.format = func(v float64) string { return tickLabel(v, dec, kFrom) }
	return a
}

func logAxis(lo, hi float64, pow2 bool) chartAxis {
	a := chartAxis{lo: lo / 1.3, hi: hi * 1.3, log: true}
	var cands []float64
	if pow2 {
		for e := math.Floor(math.Log2(a.lo)); e <= math.Ceil(math.Log2(a.hi)); e++ {
			cands = append(cands, math.Pow(2, e))
		}
	} else {
		for e := math.Floor(math.Log10(a.lo)); e <= math.Ceil(math.Log10(a.hi)); e++ {
			for _, m := range []float64{1, 2, 5} {
				cands = append(cands, m*math.Pow(10, e))
			}
		}
	}
	for _, c := range cands {
		if c >= a.lo && c <= a.hi {
			a.ticks = append(a.ticks, c)
		}
	}
	for len(a.ticks) > 8 { // thin out, keeping the first
		var thin []float64
		for i := 0; i < len(a.ticks); i += 2 {
			thin = append(thin, a.ticks[i])
		}
		a.ticks = thin
	}
	a.format = func(v float64) string { return tickLabel(v, 2, 1e3) }
	return a
}

// niceStep rounds a raw tick step up to 1, 2, 2.5 or 5 × 10^k.
func niceStep(raw float64) float64 {
	if raw <= 0 || !isFinite(raw) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// tickLabel prints a tick: "0", "2.5", "50k", "1.2M"; from kFrom up in thousands.
func tickLabel(v float64, dec int, kFrom float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return fmtNumber(v/1e6, 2) + "M"
	case a >= kFrom:
		return fmtNumber(v/1e3, 2) + "k"
	}
	return fmtNumber(v, dec)
}

// pos maps v to a fraction of the axis, 0 at lo.
func (a chartAxis) pos(v float64) float64 {
	if a.log {
		if v <= 0 {
			return 0
		}
		return (math.Log(v) - math.Log(a.lo)) / (math.Log(a.hi) - math.Log(a.lo))
	}
	return (v - a.lo) / (a.hi - a.lo)
}

// msUnit picks the unit of a millisecond axis: seconds from 2 s up.
func msUnit(maxMs float64) (div float64, unit string) {
	if maxMs >= 2000 {
		return 1000, "s"
	}
	return 1, "ms"
}

// xyChart is a scatter/line chart with optional reference lines.
type xyChart struct {
	id, class, title, desc string
	xLabel, yLabel         string
	xOpts, yOpts           axisOpts
	series                 []xySeries
	hlines                 []refLine // budgets, in y units
	vlines                 []refLine // markers on x (the knee)
	note                   string
	failedLegend           bool // a legend entry for hollow red (failed) points
}

type xySeries struct {
	name   string
	color  string
	shape  string
	dash   bool
	hollow bool // markers filled white, so a marker beneath shows through
	points []xyPoint
}

type xyPoint struct {
	x, y   float64
	tip    string
	failed bool
	// group joins the points of one sweep with a line: runs alike but for the x variable.
	group string
}

type refLine struct {
	v     float64
	label string
}

// Geometry shared by the charts.
const (
	chartW      = 640.0
	plotLeft    = 64.0
	plotRight   = chartW - 24
	titleY      = 20.0
	legendTop   = 34.0
	legendRowH  = 18.0
	plotH       = 230.0
	fontPx      = 12.0
	legendFirst = plotLeft - 40
)

type legendItem struct {
	label string
	color string
	shape string // "", or a marker shape
	line  string // "", "solid", "dashed"
	fill  string // marker fill; empty is color
	box   bool   // a filled box instead of a line
}

// layoutLegend places items in rows across the chart; it returns the SVG and the height.
func layoutLegend(items []legendItem, top float64) (string, float64) {
	if len(items) == 0 {
		return "", 0
	}
	var b strings.Builder
	b.WriteString(`<g class="legend">`)
	x, y, rows := legendFirst, top, 1
	for _, it := range items {
		w := 30 + textWidth(it.label, fontPx) + 18
		if x+w > chartW-8 && x > legendFirst {
			x, y = legendFirst, y+legendRowH
			rows++
		}
		cy := y + legendRowH/2
		fmt.Fprintf(&b, `<g class="legend-item">`)
		switch {
		case it.box:
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="22" height="9" fill="%s"/>`, svgNum(x), svgNum(cy-4.5), it.color)
		case it.line != "":
			dash := ""
			if it.line == "dashed" {
				dash = ` stroke-dasharray="6 4"`
			}
			fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"%s/>`,
				svgNum(x), svgNum(cy), svgNum(x+22), svgNum(cy), it.color, dash)
		}
		if it.shape != "" {
			fill := it.fill
			if fill == "" {
				fill = it.color
			}
			b.WriteString(svgMarker(it.shape, x+11, cy, fill, it.color))
		}
		fmt.Fprintf(&b, `<text x="%s" y="%s" fill="%s">%s</text></g>`, svgNum(x+28), svgNum(cy+4), colText, svgEsc(it.label))
		x += w
	}
	b.WriteString(`</g>`)
	return b.String(), float64(rows) * legendRowH
}

// marker draws a point marker centred at (x, y).
func svgMarker(shape string, x, y float64, fill, stroke string) string {
	sw := "1.2"
	if stroke == colVermilion && fill == "#ffffff" {
		sw = "2"
	}
	switch shape {
	case "square":
		return fmt.Sprintf(`<rect x="%s" y="%s" width="8" height="8" fill="%s" stroke="%s" stroke-width="%s"/>`,
			svgNum(x-4), svgNum(y-4), fill, stroke, sw)
	case "diamond":
		return fmt.Sprintf(`<path d="M%s %sl5 5l-5 5l-5 -5z" fill="%s" stroke="%s" stroke-width="%s"/>`,
			svgNum(x), svgNum(y-5), fill, stroke, sw)
	case "triangle":
		return fmt.Sprintf(`<path d="M%s %sl5 9h-10z" fill="%s" stroke="%s" stroke-width="%s"/>`,
			svgNum(x), svgNum(y-5), fill, stroke, sw)
	}
	return fmt.Sprintf(`<circle cx="%s" cy="%s" r="4.2" fill="%s" stroke="%s" stroke-width="%s"/>`,
		svgNum(x), svgNum(y), fill, stroke, sw)
}

// svgOpen starts an <svg> with its accessible name and visible heading.
func svgOpen(b *strings.Builder, id, class, title, desc string, height float64) {
	fmt.Fprintf(b, `<svg id="%s" class="chart %s" role="img" aria-label="%s" viewBox="0 0 %s %s" width="%s" height="%s" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif" font-size="12">`,
		svgEsc(id), svgEsc(class), svgEsc(desc), svgNum(chartW), svgNum(height), svgNum(chartW), svgNum(height))
	fmt.Fprintf(b, `<title>%s</title><desc>%s</desc>`, svgEsc(title), svgEsc(desc))
	fmt.Fprintf(b, `<rect class="chart-bg" x="0" y="0" width="%s" height="%s" fill="#ffffff"/>`, svgNum(chartW), svgNum(height))
	fmt.Fprintf(b, `<text class="chart-heading" x="%s" y="%s" font-size="14" font-weight="600" fill="%s">%s</text>`,
		svgNum(legendFirst), svgNum(titleY), colText, svgEsc(title))
}

// render draws the chart.
func (c xyChart) render() reportChart {
	var xs, ys []float64
	for _, s := range c.series {
		for _, p := range s.points {
			xs = append(xs, p.x)
			ys = append(ys, p.y)
		}
	}
	for _, l := range c.hlines {
		ys = append(ys, l.v)
	}
	for _, l := range c.vlines {
		xs = append(xs, l.v)
	}
	ymax := 0.0
	for _, y := range ys {
		ymax = math.Max(ymax, y)
	}
	ys = append(ys, ymax*1.08) // headroom above the highest point or budget
	xa, ya := newAxis(xs, c.xOpts), newAxis(ys, c.yOpts)

	var items []legendItem
	for _, s := range c.series {
		line := "solid"
		if s.dash {
			line = "dashed"
		}
		it := legendItem{label: s.name, color: s.color, shape: s.shape, line: line}
		if s.hollow {
			it.fill = "#ffffff"
		}
		items = append(items, it)
	}
	if c.failedLegend {
		items = append(items, legendItem{label: "failed load", color: colVermilion, shape: "circle", fill: "#ffffff"})
	}
	if len(c.hlines) > 0 {
		items = append(items, legendItem{label: "budget", color: colBudget, line: "dashed"})
	}
	legend, legendH := layoutLegend(items, legendTop)
	top := legendTop + legendH + 12
	bottom := top + plotH
	height := bottom + 50
	if c.note != "" {
		height += 18
	}
	px := func(v float64) float64 { return plotLeft + xa.pos(v)*(plotRight-plotLeft) }
	py := func(v float64) float64 { return bottom - ya.pos(v)*plotH }

	var b strings.Builder
	svgOpen(&b, c.id, c.class, c.title, c.desc, height)
	b.WriteString(legend)

	// grid and axes
	b.WriteString(`<g class="grid">`)
	for _, t := range ya.ticks {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, svgNum(plotLeft), svgNum(py(t)), svgNum(plotRight), svgNum(py(t)), colGrid)
	}
	for _, t := range xa.ticks {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, svgNum(px(t)), svgNum(top), svgNum(px(t)), svgNum(bottom), colGrid)
	}
	b.WriteString(`</g>`)
	b.WriteString(axesSVG(xa, ya, px, py, top, bottom, c.xLabel, c.yLabel))

	// Series geometry first: the budget labels avoid the markers and lines.
	type drawn struct {
		paths [][][2]float64 // one polyline per group
		marks [][2]float64
	}
	geo := make([]drawn, len(c.series))
	var obstacles [][2]float64
	for si, s := range c.series {
		for _, g := range groupLines(s.points) {
			var line [][2]float64
			for _, p := range g {
				line = append(line, [2]float64{px(p.x), py(p.y)})
			}
			geo[si].paths = append(geo[si].paths, line)
			obstacles = append(obstacles, sampleLine(line, 4)...)
		}
		for _, p := range s.points {
			m := [2]float64{px(p.x), py(p.y)}
			geo[si].marks = append(geo[si].marks, m)
			obstacles = append(obstacles, m)
		}
	}

	// reference lines: budgets (horizontal), the knee (vertical)
	var placed [][4]float64 // label boxes: x0, y0, x1, y1
	for _, l := range c.vlines {
		x := px(l.v)
		fmt.Fprintf(&b, `<g class="knee-line"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.4" stroke-dasharray="3 3"/>`,
			svgNum(x), svgNum(top), svgNum(x), svgNum(bottom), colGreen)
		w := textWidth(l.label, 11)
		anchor, lx, bx := "start", x+4, x+4
		if x+4+w > plotRight {
			anchor, lx, bx = "end", x-4, x-4-w
		}
		placed = append(placed, [4]float64{bx, top + 2, bx + w, top + 15})
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="%s" fill="%s" stroke="#ffffff" stroke-width="3" paint-order="stroke" font-size="11">%s</text></g>`,
			svgNum(lx), svgNum(top+12), anchor, colGreen, svgEsc(l.label))
	}
	if len(c.hlines) > 0 {
		b.WriteString(`<g class="budgets">`)
		for _, l := range c.hlines {
			y := py(l.v)
			fmt.Fprintf(&b, `<g class="budget-line"><title>%s</title><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.6" stroke-dasharray="7 4"/>`,
				svgEsc("budget: "+l.label), svgNum(plotLeft), svgNum(y), svgNum(plotRight), svgNum(y), colBudget)
			w := textWidth(l.label, 11) + 4
			// Candidate places, the first clear of markers, lines and other labels wins.
			type cand struct {
				x0, base float64
			}
			var cands []cand
			for _, dy := range []float64{-4, 14} {
				if y+dy-11 < top || y+dy > bottom {
					continue
				}
				for _, x0 := range []float64{plotRight - 4 - w, plotLeft + 6, (plotLeft+plotRight)/2 - w/2} {
					cands = append(cands, cand{x0, y + dy})
				}
			}
			if len(cands) == 0 {
				cands = []cand{{plotRight - 4 - w, y - 4}}
			}
			best := cands[0]
			for _, cd := range cands {
				box := [4]float64{cd.x0 - 2, cd.base - 11, cd.x0 + w + 2, cd.base + 2}
				if !boxHits(box, obstacles, placed) {
					best = cd
					break
				}
			}
			placed = append(placed, [4]float64{best.x0, best.base - 11, best.x0 + w, best.base + 2})
			fmt.Fprintf(&b, `<text x="%s" y="%s" fill="%s" stroke="#ffffff" stroke-width="3" paint-order="stroke" font-size="11">%s</text></g>`,
				svgNum(best.x0+2), svgNum(best.base), colBudget, svgEsc(l.label))
		}
		b.WriteString(`</g>`)
	}

	// series: a line through each group's points, then the markers
	for si, s := range c.series {
		fmt.Fprintf(&b, `<g class="series" data-series="%s">`, svgEsc(s.name))
		for _, line := range geo[si].paths {
			var d strings.Builder
			for i, pt := range line {
				cmd := "L"
				if i == 0 {
					cmd = "M"
				}
				fmt.Fprintf(&d, "%s%s %s", cmd, svgNum(pt[0]), svgNum(pt[1]))
			}
			dash := ""
			if s.dash {
				dash = ` stroke-dasharray="6 4"`
			}
			fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2"%s/>`, d.String(), s.color, dash)
		}
		for i, p := range s.points {
			fill, stroke := s.color, s.color
			if s.hollow {
				fill = "#ffffff"
			}
			class := "point"
			if p.failed {
				fill, stroke, class = "#ffffff", colVermilion, "point point-failed"
			}
			m := geo[si].marks[i]
			fmt.Fprintf(&b, `<g class="%s"><title>%s</title>%s</g>`, class, svgEsc(p.tip), svgMarker(s.shape, m[0], m[1], fill, stroke))
		}
		b.WriteString(`</g>`)
	}
	if c.note != "" {
		fmt.Fprintf(&b, `<text class="chart-note" x="%s" y="%s" text-anchor="middle" fill="%s" font-style="italic">%s</text>`,
			svgNum(chartW/2), svgNum(height-10), colMuted, svgEsc(c.note))
	}
	b.WriteString(`</svg>`)
	return reportChart{SVG: template.HTML(b.String())}
}

// axesSVG draws both axes with ticks, tick labels and axis labels.
func axesSVG(xa, ya chartAxis, px, py func(float64) float64, top, bottom float64, xLabel, yLabel string) string {
	var b strings.Builder
	b.WriteString(`<g class="axis axis-x">`)
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, svgNum(plotLeft), svgNum(bottom), svgNum(plotRight), svgNum(bottom), colAxis)
	for _, t := range xa.ticks {
		x := px(t)
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/><text x="%s" y="%s" text-anchor="middle" fill="%s">%s</text>`,
			svgNum(x), svgNum(bottom), svgNum(x), svgNum(bottom+5), colAxis, svgNum(x), svgNum(bottom+18), colText, svgEsc(xa.format(t)))
	}
	fmt.Fprintf(&b, `<text class="axis-label" x="%s" y="%s" text-anchor="middle" fill="%s">%s</text></g>`,
		svgNum((plotLeft+plotRight)/2), svgNum(bottom+38), colText, svgEsc(xLabel))
	b.WriteString(`<g class="axis axis-y">`)
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, svgNum(plotLeft), svgNum(top), svgNum(plotLeft), svgNum(bottom), colAxis)
	for _, t := range ya.ticks {
		y := py(t)
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/><text x="%s" y="%s" text-anchor="end" fill="%s">%s</text>`,
			svgNum(plotLeft-5), svgNum(y), svgNum(plotLeft), svgNum(y), colAxis, svgNum(plotLeft-8), svgNum(y+4), colText, svgEsc(ya.format(t)))
	}
	cy := (top + bottom) / 2
	fmt.Fprintf(&b, `<text class="axis-label" x="16" y="%s" text-anchor="middle" transform="rotate(-90 16 %s)" fill="%s">%s</text></g>`,
		svgNum(cy), svgNum(cy), colText, svgEsc(yLabel))
	return b.String()
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// groupLines are the polylines of a series: one per group of points (the runs of one
// sweep) with at least two distinct x values, in x order, points at the same x merged
// into their mean.
func groupLines(pts []xyPoint) [][]xyPoint {
	var order []string
	groups := map[string][]xyPoint{}
	for _, p := range pts {
		if _, ok := groups[p.group]; !ok {
			order = append(order, p.group)
		}
		groups[p.group] = append(groups[p.group], p)
	}
	var out [][]xyPoint
	for _, g := range order {
		ps := slices.Clone(groups[g])
		slices.SortStableFunc(ps, func(a, b xyPoint) int { return cmpFloat(a.x, b.x) })
		var line []xyPoint
		for i := 0; i < len(ps); {
			j, sum := i, 0.0
			for ; j < len(ps) && ps[j].x == ps[i].x; j++ {
				sum += ps[j].y
			}
			line = append(line, xyPoint{x: ps[i].x, y: sum / float64(j-i)})
			i = j
		}
		if len(line) >= 2 {
			out = append(out, line)
		}
	}
	return out
}

// sampleLine returns points every step pixels along a polyline.
func sampleLine(line [][2]float64, step float64) [][2]float64 {
	var out [][2]float64
	for i := 1; i < len(line); i++ {
		a, b := line[i-1], line[i]
		n := int(math.Hypot(b[0]-a[0], b[1]-a[1])/step) + 1
		for k := 0; k <= n; k++ {
			f := float64(k) / float64(n)
			out = append(out, [2]float64{a[0] + (b[0]-a[0])*f, a[1] + (b[1]-a[1])*f})
		}
	}
	return out
}

// boxHits reports whether a label box comes within a marker's reach of any obstacle
// point or overlaps a placed label.
func boxHits(box [4]float64, obstacles [][2]float64, placed [][4]float64) bool {
	const reach = 5
	for _, o := range obstacles {
		if o[0] >= box[0]-reach && o[0] <= box[2]+reach && o[1] >= box[1]-reach && o[1] <= box[3]+reach {
			return true
		}
	}
	for _, p := range placed {
		if box[0] < p[2] && p[0] < box[2] && box[1] < p[3] && p[1] < box[3] {
			return true
		}
	}
	return false
}

func distinctCount(pts []xyPoint) int {
	seen := map[float64]bool{}
	for _, p := range pts {
		seen[p.x] = true
	}
	return len(seen)
}

// budgetLines are the budgets whose metric family is one of families, in y units.
func budgetLines(budgets []ReportBudget, families []string, div float64) []refLine {
	var out []refLine
	for _, b := range budgets {
		fam, _, ok := artifact.ParseMetricKey(b.key())
		if !ok {
			fam = b.key()
		}
		if slices.Contains(families, fam) {
			out = append(out, refLine{v: b.Limit / div, label: b.label()})
		}
	}
	return out
}

func floatOf(v *artifact.Float) (float64, bool) {
	if v == nil || !isFinite(float64(*v)) {
		return 0, false
	}
	return float64(*v), true
}

// latencyCurve describes a chart of one latency family's p50 and p95 of each run against a
// property of the run, with the budgets of that family drawn as lines.
type latencyCurve struct {
	id, title, desc, xLabel string
	name                    string   // the family as the legend and axis say it: "TTFT"
	families                []string // metric families whose budgets are drawn
	dist                    func(*artifact.Metrics) *artifact.Distribution
	xOpts                   axisOpts
	// x is the run's position (false leaves it out), group the series group within a sweep
	// and tip the tooltip of one point.
	x          func(r *runView) (float64, bool)
	group      func(r *runView) string
	tip        func(r *runView, label string, ms float64) string
	none, once string // the notes for no figure and for a single x
}

// latencyChart draws c over the runs of rep.
func latencyChart(rep *reportModel, c latencyCurve) reportChart {
	var p50, p95 []xyPoint
	maxMs := 0.0
	for _, r := range rep.Runs {
		x, ok := c.x(r)
		if !ok {
			continue
		}
		d := c.dist(&r.B.Metrics)
		for _, q := range []struct {
			v   *artifact.Float
			dst *[]xyPoint
			lab string
		}{{d.P50, &p50, "p50"}, {d.P95, &p95, "p95"}} {
			if v, ok := floatOf(q.v); ok {
				maxMs = math.Max(maxMs, v)
				*q.dst = append(*q.dst, xyPoint{x: x, y: v, group: sweepKey(r.B) + "|" + c.group(r), tip: c.tip(r, q.lab, v)})
			}
		}
	}
	for _, b := range rep.Budgets {
		if fam, _, _ := artifact.ParseMetricKey(b.key()); slices.Contains(c.families, fam) {
			maxMs = math.Max(maxMs, b.Limit)
		}
	}
	div, unit := msUnit(maxMs)
	scaleY(p50, div)
	scaleY(p95, div)
	chart := xyChart{
		id: c.id, class: c.id,
		title:  c.title,
		desc:   fmt.Sprintf(c.desc, len(p50)),
		xLabel: c.xLabel, yLabel: c.name + " (" + unit + ")",
		xOpts: c.xOpts, yOpts: axisOpts{zero: true, plain: true},
		series: []xySeries{
			{name: c.name + " p50", color: colBlue, shape: "circle", points: p50},
			{name: c.name + " p95", color: colOrange, shape: "square", dash: true, hollow: true, points: p95},
		},
		hlines: budgetLines(rep.Budgets, c.families, div),
	}
	switch n := distinctCount(append(slices.Clone(p50), p95...)); {
	case n == 0:
		chart.note = c.none
	case n < 2:
		chart.note = c.once
	}
	return chart.render()
}

// ttftContextChart: TTFT p50 and p95 of each run against its planned context.
func ttftContextChart(rep *reportModel) reportChart {
	return latencyChart(rep, latencyCurve{
		id: "chart-ttft-context", title: "TTFT vs planned context",
		desc:   "TTFT p50 and p95 of %d runs against their planned context in tokens",
		xLabel: "planned context (tokens)", name: "TTFT", families: []string{"ttft"},
		dist:  func(m *artifact.Metrics) *artifact.Distribution { return &m.TTFT },
		xOpts: axisOpts{logOK: true, zero: true, integer: true},
		x:     func(r *runView) (float64, bool) { return r.Context, r.Context > 0 },
		group: func(r *runView) string { return "concurrency=" + strconv.Itoa(r.B.Concurrency) },
		tip: func(r *runView, label string, ms float64) string {
			return fmt.Sprintf("%s: ttft %s %s at %s planned context, concurrency %d", r.Name, label, fmtMs(ms), fmtTokens(r.Context), r.B.Concurrency)
		},
		none: "no TTFT figures: no run completed a request",
		once: "needs runs at ≥2 planned contexts to draw a curve",
	})
}

// orEmpty is *p, or "" for nil: an optional identity field.
func orEmpty(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// sweepKey groups runs that differ only in the swept variable: same model, engine, GPU
// and workload shape.
func sweepKey(b *artifact.Benchmark) string {
	return strings.Join([]string{b.Model, orEmpty(b.Engine), orEmpty(b.GPU), orEmpty(b.Tier), b.PromptCacheMode,
		strconv.Itoa(b.MaxTokens), strconv.Itoa(b.ResponseWords)}, "\x00")
}

func scaleY(pts []xyPoint, div float64) {
	for i := range pts {
		pts[i].y /= div
	}
}

var tpotFamilies = []string{"tpot", "mean_time_per_output_token", "mean_inter_token_latency_ms"}

// tpotConcurrencyChart: TPOT p50 and p95 of each run against its concurrency.
func tpotConcurrencyChart(rep *reportModel) reportChart {
	return latencyChart(rep, latencyCurve{
		id: "chart-tpot-concurrency", title: "TPOT vs concurrency",
		desc:   "TPOT p50 and p95 of %d runs against their concurrency",
		xLabel: "concurrency (requests in flight)", name: "TPOT", families: tpotFamilies,
		dist:  func(m *artifact.Metrics) *artifact.Distribution { return &m.TPOT },
		xOpts: axisOpts{logOK: true, pow2: true, zero: true, integer: true},
		x:     func(r *runView) (float64, bool) { return float64(r.B.Concurrency), r.B.Concurrency > 0 },
		group: func(r *runView) string { return "context=" + svgNum(r.Context) },
		tip: func(r *runView, label string, ms float64) string {
			return fmt.Sprintf("%s: tpot %s %s at concurrency %d, %s planned context", r.Name, label, fmtMs(ms), r.B.Concurrency, fmtTokens(r.Context))
		},
		none: "no TPOT figures: no run completed a request with two or more tokens",
		once: "needs runs at ≥2 concurrencies to draw a curve",
	})
}

// throughputConcurrencyChart: aggregate throughput of each run against its concurrency.
func throughputConcurrencyChart(rep *reportModel) reportChart {
	var pts []xyPoint
	withheld := 0
	for _, r := range rep.Runs {
		x := float64(r.B.Concurrency)
		if x <= 0 {
			continue
		}
		v, ok := floatOf(r.B.Metrics.ThroughputTokS)
		if !ok {
			withheld++
			continue
		}
		pts = append(pts, xyPoint{x: x, y: v, group: sweepKey(r.B) + "|context=" + svgNum(r.Context),
			tip: fmt.Sprintf("%s: throughput %s at concurrency %d, %s planned context", r.Name, fmtRate(v), r.B.Concurrency, fmtTokens(r.Context))})
	}
	c := xyChart{
		id: "chart-throughput-concurrency", class: "chart-throughput-concurrency",
		title:  "Throughput vs concurrency",
		desc:   fmt.Sprintf("aggregate output throughput in tokens per second of %d runs against their concurrency", len(pts)),
		xLabel: "concurrency (requests in flight)", yLabel: "throughput (tok/s)",
		xOpts: axisOpts{logOK: true, pow2: true, zero: true, integer: true}, yOpts: axisOpts{zero: true},
		series: []xySeries{{name: "output throughput", color: colGreen, shape: "diamond", points: pts}},
		hlines: budgetLines(rep.Budgets, []string{"throughput_tok_s"}, 1),
	}
	var notes []string
	switch n := distinctCount(pts); {
	case n == 0:
		notes = append(notes, "no throughput figures")
	case n < 2:
		notes = append(notes, "needs runs at ≥2 concurrencies to draw a curve")
	}
	if withheld > 0 {
		notes = append(notes, fmt.Sprintf("%d %s without throughput (a request failed or usage was missing)", withheld, rptPlural(withheld, "run", "runs")))
	}
	c.note = strings.Join(notes, "; ")
	return c.render()
}

func rptPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// curveCharts: the capacity curve, one chart per metric, failed loads hollow and red,
// the knee a vertical line, the metric's budgets dashed horizontal lines.
func curveCharts(cv *CapacityCurve, keys []string, budgets []ReportBudget, knee *CurvePoint) []reportChart {
	pts := cv.sorted()
	xLabel, xOpts := "concurrency (requests in flight)", axisOpts{logOK: true, pow2: true, zero: true, integer: true}
	if cv.byRate() {
		xLabel, xOpts = "arrival rate (requests/s)", axisOpts{logOK: true, zero: true}
	}
	var charts []reportChart
	for ki, k := range keys {
		maxV := 0.0
		for _, p := range pts {
			if v, ok := p.Metrics[k]; ok && isFinite(v) {
				maxV = math.Max(maxV, v)
			}
		}
		for _, b := range budgets {
			if b.key() == k {
				maxV = math.Max(maxV, b.Limit)
			}
		}
		div, unit := 1.0, budget.Unit(k)
		if unit == "ms" {
			div, unit = msUnit(maxV)
		}
		name := describeMetric(k)
		c := xyChart{
			id: "chart-capacity-" + strconv.Itoa(ki+1), class: "chart-capacity",
			title:  "Capacity curve: " + name,
			desc:   fmt.Sprintf("%s at %d loads; failed loads are hollow red markers", name, len(pts)),
			xLabel: xLabel, yLabel: name, xOpts: xOpts, yOpts: axisOpts{zero: true, plain: unit == "ms" || unit == "s"},
		}
		if unit != "" {
			c.yLabel += " (" + unit + ")"
		}
		s := xySeries{name: name, color: seriesColors[ki%len(seriesColors)], shape: seriesMarkers[ki%len(seriesMarkers)]}
		for _, p := range pts {
			v, ok := p.Metrics[k]
			if !ok || !isFinite(v) {
				continue
			}
			verdict := "passed"
			if !p.Passed {
				verdict, c.failedLegend = "failed", true
			}
			s.points = append(s.points, xyPoint{x: cv.load(p), y: v / div, failed: !p.Passed,
				tip: fmt.Sprintf("%s: %s %s (%s)", cv.loadLabel(p), name, fmtMetric(v, k), verdict)})
		}
		c.series = []xySeries{s}
		for _, b := range budgets {
			if b.key() == k {
				c.hlines = append(c.hlines, refLine{v: b.Limit / div, label: b.label()})
			}
		}
		if knee != nil {
			c.vlines = []refLine{{v: cv.load(*knee), label: "knee: " + cv.loadLabel(*knee)}}
		}
		switch {
		case len(s.points) == 0:
			c.note = "no point has this metric"
		case len(s.points) < 2:
			c.note = "needs ≥2 loads to draw a curve"
		}
		charts = append(charts, c.render())
	}
	return charts
}

// timelineChart draws a run's requests on its clock, one row per request in index
// order: a bar from its start to its end, the TTFT part in a lighter colour, failures in
// red. It returns nil and a note when the artifact has no timeline.
func timelineChart(r *runView) (*reportChart, string) {
	ext := r.B.Extension
	if ext == nil || len(ext.Timeline) == 0 {
		return nil, "No per-request timeline: the artifact has no anvilbench extension block (an artifact of the original tool, or of a run that sent nothing)."
	}
	spans := ext.Timeline
	var notes []string
	if len(spans) > ReportMaxTimelineRequests {
		notes = append(notes, fmt.Sprintf("showing the first %s of %s requests", fmtInt(ReportMaxTimelineRequests), fmtInt(len(spans))))
		spans = spans[:ReportMaxTimelineRequests]
	}
	elapsed := map[int]float64{}
	for _, f := range r.B.Failures {
		if v, ok := floatOf(f.ElapsedMs); ok {
			elapsed[f.RequestIndex] = v
		}
	}
	type bar struct {
		start, ttft, end float64
		hasTTFT, hasEnd  bool
		failed           bool
		span             artifact.RequestSpan
	}
	bars := make([]bar, 0, len(spans))
	maxEnd, unsent, failed := 0.0, 0, 0
	for _, s := range spans {
		start, ok := floatOf(s.StartOffsetMs)
		if !ok {
			unsent++
			bars = append(bars, bar{start: -1, span: s, failed: s.Outcome != "ok"})
			continue
		}
		b := bar{start: start, span: s, failed: s.Outcome != "ok"}
		if b.failed {
			failed++
		}
		if v, ok := floatOf(s.TTFTMs); ok {
			b.ttft, b.hasTTFT = v, true
		}
		if v, ok := floatOf(s.E2EMs); ok {
			b.end, b.hasEnd = start+v, true
		} else if v, ok := elapsed[s.RequestIndex]; ok {
			b.end, b.hasEnd = start+v, true
		}
		maxEnd = math.Max(maxEnd, start)
		if b.hasEnd {
			maxEnd = math.Max(maxEnd, b.end)
		}
		bars = append(bars, b)
	}
	if unsent > 0 {
		notes = append(notes, fmt.Sprintf("%d %s never sent", unsent, rptPlural(unsent, "request was", "requests were")))
	}
	div, unit := msUnit(maxEnd)
	xa := newAxis([]float64{0, maxEnd / div}, axisOpts{zero: true, plain: true})

	n := len(bars)
	ph := math.Min(math.Max(float64(n)*12, 72), 420)
	rowH := ph / float64(n)
	barH := math.Max(rowH*0.72, math.Min(rowH, 0.6))

	items := []legendItem{
		{label: "TTFT (queue + prefill)", color: colSky, box: true},
		{label: "decode (first token to end)", color: colBlue, box: true},
		{label: "failed request", color: colVermilion, box: true},
	}
	legend, legendH := layoutLegend(items, legendTop)
	top := legendTop + legendH + 12
	bottom := top + ph
	height := bottom + 50
	if len(notes) > 0 {
		height += 18
	}
	px := func(v float64) float64 { return plotLeft + xa.pos(v/div)*(plotRight-plotLeft) }

	title := "Request timeline: " + r.Name
	desc := fmt.Sprintf("timeline of %d requests of %s, %d failed, over %s", len(spans), r.Name, failed, fmtMs(maxEnd))
	var b strings.Builder
	svgOpen(&b, "chart-timeline-"+strconv.Itoa(r.N), "chart-timeline", title, desc, height)
	b.WriteString(legend)

	// y ticks: request indexes at row centres
	ya := newAxis([]float64{0, float64(max(n-1, 1))}, axisOpts{zero: true, integer: true})
	b.WriteString(`<g class="grid">`)
	for _, t := range xa.ticks {
		x := plotLeft + xa.pos(t)*(plotRight-plotLeft)
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, svgNum(x), svgNum(top), svgNum(x), svgNum(bottom), colGrid)
	}
	b.WriteString(`</g>`)
	b.WriteString(`<g class="axis axis-x">`)
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, svgNum(plotLeft), svgNum(bottom), svgNum(plotRight), svgNum(bottom), colAxis)
	for _, t := range xa.ticks {
		x := plotLeft + xa.pos(t)*(plotRight-plotLeft)
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/><text x="%s" y="%s" text-anchor="middle" fill="%s">%s</text>`,
			svgNum(x), svgNum(bottom), svgNum(x), svgNum(bottom+5), colAxis, svgNum(x), svgNum(bottom+18), colText, svgEsc(xa.format(t)))
	}
	fmt.Fprintf(&b, `<text class="axis-label" x="%s" y="%s" text-anchor="middle" fill="%s">%s</text></g>`,
		svgNum((plotLeft+plotRight)/2), svgNum(bottom+38), colText, svgEsc("time since the request phase began ("+unit+")"))
	b.WriteString(`<g class="axis axis-y">`)
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, svgNum(plotLeft), svgNum(top), svgNum(plotLeft), svgNum(bottom), colAxis)
	for _, t := range ya.ticks {
		row := int(t)
		if row >= n {
			continue
		}
		y := top + (float64(row)+0.5)*rowH
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/><text x="%s" y="%s" text-anchor="end" fill="%s">%d</text>`,
			svgNum(plotLeft-5), svgNum(y), svgNum(plotLeft), svgNum(y), colAxis, svgNum(plotLeft-8), svgNum(y+4), colText, bars[row].span.RequestIndex)
	}
	cy := (top + bottom) / 2
	fmt.Fprintf(&b, `<text class="axis-label" x="16" y="%s" text-anchor="middle" transform="rotate(-90 16 %s)" fill="%s">request index</text></g>`,
		svgNum(cy), svgNum(cy), colText)

	b.WriteString(`<g class="bars">`)
	for i, br := range bars {
		if br.start < 0 {
			continue
		}
		y := top + float64(i)*rowH + (rowH-barH)/2
		tip := fmt.Sprintf("request %d: %s, start %s", br.span.RequestIndex, br.span.Outcome, fmtMs(br.start))
		if br.hasTTFT {
			tip += ", ttft " + fmtMs(br.ttft)
		}
		if br.hasEnd {
			tip += ", end " + fmtMs(br.end-br.start) + " after start"
		}
		class := "req"
		if br.failed {
			class = "req req-failed"
		}
		fmt.Fprintf(&b, `<g class="%s"><title>%s</title>`, class, svgEsc(tip))
		x0 := px(br.start)
		switch {
		case br.failed && br.hasEnd:
			fmt.Fprintf(&b, `<rect class="bar-failed" x="%s" y="%s" width="%s" height="%s" fill="%s"/>`,
				svgNum(x0), svgNum(y), svgNum(math.Max(px(br.end)-x0, 1.5)), svgNum(barH), colVermilion)
			if br.hasTTFT && br.ttft < br.end-br.start { // its TTFT part lighter
				fmt.Fprintf(&b, `<rect class="bar-failed-ttft" x="%s" y="%s" width="%s" height="%s" fill="%s"/>`,
					svgNum(x0), svgNum(y), svgNum(math.Max(px(br.start+br.ttft)-x0, 0.5)), svgNum(barH), colFailedTTFT)
			}
		case br.failed: // no duration known: a mark at its start
			fmt.Fprintf(&b, `<rect class="bar-failed" x="%s" y="%s" width="3" height="%s" fill="%s"/>`,
				svgNum(x0-1.5), svgNum(y), svgNum(math.Max(barH, 3)), colVermilion)
		case br.hasEnd:
			split := br.end
			if br.hasTTFT {
				split = math.Min(br.start+br.ttft, br.end)
			}
			fmt.Fprintf(&b, `<rect class="bar-ttft" x="%s" y="%s" width="%s" height="%s" fill="%s"/>`,
				svgNum(x0), svgNum(y), svgNum(math.Max(px(split)-x0, 0.5)), svgNum(barH), colSky)
			fmt.Fprintf(&b, `<rect class="bar-decode" x="%s" y="%s" width="%s" height="%s" fill="%s"/>`,
				svgNum(px(split)), svgNum(y), svgNum(math.Max(px(br.end)-px(split), 0.5)), svgNum(barH), colBlue)
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</g>`)
	if len(notes) > 0 {
		fmt.Fprintf(&b, `<text class="chart-note" x="%s" y="%s" text-anchor="middle" fill="%s" font-style="italic">%s</text>`,
			svgNum(chartW/2), svgNum(height-10), colMuted, svgEsc(strings.Join(notes, "; ")))
	}
	b.WriteString(`</svg>`)
	c := reportChart{SVG: template.HTML(b.String())}
	return &c, ""
}
