package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
)

// PhaseShift is how one of the engine's phases moved between the two runs of a verdict, by
// the engine's own account of each request (artifact.EnginePhases): Change is its mean per
// request, current less baseline, in milliseconds, Low..High its interval, and Moved is
// true when the interval excludes no change.
type PhaseShift struct {
	Phase             string
	Change, Low, High float64
	Moved             bool
}

// Attribution splits a latency verdict's change across the engine's phases.
type Attribution struct {
	// Source is the engine's account the phases come from ("vLLM metrics (include_metrics)",
	// "llama.cpp timings", "Ollama durations"); Total the change of the figure's own mean
	// per request, which the phases add up to.
	Source string
	Total  float64
	Phases []PhaseShift
	// Level is the confidence of each phase's interval: the verdict's 1−Alpha split over the
	// phases (Bonferroni), so that a phase that did not move is named with probability at
	// most Alpha; Units says what the intervals stand on.
	Level float64
	Units string
}

// phase is one part of a figure's per-request value, as the engine states it (stated is
// false where it did not).
type phase struct {
	name string
	of   func(r *artifact.RequestTiming, p *artifact.EnginePhases) (float64, bool)
}

func stated(f *artifact.Float) (float64, bool) {
	if f == nil {
		return 0, false
	}
	return float64(*f), true
}

// phasesOf are the parts a family's per-request value splits into: time to first token
// into the engine's queue, model load, prefill and what lies beyond the engine (network,
// framing, client, and what the engine does not state); time per output token into the
// engine's decode per token and what lies beyond it; whole is the family's own value, which
// they add up to. nil parts for a family with no split.
func phasesOf(family string) (whole phase, parts []phase) {
	queue := phase{"queue", func(_ *artifact.RequestTiming, p *artifact.EnginePhases) (float64, bool) { return stated(p.QueueMs) }}
	load := phase{"load", func(_ *artifact.RequestTiming, p *artifact.EnginePhases) (float64, bool) { return stated(p.LoadMs) }}
	prefill := phase{"prefill", func(_ *artifact.RequestTiming, p *artifact.EnginePhases) (float64, bool) {
		return stated(p.PromptEvalMs)
	}}
	decodePerToken := func(r *artifact.RequestTiming, p *artifact.EnginePhases) (float64, bool) {
		eval, ok := stated(p.EvalMs)
		if !ok || r.OutputTokens == nil || *r.OutputTokens < 2 {
			return 0, false
		}
		return eval / float64(*r.OutputTokens-1), true
	}
	switch family {
	case "ttft":
		ttft := phase{family, func(r *artifact.RequestTiming, _ *artifact.EnginePhases) (float64, bool) {
			return float64(r.TTFTMs), true
		}}
		return ttft, []phase{queue, load, prefill, {"beyond the engine", func(_ *artifact.RequestTiming, p *artifact.EnginePhases) (float64, bool) {
			return stated(p.BeyondEngineMs)
		}}}
	case "tpot", "mean_time_per_output_token", "mean_inter_token_latency_ms":
		tpot := phase{family, func(r *artifact.RequestTiming, _ *artifact.EnginePhases) (float64, bool) { return stated(r.TPOTMs) }}
		return tpot, []phase{{"decode", decodePerToken}, {"beyond the engine", func(r *artifact.RequestTiming, p *artifact.EnginePhases) (float64, bool) {
			d, ok := decodePerToken(r, p)
			t, has := tpot.of(r, p)
			if !ok || !has {
				return 0, false
			}
			return t - d, true
		}}}
	}
	return phase{}, nil
}

// attribute splits the change of the figure's family between baseline and current across
// the engine's phases; nil when the family has no split or the runs carry too few of the
// engine's accounts. Interleaved runs are compared block against paired block (Student's t
// over the pairs' differences, which a drift shared by a pair cancels from); other runs
// request against request (Welch's t). As the verdict does, each phase's interval also
// counts what two sides do not share at cv of its baseline mean (gate_restart_cv for an
// interleaved run, gate_run_cv for a stored one), a spread taken as known. Each interval is
// at 1−alpha/k for k phases (Bonferroni), so the chance that any phase that did not move is
// named is at most alpha.
func attribute(family string, baseline, current *artifact.Benchmark, alpha, cv float64) *Attribution {
	total, phases := phasesOf(family)
	if phases == nil || baseline == nil || current == nil {
		return nil
	}
	base, cur := joinPhases(baseline), joinPhases(current)
	if len(base) < minRows || len(cur) < minRows {
		return nil
	}
	a := &Attribution{Source: base[0].phases.Source}
	var kept []phase
	for _, p := range phases {
		if len(values(base, p, 0, math.MaxInt)) >= minRows && len(values(cur, p, 0, math.MaxInt)) >= minRows {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	a.Level = 1 - alpha/float64(len(kept))
	pairs := pairedBlocks(baseline, current)
	if pairs > 0 {
		a.Units = fmt.Sprintf("%d interleaved pairs", pairs)
	} else {
		a.Units = fmt.Sprintf("%d vs %d requests", len(base), len(cur))
	}
	per := 0
	if pairs > 0 {
		per = baseline.Extension.Blocks.RequestsPerBlock
	}
	a.Total, _, _ = shift(base, cur, total, pairs, per, a.Level, cv)
	for _, p := range kept {
		d, lo, hi := shift(base, cur, p, pairs, per, a.Level, cv)
		a.Phases = append(a.Phases, PhaseShift{Phase: p.name, Change: d, Low: lo, High: hi, Moved: lo > 0 || hi < 0})
	}
	return a
}

// joined is one successful request's row and the engine's account of it.
type joined struct {
	row    *artifact.RequestTiming
	phases *artifact.EnginePhases
}

// joinPhases joins a run's rows to the engine's accounts in its timeline, by request index.
func joinPhases(b *artifact.Benchmark) []joined {
	if b.Extension == nil {
		return nil
	}
	byIndex := map[int]*artifact.EnginePhases{}
	for i := range b.Extension.Timeline {
		if s := &b.Extension.Timeline[i]; s.EnginePhases != nil {
			byIndex[s.RequestIndex] = s.EnginePhases
		}
	}
	var out []joined
	for i := range b.RequestTimings {
		r := &b.RequestTimings[i]
		if p, ok := byIndex[r.RequestIndex]; ok {
			out = append(out, joined{r, p})
		}
	}
	return out
}

// values are phase p of the joined requests of indices lo to hi-1.
func values(js []joined, p phase, lo, hi int) []float64 {
	var out []float64
	for _, j := range js {
		if j.row.RequestIndex < lo || j.row.RequestIndex >= hi {
			continue
		}
		if v, ok := p.of(j.row, j.phases); ok {
			out = append(out, v)
		}
	}
	return out
}

// pairedBlocks is the number of interleaved block pairs of the two runs; 0 when they are
// not one interleaved run of two or more blocks a side.
func pairedBlocks(baseline, current *artifact.Benchmark) int {
	if !interleavedPair(baseline, current) {
		return 0
	}
	bb, cb := baseline.Extension.Blocks, current.Extension.Blocks
	if bb == nil || cb == nil || bb.RequestsPerBlock != cb.RequestsPerBlock || bb.RequestsPerBlock == 0 {
		return 0
	}
	if n := min(len(bb.Blocks), len(cb.Blocks)); n >= 2 {
		return n
	}
	return 0
}

// shift is the change of phase p's mean per request, current less baseline, and its
// two-sided interval at level: over pairs of blocks of per requests when pairs > 0, else
// over the requests; what the sides do not share is counted at cv of the baseline's mean.
func shift(base, cur []joined, p phase, pairs, per int, level, cv float64) (d, lo, hi float64) {
	b, c := values(base, p, 0, math.MaxInt), values(cur, p, 0, math.MaxInt)
	mb, sb := stats.MeanSD(b)
	mc, sc := stats.MeanSD(c)
	d = mc - mb
	// The measured variance of d and its degrees of freedom.
	vb, vc := sb*sb/float64(len(b)), sc*sc/float64(len(c))
	measured, df := vb+vc, welch([2]float64{vb, float64(len(b) - 1)}, [2]float64{vc, float64(len(c) - 1)})
	if pairs > 0 {
		var diffs []float64
		for j := range pairs {
			b, c := values(base, p, j*per, (j+1)*per), values(cur, p, j*per, (j+1)*per)
			if len(b) > 0 && len(c) > 0 {
				diffs = append(diffs, stats.FMean(c)-stats.FMean(b))
			}
		}
		if len(diffs) >= 2 {
			m, sd := stats.MeanSD(diffs)
			d, measured, df = m, sd*sd/float64(len(diffs)), float64(len(diffs)-1)
		}
	}
	// The known part widens the interval but lends it no degrees of freedom: Satterthwaite's
	// would, and so narrow the interval in the far tail a Bonferroni level reaches (by
	// simulation it named an unmoved phase three times as often as its level allows).
	known := 2 * math.Pow(cv*mb, 2)
	half := stats.TQuantile(1-(1-level)/2, df) * math.Sqrt(measured+known)
	return d, d - half, d + half
}

// Named names the phases that moved: "queue and prefill moved"; "" when none did (or for
// no attribution).
func (a *Attribution) Named() string {
	if a == nil {
		return ""
	}
	var moved []string
	for _, p := range a.Phases {
		if p.Moved {
			moved = append(moved, p.Phase)
		}
	}
	if len(moved) == 0 {
		return ""
	}
	return strings.Join(moved, " and ") + " moved"
}

// Text is the attribution in words: "of the mean ttft's +41.2 ms: queue +38.1 ms
// [30.2..46.0] moved (92%), prefill +2.0 ms [-3.1..7.1], ...".
func (a *Attribution) Text(family string) string {
	if a == nil {
		return ""
	}
	var parts []string
	for _, p := range a.Phases {
		s := fmt.Sprintf("%s %+.2f ms [%.2f..%.2f]", p.Phase, p.Change, p.Low, p.High)
		if p.Moved {
			share := ""
			if a.Total != 0 {
				share = fmt.Sprintf(", %.0f%% of the change", 100*p.Change/a.Total)
			}
			s += " moved" + share
		}
		parts = append(parts, s)
	}
	named := a.Named()
	if named == "" {
		named = "no phase moved beyond its interval"
	}
	return fmt.Sprintf("%s; the mean %s per request changed %+.2f ms: %s (the engine's own account, %s; %.1f%% intervals over %s, Bonferroni over %d phases)",
		named, family, a.Total, strings.Join(parts, ", "), a.Source, 100*a.Level, a.Units, len(a.Phases))
}

// Composition says what a run's latency figure is made of by the engine's own account of
// each request: "of the requests' mean ttft, 1843.20 ms: queue 1200.10 ms, prefill 600.30 ms,
// beyond the engine 42.80 ms (the engine's own account, vLLM metrics (include_metrics), 40
// requests)"; "" for a figure with no split or a run without the engine's accounts.
func Composition(metric string, a *artifact.Benchmark) string {
	f, ok := artifact.LookupFigure(metric)
	total, phases := phasesOf(f.Family)
	if !ok || phases == nil || a == nil || f.Group != "" {
		return ""
	}
	js := joinPhases(a)
	if len(js) == 0 {
		return ""
	}
	var parts []string
	for _, p := range phases {
		if v := values(js, p, 0, math.MaxInt); len(v) > 0 {
			parts = append(parts, fmt.Sprintf("%s %.2f ms", p.name, stats.FMean(v)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("of the requests' mean %s, %.2f ms: %s (the engine's own account, %s, %d requests)",
		f.Family, stats.FMean(values(js, total, 0, math.MaxInt)), strings.Join(parts, ", "), js[0].phases.Source, len(js))
}
