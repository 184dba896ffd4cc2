package gate

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
)

// coldMargin is how much slower a decode step may be in the requests a run warmed the
// engine with last (or, without a warm-up, in its first requests) than in the measured
// phase before the engine counts as cold: 25%, beyond what the medians of a few requests
// move by (a median of 8 under 10% per-request jitter moves about 4%).
const coldMargin = 0.25

// firstRequests is how many of a run's first requests stand for its start when it had no
// warm-up: the first wave of a closed loop of 8, at most a quarter of the run.
const firstRequests = 8

// StartedWarm checks that the run measured a warm engine: that the last requests of its
// warm-up decoded within coldMargin of the measured phase's TPOT p50, or, without a
// warm-up, that its first requests did within coldMargin of the rest. A cold engine (first
// requests slow after it reported ready: allocations, compilation, clocks still ramping)
// makes an invalid run: its figures measured the start, not the engine.
func StartedWarm() Check {
	return Check{Name: "measured a warm engine", Kind: KindEngine, judge: func(a *artifact.Benchmark) Result {
		if a.Extension == nil {
			return skipped("the artifact records no warm-up or timeline (not written by anvilbench)")
		}
		if a.Metrics.TPOT.P50 == nil {
			return skipped("no measured decode to hold the engine's start against")
		}
		measured := float64(*a.Metrics.TPOT.P50)
		if w := a.Extension.Warmup; w != nil {
			if w.LastTPOTP50Ms == nil {
				return skipped(fmt.Sprintf("no request of the warm-up's %d succeeded with a decode figure", w.Requests))
			}
			last := float64(*w.LastTPOTP50Ms)
			what := fmt.Sprintf("the warm-up's last %d requests decoded at %.2fms a token, the measured phase's p50 at %.2fms", w.LastRequests, last, measured)
			if last > measured*(1+coldMargin) {
				return found(InvalidRun, fmt.Sprintf("the engine was still cold when the measured phase began: %s (%.0f%% slower; bound %.0f%%): warm it longer (warmup_requests, %d now)",
					what, 100*(last/measured-1), 100*coldMargin, w.Requests))
			}
			return held(what)
		}
		first, rest := startOf(a)
		if len(first) == 0 {
			return skipped("too few requests to tell the run's start from the rest (no warm-up)")
		}
		f, r := median(first), median(rest)
		what := fmt.Sprintf("without a warm-up, the run's first %d requests decoded at %.2fms a token, the rest at %.2fms", len(first), f, r)
		if f > r*(1+coldMargin) {
			return found(InvalidRun, fmt.Sprintf("a cold engine: %s (%.0f%% slower; bound %.0f%%): the figures include its start; warm it first (warmup_requests)", what, 100*(f/r-1), 100*coldMargin))
		}
		return held(what)
	}}
}

// startOf splits the TPOT of the first block's successes by start into its first
// requests (at most a quarter) and the rest; none when there are fewer than 8.
func startOf(a *artifact.Benchmark) (first, rest []float64) {
	start := map[int]float64{}
	for _, s := range a.Extension.Timeline {
		if s.StartOffsetMs != nil {
			start[s.RequestIndex] = float64(*s.StartOffsetMs)
		}
	}
	per := a.Requests
	if b := a.Extension.Blocks; b != nil && b.RequestsPerBlock > 0 {
		per = b.RequestsPerBlock
	}
	var rows []artifact.RequestTiming
	for _, r := range a.RequestTimings {
		if _, ok := start[r.RequestIndex]; ok && r.RequestIndex < per && r.TPOTMs != nil {
			rows = append(rows, r)
		}
	}
	if len(rows) < 2*firstRequests {
		return nil, nil
	}
	slices.SortFunc(rows, func(x, y artifact.RequestTiming) int {
		return cmp.Compare(start[x.RequestIndex], start[y.RequestIndex])
	})
	n := min(firstRequests, len(rows)/4)
	for k, r := range rows {
		if k < n {
			first = append(first, float64(*r.TPOTMs))
		} else {
			rest = append(rest, float64(*r.TPOTMs))
		}
	}
	return first, rest
}

// median is the nearest-rank p50 of values.
func median(values []float64) float64 {
	s := slices.Sorted(slices.Values(values))
	p, _ := stats.Percentile(s, 50)
	return p
}
