// Package chart draws a report's charts as self-contained, accessible SVG: an x–y chart of
// named series with horizontal reference lines (budgets) and vertical marks (a knee), and a
// request timeline. Each chart writes one <svg> element to an io.Writer; nothing is scripted
// and nothing is fetched. Every chart has a title and a description for screen readers,
// every series its name, every point a tooltip with its figures.
package chart

import (
	"html"
	"math"
	"strconv"
)

// palette holds the series colours, in order (Okabe–Ito: told apart with every common
// colour-vision deficiency). Markers differ per series too, so colour is never the only cue.
var palette = [...]string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"}

var markers = []string{"circle", "square", "diamond", "triangle"}

// Colours of the frame, the reference lines and failures.
const (
	inkColor    = "#1f2328"
	mutedColor  = "#57606a"
	gridColor   = "#d0d7de"
	budgetColor = "#cf222e"
	failColor   = "#cf222e"
)

// Sizes, in SVG user units (pixels at 100%).
const (
	defaultWidth  = 640
	defaultHeight = 300
	marginLeft    = 64
	marginRight   = 16
	marginTop     = 12
	marginBottom  = 46
	legendRow     = 18
	fontSize      = 12
)

// Point is one measured value.
type Point struct {
	X, Y float64
	// Label names the point in its tooltip (the run it came from).
	Label string
	// Source is what produced the point (an endpoint), written to its data-source
	// attribute so a reader or a test can check that no series mixes two.
	Source string
	// Failed draws the point hollow in red: a load that broke its budget.
	Failed bool
}

// Series is one line of an x–y chart: the points of one comparable set, drawn in x order.
type Series struct {
	Name   string
	Points []Point
	// Dashed draws the line dashed (a baseline beside the current run).
	Dashed bool
}

// Line is a horizontal reference line, such as a budget's bound.
type Line struct {
	Y     float64
	Label string
}

// Mark is a vertical reference line, such as the knee of a capacity curve.
type Mark struct {
	X     float64
	Label string
}

// open starts an accessible <svg>: role img, labelled by its title and description.
func open(b *builder, id, class, title, desc string, width, height float64) {
	b.f(`<svg id="%s" class="%s" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-labelledby="%s-title %s-desc">`,
		esc(id), esc(class), num(width), num(height), num(width), num(height), esc(id), esc(id))
	b.f(`<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>`, esc(id), esc(title), esc(id), esc(desc))
	b.f(`<rect width="%s" height="%s" fill="#ffffff"/>`, num(width), num(height))
}

// textWidth estimates the width of s at the chart's font size.
func textWidth(s string) float64 { return 6.6 * float64(len([]rune(s))) }

func num(v float64) string  { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
func esc(s string) string   { return html.EscapeString(s) }
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func orDefault(v, d float64) float64 {
	if v > 0 {
		return v
	}
	return d
}
