package chart

import (
	"math"
	"slices"
	"strconv"
)

// frame is the plotting area.
type frame struct{ left, right, top, bottom float64 }

func (f frame) x(a axis, v float64) float64 { return f.left + a.pos(v)*(f.right-f.left) }
func (f frame) y(a axis, v float64) float64 { return f.bottom - a.pos(v)*(f.bottom-f.top) }

// axes draws the grid, the ticks and the labels of both axes; a y axis without ticks draws
// only the x axis.
func (f frame) axes(b *builder, xa, ya axis, xLabel, yLabel string) {
	b.f(`<g class="axes" font-size="%d">`, fontSize)
	for _, t := range ya.ticks {
		y := f.y(ya, t)
		b.line(f.left, y, f.right, y, gridColor, "")
		b.f(`<text x="%s" y="%s" text-anchor="end" dominant-baseline="middle" fill="%s">%s</text>`, num(f.left-6), num(y), inkColor, esc(ya.label(t)))
	}
	for _, t := range xa.ticks {
		x := f.x(xa, t)
		b.line(x, f.bottom, x, f.bottom+4, inkColor, "")
		b.text(x, f.bottom+17, "middle", inkColor, xa.label(t))
	}
	b.line(f.left, f.bottom, f.right, f.bottom, inkColor, "")
	if len(ya.ticks) > 0 {
		b.line(f.left, f.top, f.left, f.bottom, inkColor, "")
	}
	b.text((f.left+f.right)/2, f.bottom+36, "middle", inkColor, xLabel)
	if yLabel != "" {
		b.f(`<text transform="translate(14 %s) rotate(-90)" text-anchor="middle" fill="%s">%s</text>`, num((f.top+f.bottom)/2), inkColor, esc(yLabel))
	}
	b.WriteString(`</g>`)
}

// axis maps values to [0, 1] and holds its ticks.
type axis struct {
	lo, hi float64
	log2   bool
	ticks  []float64
	dec    int // decimals of the tick labels
}

func (a axis) pos(v float64) float64 {
	lo, hi := a.lo, a.hi
	if a.log2 {
		v, lo, hi = math.Log2(v), math.Log2(lo), math.Log2(hi)
	}
	if hi == lo {
		return 0.5
	}
	return (v - lo) / (hi - lo)
}

// label prints a tick: integers plainly, round thousands as "20k".
func (a axis) label(v float64) string {
	if math.Abs(v) >= 10000 && math.Mod(v, 1000) == 0 {
		return strconv.FormatFloat(v/1000, 'f', -1, 64) + "k"
	}
	if a.dec == 0 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', a.dec, 64)
}

// linearAxis spans vals with about five ticks at 1, 2 or 5 times a power of ten; fromZero
// starts it at zero when every value is positive.
func linearAxis(vals []float64, fromZero bool) axis {
	lo, hi := slices.Min(vals), slices.Max(vals)
	if fromZero && lo > 0 {
		lo = 0
	}
	if hi == lo {
		hi = lo + 1
	}
	step := niceStep((hi - lo) / 5)
	a := axis{lo: math.Floor(lo/step) * step, hi: math.Ceil(hi/step) * step}
	if step < 1 {
		a.dec = int(math.Ceil(-math.Log10(step)))
	}
	for t := a.lo; t <= a.hi+step/2; t += step {
		// printed and parsed back, so 0.1 steps give 0.3, not 0.30000000000000004
		tick, _ := strconv.ParseFloat(strconv.FormatFloat(math.Round(t/step)*step, 'f', a.dec, 64), 64)
		a.ticks = append(a.ticks, tick)
	}
	return a
}

// log2Axis spans positive vals in powers of two, a tick per power (every other one past
// eight ticks).
func log2Axis(vals []float64) axis {
	lo, hi := math.Exp2(math.Floor(math.Log2(slices.Min(vals)))), math.Exp2(math.Ceil(math.Log2(slices.Max(vals))))
	if hi == lo {
		hi = lo * 2
	}
	a := axis{lo: lo, hi: hi, log2: true}
	every := 1.0
	if math.Log2(hi/lo) > 8 {
		every = 2
	}
	for t := lo; t <= hi; t *= math.Exp2(every) {
		a.ticks = append(a.ticks, t)
	}
	return a
}

func niceStep(raw float64) float64 {
	if raw <= 0 || !finite(raw) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}
