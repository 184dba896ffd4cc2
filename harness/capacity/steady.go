package capacity

import (
	"cmp"
	"math"
	"slices"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
)

// steadyState tests each latency figure of the measured phase for a trend and a change of
// level (artifact.Drift), over the requests that completed, in start order, without each
// block's first and last wave of inFlight requests in a closed loop (the ramp, when all
// start together, and the drain, when ever fewer are in flight). Nil when too few remain.
func steadyState(b *artifact.Benchmark, inFlight int, closedLoop bool) []artifact.Drift {
	if b.Extension == nil {
		return nil
	}
	perBlock := b.Requests
	if bl := b.Extension.Blocks; bl != nil && bl.RequestsPerBlock > 0 {
		perBlock = bl.RequestsPerBlock
	}
	type point struct {
		start, tpot, ttft float64
		hasTPOT           bool
	}
	starts := map[int]float64{}
	for _, s := range b.Extension.Timeline {
		if s.Outcome == "ok" && s.StartOffsetMs != nil {
			starts[s.RequestIndex] = float64(*s.StartOffsetMs)
		}
	}
	byBlock := map[int][]point{}
	for _, r := range b.RequestTimings {
		start, ok := starts[r.RequestIndex]
		if !ok {
			continue
		}
		p := point{start: start, ttft: float64(r.TTFTMs)}
		if r.TPOTMs != nil {
			p.tpot, p.hasTPOT = float64(*r.TPOTMs), true
		}
		byBlock[r.RequestIndex/perBlock] = append(byBlock[r.RequestIndex/perBlock], p)
	}
	var window []point
	for _, pts := range byBlock {
		slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.start, b.start) })
		if closedLoop {
			if len(pts) <= 2*inFlight {
				continue
			}
			pts = pts[inFlight : len(pts)-inFlight]
		}
		window = append(window, pts...)
	}
	slices.SortFunc(window, func(a, b point) int { return cmp.Compare(a.start, b.start) })
	var out []artifact.Drift
	for _, fig := range []struct {
		name string
		of   func(point) (float64, bool)
	}{
		{"tpot_ms", func(p point) (float64, bool) { return p.tpot, p.hasTPOT }},
		{"ttft_ms", func(p point) (float64, bool) { return p.ttft, true }},
	} {
		var ts, ys []float64
		for _, p := range window {
			if v, ok := fig.of(p); ok {
				ts, ys = append(ts, p.start/1000), append(ys, v)
			}
		}
		if d, ok := drift(fig.name, ts, ys, inFlight); ok {
			out = append(out, d)
		}
	}
	return out
}

// Groups a drift is tested over: requests that share batches are alike, so a figure is
// tested over the medians of groups of consecutive requests, each at least a wave of those
// in flight, at most 30 groups, and no test with fewer than 10.
const (
	steadyMaxGroups = 30
	steadyMinGroups = 10
)

// steadyLevel is the level of a trend's interval: its near end is beyond the bound with
// 99.75% confidence, the level of each of the gate's four tests (gate.heldSteady).
const steadyLevel = 1 - 2*0.0025

// drift is one figure's artifact.Drift over values ys started at ts (seconds, ascending).
func drift(name string, ts, ys []float64, inFlight int) (artifact.Drift, bool) {
	size := max(inFlight, 5, (len(ys)+steadyMaxGroups-1)/steadyMaxGroups)
	groups := len(ys) / size
	if groups < steadyMinGroups {
		return artifact.Drift{}, false
	}
	gt, gy := make([]float64, groups), make([]float64, groups)
	for g := range groups {
		from, to := g*len(ys)/groups, (g+1)*len(ys)/groups
		gt[g], gy[g] = midpoint(ts[from:to]), midpoint(ys[from:to])
	}
	med := midpoint(ys)
	span := gt[groups-1] - gt[0]
	if med <= 0 || span <= 0 {
		return artifact.Drift{}, false
	}
	tr := stats.TrendOf(gt, gy, steadyLevel)
	if math.IsNaN(tr.Slope) {
		return artifact.Drift{}, false
	}
	pct := func(slope float64) artifact.Float { return artifact.Float(100 * slope * span / med) }
	d := artifact.Drift{Figure: name, Requests: len(ys), Groups: groups, FromMs: artifact.Float(ts[0] * 1000), ToMs: artifact.Float(ts[len(ts)-1] * 1000),
		Median: artifact.Float(med), TrendPct: pct(tr.Slope), TrendLowPct: pct(tr.Low), TrendHighPct: pct(tr.High), TrendP: artifact.Float(tr.P),
		ShiftAtMs: artifact.Float(gt[min(tr.ShiftAt, groups-1)] * 1000), ShiftP: artifact.Float(tr.ShiftP)}
	if before, after := midpoint(gy[:max(tr.ShiftAt, 1)]), midpoint(gy[min(tr.ShiftAt, groups-1):]); before > 0 {
		d.ShiftPct = artifact.Float(100 * (after - before) / before)
	}
	return d, true
}

// midpoint is the median of xs, the mean of the middle two for an even count.
func midpoint(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s) == 0 {
		return 0
	}
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
