package chart

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"
)

// wellFormed decodes an svg as strict XML and returns its root's attributes and title.
func wellFormed(t *testing.T, svg string) (role, labelledBy, title string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	dec.Strict = true
	var root struct {
		Role   string `xml:"role,attr"`
		Labels string `xml:"aria-labelledby,attr"`
		Title  string `xml:"title"`
	}
	if err := dec.Decode(&root); err != nil {
		t.Fatalf("not well-formed: %v\n%.300s", err, svg)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("content after </svg>: %v", err)
	}
	return root.Role, root.Labels, root.Title
}

func write(t *testing.T, w interface{ Write(io.Writer) error }) string {
	t.Helper()
	var b bytes.Buffer
	if err := w.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestXYDrawsEachSeriesInXOrder(t *testing.T) {
	c := XY{ID: "tpot", Title: "TPOT <p50>", Desc: "two engines", XLabel: "concurrency", YLabel: "tpot p50 (ms)", XLog: true,
		Series: []Series{
			{Name: "a", Points: []Point{{X: 8, Y: 9, Source: "A"}, {X: 1, Y: 5, Source: "A"}, {X: 4, Y: 7, Source: "A"}, {X: math.NaN(), Y: 1}, {X: 0, Y: 1}}},
			{Name: "a (baseline)", Dashed: true, Points: []Point{{X: 2, Y: 4, Source: "A"}, {X: 1, Y: 3, Source: "A", Failed: true}}},
		},
		Lines: []Line{{Y: 8, Label: "budget tpot_p50_ms<=8"}},
		Marks: []Mark{{X: 4, Label: "knee 4"}},
	}
	svg := write(t, c)
	role, labels, title := wellFormed(t, svg)
	if role != "img" || labels != "tpot-title tpot-desc" || title != "TPOT <p50>" {
		t.Errorf("accessible name: role %q, labelledby %q, title %q", role, labels, title)
	}
	xs := regexp.MustCompile(`data-x="([^"]*)"`).FindAllStringSubmatch(svg, -1)
	var got []string
	for _, x := range xs {
		got = append(got, x[1])
	}
	if fmt.Sprint(got) != "[1 4 8 1 2]" {
		t.Errorf("points drawn in the order %v, want each series in x order without NaN or x <= 0 on a log axis", got)
	}
	for _, want := range []string{`class="budget-line"`, ">budget tpot_p50_ms&lt;=8</text>", `class="mark"`, ">knee 4</text>",
		`stroke-dasharray="5 3"`, `fill="#ffffff" stroke="#cf222e" stroke-width="2"`, "a: concurrency = 4, tpot p50 (ms) = 7"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %s", want)
		}
	}
	if n := strings.Count(svg, "<polyline"); n != 2 {
		t.Errorf("%d lines, want one per series", n)
	}
}

func TestXYWithNothingToDraw(t *testing.T) {
	c := XY{ID: "empty", XLog: true, Series: []Series{{Name: "x", Points: []Point{{X: 0, Y: 1}, {X: math.Inf(1), Y: 2}}}}}
	if c.Drawable() {
		t.Error("a chart of no drawable point is drawable")
	}
	if err := c.Write(io.Discard); err == nil {
		t.Error("a chart of no drawable point was written")
	}
}

func TestAxes(t *testing.T) {
	for _, c := range []struct {
		a     axis
		ticks string
		label string
	}{
		{log2Axis([]float64{1, 2, 64}), "[1 2 4 8 16 32 64]", "64"},
		{log2Axis([]float64{3, 24}), "[2 4 8 16 32]", "32"},
		{log2Axis([]float64{1, 1024}), "[1 4 16 64 256 1024]", "1024"},
		{linearAxis([]float64{1000, 64000}, true), "[0 20000 40000 60000 80000]", "80k"},
		{linearAxis([]float64{0, 7.2}, true), "[0 2 4 6 8]", "8"},
		{linearAxis([]float64{0.2, 0.45}, true), "[0 0.1 0.2 0.3 0.4 0.5]", "0.5"},
		{linearAxis([]float64{5, 5}, true), "[0 1 2 3 4 5]", "5"},
		{linearAxis([]float64{5, 5}, false), "[5 5.2 5.4 5.6 5.8 6]", "6.0"},
	} {
		if got := fmt.Sprint(c.a.ticks); got != c.ticks {
			t.Errorf("ticks %s, want %s", got, c.ticks)
		}
		if got := c.a.label(c.a.ticks[len(c.a.ticks)-1]); got != c.label {
			t.Errorf("last tick label %q, want %q", got, c.label)
		}
	}
}

func TestTimeline(t *testing.T) {
	tl := Timeline{ID: "tl", Title: "Request timeline: r", Desc: "3 requests", Note: "1 never sent", Spans: []Span{
		{Start: 0, FirstToken: 40, End: 200, Label: "request 0 & more"},
		{Start: 10, FirstToken: math.NaN(), End: 60, Failed: true, Label: "request 1"},
		{Start: math.NaN(), FirstToken: math.NaN(), End: math.NaN(), Label: "request 2"},
	}}
	svg := write(t, tl)
	wellFormed(t, svg)
	if n := strings.Count(svg, `<g class="request">`); n != 2 {
		t.Errorf("%d requests drawn, want the 2 that were sent", n)
	}
	if !strings.Contains(svg, `fill="#cf222e"/></g>`) || !strings.Contains(svg, "request 0 &amp; more") || !strings.Contains(svg, ">1 never sent</text>") {
		t.Error("the failed request is not red, a label is not escaped, or the note is missing")
	}
	if err := (Timeline{ID: "none"}).Write(io.Discard); err == nil {
		t.Error("an empty timeline was written")
	}
}
