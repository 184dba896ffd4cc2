package report

import (
	"fmt"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// capacityFields are what a run says of its capacity: its SLO's attainment and goodput,
// the capacity a search found, whether the engine held a steady state, and what its
// tokens cost in energy.
func capacityFields(b *artifact.Benchmark) []fieldView {
	x := b.Extension
	var out []fieldView
	if x.SLOAttainment != nil {
		text := fmt.Sprintf("%s%% of the requests attempted met every threshold of %s", fmtNumber(100*float64(*x.SLOAttainment), 1), strings.Join(x.Budgets, ", "))
		if x.GoodputRPS != nil {
			text += fmt.Sprintf("; goodput %s requests/s", fmtNumber(float64(*x.GoodputRPS), 2))
		}
		out = append(out, fieldView{"SLO attainment", text})
	}
	if s := x.Search; s != nil {
		text := fmt.Sprintf("%s %g, the highest load within %s", strings.ReplaceAll(s.Over, "_", " "), float64(s.Capacity), strings.Join(s.SLO, ", "))
		if s.Broke != nil {
			text += fmt.Sprintf("; %g broke it (%s)", float64(*s.Broke), strings.Join(s.BrokeFirst, ", "))
		} else {
			text += "; none broke it up to the search's bound"
		}
		text += fmt.Sprintf("; %d probes, %s requests", len(s.Probes), fmtInt(s.Requests))
		if s.Baseline != nil {
			text += fmt.Sprintf("; the baseline build's %g", float64(s.Baseline.Capacity))
		}
		out = append(out, fieldView{"capacity", text})
	}
	if len(x.Steady) > 0 {
		var parts []string
		for _, d := range x.Steady {
			parts = append(parts, fmt.Sprintf("%s %+.1f%% (p=%.2g), level shift %+.1f%% (p=%.2g)", strings.TrimSuffix(d.Figure, "_ms"),
				float64(d.TrendPct), float64(d.TrendP), float64(d.ShiftPct), float64(d.ShiftP)))
		}
		d := x.Steady[0]
		out = append(out, fieldView{"drift over the run", fmt.Sprintf("%s, over %d requests in %.1f s", strings.Join(parts, "; "), d.Requests, float64(d.ToMs-d.FromMs)/1000)})
	}
	if g := x.GPU; g != nil && g.EnergyJ != nil {
		text := fmt.Sprintf("%s J over the measured phase (%s)", fmtNumber(float64(*g.EnergyJ), 1), g.EnergySource)
		for _, key := range []string{"joules_per_output_token", "joules_per_token", "cost_per_million_output_tokens"} {
			f, _ := artifact.LookupFigure(key)
			if v, _ := f.Of(b); v != nil {
				text += fmt.Sprintf("; %s %s", strings.ReplaceAll(key, "_", " "), fmtNumber(*v, 4))
			}
		}
		out = append(out, fieldView{"energy", text})
	}
	return out
}

// writeCapacity is a run's capacity fields and, for a search, each probe: report.md's
// stand-in for the curve report.html draws.
func writeCapacity(b *strings.Builder, r *runView) {
	if r.B.Extension == nil {
		return
	}
	fields := capacityFields(r.B)
	if len(fields) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s: capacity\n\n", mdText(r.Name))
	for _, f := range fields {
		fmt.Fprintf(b, "- **%s**: %s\n", mdText(f.Label), mdText(f.Value))
	}
	s := r.B.Extension.Search
	if s == nil || len(s.Probes) == 0 {
		return
	}
	b.WriteString("\n")
	mdRow(b, mdTextAll([]string{strings.ReplaceAll(s.Over, "_", " "), "run", "requests", "verdict", "figures (95% interval)"})...)
	mdAlign(b, "r", "r", "r", "l", "l")
	for _, p := range s.Probes {
		var figs []string
		for _, f := range p.Figures {
			text := f.Budget + ": -"
			if f.Value != nil {
				text = fmt.Sprintf("%s: %s", f.Budget, fmtNumber(float64(*f.Value), 2))
			}
			if f.Low95 != nil && f.High95 != nil {
				text += fmt.Sprintf(" (%s..%s)", fmtNumber(float64(*f.Low95), 2), fmtNumber(float64(*f.High95), 2))
			}
			figs = append(figs, text)
		}
		verdict := p.Verdict
		if p.Decided != p.Verdict {
			verdict += ", taken as " + p.Decided
		}
		mdRow(b, fmt.Sprintf("%g", float64(p.Load)), fmt.Sprint(p.Attempt), fmtInt(p.Requests), mdText(verdict), mdText(strings.Join(figs, "; ")))
	}
}
