package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/reporters/report/internal/chart"
)

// gpuChart draws each GPU's SM clock through the run, seconds from the measured phase's
// start, with its bounds and each GPU's first throttle marked: a clock that held is a flat
// line, a throttle a step down at its mark.
func gpuChart(v *runView, t *artifact.GPUTelemetry) (kindChart, bool) {
	c := chart.XY{ID: "chart-gpu-" + v.ID, Title: "GPU SM clocks: " + v.Name, XLabel: "seconds since the measured phase began", YLabel: "MHz"}
	var events []string
	end := 0.0
	for _, g := range t.GPUs {
		s := chart.Series{Name: "GPU " + g.GPU}
		throttled := false
		for _, p := range g.Series {
			at := float64(p.OffsetMs) / 1000
			if p.During {
				end = max(end, at)
			}
			if p.SMClockMHz == nil {
				continue
			}
			label := fmt.Sprintf("GPU %s at %.1f s: %.0f MHz", g.GPU, at, float64(*p.SMClockMHz))
			if p.PowerW != nil {
				label += fmt.Sprintf(", %.0f W", float64(*p.PowerW))
			}
			if p.TemperatureC != nil {
				label += fmt.Sprintf(", %.0f °C", float64(*p.TemperatureC))
			}
			if len(p.ReasonNames) > 0 {
				label += " (" + strings.Join(p.ReasonNames, ", ") + ")"
			}
			s.Points = append(s.Points, chart.Point{X: at, Y: float64(*p.SMClockMHz), Label: label})
			if names := p.Throttles(); p.During && len(names) > 0 && !throttled {
				throttled = true
				c.Marks = append(c.Marks, chart.Mark{X: at, Label: "GPU " + g.GPU + " throttled"})
				events = append(events, fmt.Sprintf("GPU %s throttled %.1f s in (%s)", g.GPU, at, strings.Join(names, ", ")))
			}
		}
		c.Series = append(c.Series, s)
	}
	if !c.Drawable() {
		return kindChart{}, false
	}
	c.Marks = append(c.Marks, chart.Mark{X: 0, Label: "measured phase"}, chart.Mark{X: end, Label: "end"})
	c.Desc = fmt.Sprintf("SM clock of %d GPUs sampled through the run (%s)", len(t.GPUs), t.Source)
	var buf bytes.Buffer
	if c.Write(&buf) != nil {
		return kindChart{}, false
	}
	caption := fmt.Sprintf("%d samples from %s before, through and after the measured phase (dotted lines).", t.Samples, t.Source)
	if len(events) > 0 {
		caption += " " + joinSentences(events)
	} else {
		caption += " No GPU throttled during it."
	}
	return kindChart{SVG: buf.String(), Caption: caption}, true
}
