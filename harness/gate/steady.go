package gate

import (
	"fmt"
	"math"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// steadyBounds are how far an engine may drift over a measured phase before the run
// measured its drift rather than its level (throttling, a leak, a cache filling up).
type steadyBounds struct {
	// MaxDriftPct bounds a figure's trend over the phase (Sen's slope times its length) and
	// its largest change of level, in percent of its median; a move beyond it that its
	// test finds significant makes the run invalid.
	MaxDriftPct float64 `key:"max_drift_pct" range:"(0,1000]" default:"10"`
	// AllowDrift keeps a run that drifted from being invalid; the check says it happened.
	AllowDrift bool `key:"allow_drift" default:"false"`
}

// steadyAlpha is the level each of the four tests (a trend and a shift, of TPOT and
// TTFT) is held to: 1% over the four, Bonferroni.
const steadyAlpha = 0.01 / 4

// heldSteady checks that the engine held a steady state over the measured phase: no
// latency figure trended beyond bounds.MaxDriftPct (Mann-Kendall significant at
// steadyAlpha and Sen's slope's interval wholly beyond the bound) or shifted beyond it
// (Pettitt significant at steadyAlpha), or the run is invalid, naming the figure and the
// size of its drift; AllowDrift passes it, noted.
func heldSteady(bounds steadyBounds) Check {
	if bounds.MaxDriftPct == 0 {
		bounds.MaxDriftPct = 10
	}
	return Check{Name: "held a steady state", Kind: KindEngine, judge: func(a *artifact.Benchmark) Result {
		if a.Extension == nil || len(a.Extension.Steady) == 0 {
			return skipped("too few requests in the run's steady part to test it for drift")
		}
		var moved, steady []string
		for _, d := range a.Extension.Steady {
			name := strings.TrimSuffix(d.Figure, "_ms")
			window := fmt.Sprintf("over %d requests in %.1f s", d.Requests, float64(d.ToMs-d.FromMs)/1000)
			switch {
			case float64(d.TrendP) < steadyAlpha && (float64(d.TrendLowPct) > bounds.MaxDriftPct || float64(d.TrendHighPct) < -bounds.MaxDriftPct):
				moved = append(moved, fmt.Sprintf("%s drifted %+.0f%% %s (Sen's slope, 99.5%% interval %+.0f%%..%+.0f%%; Mann-Kendall p=%.1g)",
					name, float64(d.TrendPct), window, float64(d.TrendLowPct), float64(d.TrendHighPct), float64(d.TrendP)))
			case float64(d.ShiftP) < steadyAlpha && math.Abs(float64(d.ShiftPct)) > bounds.MaxDriftPct:
				moved = append(moved, fmt.Sprintf("%s shifted %+.0f%% at %.1f s (Pettitt p=%.1g) %s", name, float64(d.ShiftPct), float64(d.ShiftAtMs)/1000, float64(d.ShiftP), window))
			default:
				steady = append(steady, fmt.Sprintf("%s %+.1f%% %s", name, float64(d.TrendPct), window))
			}
		}
		if len(moved) == 0 {
			return held(fmt.Sprintf("no figure moved beyond %s%%: %s", trim(bounds.MaxDriftPct), strings.Join(steady, ", ")))
		}
		why := strings.Join(moved, "; ") + fmt.Sprintf(" (bound %s%%): the engine drifted during the run, throttling, leaking or filling a cache, and its figures are a mix of its states", trim(bounds.MaxDriftPct))
		if bounds.AllowDrift {
			r := held(why + "; allowed (allow_drift)")
			r.Noted = "drifted, allowed"
			return r
		}
		return found(InvalidRun, why+"; the run is invalid (allow_drift=true records it instead)")
	}}
}
