package gate

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
)

// coldMargin is how much slower a decode step may be in the requests a run warmed the
// engine with last (or, without a warm-up, in its first requests) than in the measured
// phase before the engine counts as cold: 25%.
const coldMargin = 0.25

// coldAlpha is the level of the test that the start decoded slower than the measured phase
// by more than coldMargin: a warm engine is called cold at most 1% of the time whatever
// its requests' spread, however few (docs/gating.md, "A warm engine").
const coldAlpha = 0.01

// firstRequests is how many of a run's first requests stand for its start when it had no
// warm-up: the first wave of a closed loop of 8, at most a quarter of the run.
const firstRequests = 8

// StartedWarm checks that the run measured a warm engine: that the last requests of its
// warm-up (or, without a warm-up, its first requests) did not decode slower than the
// measured phase by more than coldMargin, beyond what their samples resolve: Welch's t of
// the log TPOTs against the log of the bound, one-sided at 1%. A cold engine (first
// requests slow after it reported ready: allocations, compilation, clocks still ramping)
// makes an invalid run: its figures measured the start, not the engine. A few requests a
// side resolve only a large slowdown, and a smaller one is then not called cold.
func StartedWarm() Check {
	return Check{Name: "measured a warm engine", Kind: KindEngine, judge: func(a *artifact.Benchmark) Result {
		if a.Extension == nil {
			return skipped("the artifact records no warm-up or timeline (not written by anvilbench)")
		}
		if a.Metrics.TPOT.P50 == nil {
			return skipped("no measured decode to hold the engine's start against")
		}
		if w := a.Extension.Warmup; w != nil {
			return warmedUp(a, w)
		}
		first, rest := startOf(a)
		if len(first) == 0 {
			return skipped("too few requests to tell the run's start from the rest (no warm-up)")
		}
		c := coldTest(first, rest)
		what := fmt.Sprintf("without a warm-up, the run's first %d requests decoded at %.2fms a token, the rest at %.2fms (%s)", len(first), c.slow, c.rest, c)
		if c.cold() {
			return found(InvalidRun, fmt.Sprintf("a cold engine: %s: the figures include its start; warm it first (warmup_requests)", what))
		}
		return held(what)
	}}
}

// warmedUp holds the warm-up's last requests against the measured phase.
func warmedUp(a *artifact.Benchmark, w *artifact.Warmup) Result {
	measured := measuredTPOT(a)
	if len(w.LastTPOTMs) == 0 {
		if w.LastTPOTP50Ms == nil {
			return skipped(fmt.Sprintf("no request of the warm-up's %d succeeded with a decode figure", w.Requests))
		}
		// An artifact of an earlier version keeps the warm-up's median alone: a point
		// comparison, said as such.
		last, p50 := float64(*w.LastTPOTP50Ms), float64(*a.Metrics.TPOT.P50)
		what := fmt.Sprintf("the warm-up's last %d requests decoded at %.2fms a token (p50), the measured phase's p50 at %.2fms (an artifact without the warm-up's requests: a point comparison)", w.LastRequests, last, p50)
		if last > p50*(1+coldMargin) {
			return found(InvalidRun, fmt.Sprintf("the engine was still cold when the measured phase began: %s (%.0f%% slower; bound %.0f%%): warm it longer (warmup_requests, %d now)",
				what, 100*(last/p50-1), 100*coldMargin, w.Requests))
		}
		return held(what)
	}
	last := make([]float64, len(w.LastTPOTMs))
	for i, v := range w.LastTPOTMs {
		last[i] = float64(v)
	}
	c := coldTest(last, measured)
	what := fmt.Sprintf("the warm-up's last %d requests decoded at %.2fms a token, the measured phase's %d at %.2fms (%s)", len(last), c.slow, len(measured), c.rest, c)
	if c.cold() {
		return found(InvalidRun, fmt.Sprintf("the engine was still cold when the measured phase began: %s: warm it longer (warmup_requests, %d now)", what, w.Requests))
	}
	return held(what)
}

// measuredTPOT are the measured phase's TPOTs.
func measuredTPOT(a *artifact.Benchmark) []float64 {
	var out []float64
	for _, r := range a.RequestTimings {
		if r.TPOTMs != nil {
			out = append(out, float64(*r.TPOTMs))
		}
	}
	return out
}

// coldness is the test of a start's TPOTs against the rest's: their geometric means, the
// slowdown's one-sided 99% lower bound, and the p-value that it exceeds coldMargin.
type coldness struct {
	slow, rest, low, p float64
	// why is set when the samples cannot be tested (fewer than two a side).
	why string
}

func (c coldness) cold() bool { return c.why == "" && c.p < coldAlpha }

// String is "198% slower, at least 150% at 99%; bound 25%".
func (c coldness) String() string {
	change := fmt.Sprintf("%+.0f%%", 100*(c.slow/c.rest-1))
	if c.why != "" {
		return fmt.Sprintf("%s; %s, so not judged beyond the %.0f%% bound", change, c.why, 100*coldMargin)
	}
	return fmt.Sprintf("%s, at least %+.0f%% at 99%%; cold beyond %.0f%%", change, 100*(c.low-1), 100*coldMargin)
}

// coldTest is Welch's t of the logs of slow against rest, one-sided, against the log of
// 1+coldMargin: the slowdown must exceed the bound beyond what the samples resolve.
func coldTest(slow, rest []float64) coldness {
	ls, lr := logs(slow), logs(rest)
	ms, ss := stats.MeanSD(ls)
	mr, sr := stats.MeanSD(lr)
	c := coldness{slow: math.Exp(ms), rest: math.Exp(mr), p: 1}
	if len(ls) < 2 || len(lr) < 2 {
		c.why = fmt.Sprintf("%d and %d requests resolve no spread", len(ls), len(lr))
		return c
	}
	vs, vr := ss*ss/float64(len(ls)), sr*sr/float64(len(lr))
	se := math.Sqrt(vs + vr)
	d := ms - mr
	if se == 0 {
		c.low = math.Exp(d)
		if d > math.Log1p(coldMargin) {
			c.p = 0
		}
		return c
	}
	df := (vs + vr) * (vs + vr) / (vs*vs/float64(len(ls)-1) + vr*vr/float64(len(lr)-1))
	c.low = math.Exp(d - stats.TQuantile(1-coldAlpha, df)*se)
	c.p = stats.TUpper((d-math.Log1p(coldMargin))/se, df)
	return c
}

// logs are the logs of the positive values.
func logs(values []float64) []float64 {
	var out []float64
	for _, v := range values {
		if v > 0 {
			out = append(out, math.Log(v))
		}
	}
	return out
}

// startOf splits the TPOT of the first block's successes by start into its first
// requests (at most a quarter) and the rest; none when there are fewer than 16.
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
