package artifact

import (
	"slices"
	"strings"
	"sync"
)

// Figure is the definition of one figure of a run, by the key budgets, gates, comparisons
// and reports name it: what it is a statistic of, which way it gets worse, how the run and
// each request yield it. Each is defined once, in this package's tables (the v1 metrics
// block's families and scalars, the extension's per-request families, the engine's
// counters); LookupFigure finds one by key.
type Figure struct {
	// Key names it: "ttft_p50_ms", "throughput_tok_s", "answer_tpot_p95_ms".
	Key string
	// Family is the per-request distribution it is a statistic of ("ttft") and Stat the
	// statistic ("p50", "mean", "samples"); both "" for a figure of the run as a whole.
	Family, Stat string
	// Ms is true for a time in milliseconds.
	Ms bool
	// Judged is true for a figure of the engine's speed, which a regression test judges,
	// and HigherIsWorse is its direction (a latency's, not a rate's). A count of tokens
	// measures the workload, not the engine, and is not judged.
	Judged, HigherIsWorse bool
	// Engine is true for a figure the engine's own counters give per run and per block
	// (speculative decoding): it has no value per request.
	Engine bool
	// Headline is true for the figures people read first: recorded block by block and kept
	// in a baseline's reference.
	Headline bool
	// Group names the group (a LoRA adapter, a priority class) whose requests a figure is
	// of ("tpot_p50_ms[lora-b]", a figure of the v1 metrics block over its requests); ""
	// for the whole run's.
	Group string

	of     func(*Benchmark) (*float64, int)
	values func(b *Benchmark, lo, hi int) []float64
}

// Label names the figure for people: "tpot_p50_ms" is "tpot p50", "tpot_p50_ms[lora-b]"
// "tpot p50 of lora-b".
func (f Figure) Label() string {
	switch {
	case f.Stat != "" && f.Group != "":
		return f.Family + " " + f.Stat + " of " + f.Group
	case f.Stat != "":
		return f.Family + " " + f.Stat
	}
	return f.Key
}

// Of is the figure's value in b: nil when the run has none. samples is the count of its
// family, -1 for a figure of the run as a whole.
func (f Figure) Of(b *Benchmark) (value *float64, samples int) {
	return f.of(b)
}

// Values are the per-request values the figure is a statistic of, over the successful
// requests of indices lo to hi-1 (math.MinInt and math.MaxInt for all), in request order;
// ok is false for a figure with no value per request (an engine counter, a scalar of the
// v1 block other than throughput_tok_s, whose per-request value is each request's own
// delivered rate, output tokens over its e2e seconds).
func (f Figure) Values(b *Benchmark, lo, hi int) (values []float64, ok bool) {
	if f.values == nil {
		return nil, false
	}
	return f.values(b, lo, hi), true
}

// LookupFigure is the definition of the figure named key; false for a key no run has. A
// key "figure[group]" is a figure of the v1 metrics block over one group's requests (a LoRA
// adapter's, a priority class's: Figure.Group).
func LookupFigure(key string) (Figure, bool) {
	if base, group, ok := strings.Cut(key, "["); ok {
		group, closed := strings.CutSuffix(group, "]")
		if !closed {
			return Figure{}, false
		}
		return groupFigure(key, base, group)
	}
	f, ok := figureIndex()[key]
	return f, ok
}

// groupFigure is the figure base of the v1 metrics block (a per-request family's) over the
// requests of group: its value from the group's own metrics block, its per-request values
// those of the requests that belong to it.
func groupFigure(key, base, group string) (Figure, bool) {
	f, ok := figureIndex()[base]
	if _, v1 := metricIndex[base]; !ok || !v1 || f.Family == "" || group == "" || strings.ContainsAny(group, "[]") {
		return Figure{}, false
	}
	all := f
	f.Key, f.Group, f.Headline = key, group, false
	f.of = func(b *Benchmark) (*float64, int) {
		if g, _ := b.group(group); g != nil {
			return all.of(&Benchmark{Metrics: g.Metrics})
		}
		return nil, 0
	}
	f.values = func(b *Benchmark, lo, hi int) []float64 {
		g, member := b.group(group)
		if g == nil {
			return nil
		}
		named := map[int]bool{}
		for _, s := range b.Extension.Timeline {
			named[s.RequestIndex] = member(s)
		}
		view := *b
		view.RequestTimings = nil
		for _, row := range b.RequestTimings {
			if named[row.RequestIndex] {
				view.RequestTimings = append(view.RequestTimings, row)
			}
		}
		return all.values(&view, lo, hi)
	}
	return f, true
}

// Figures are every figure's definition, sorted by key.
func Figures() []Figure {
	index := figureIndex()
	out := make([]Figure, 0, len(index))
	for _, f := range index {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b Figure) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// HeadlineFigures are the figures people read first, in the order reports show them
// (Figure.Headline).
func HeadlineFigures() []Figure {
	out := make([]Figure, len(headline))
	for i, key := range headline {
		out[i] = figureIndex()[key]
	}
	return out
}

// headline are the figures people read first (Figure.Headline).
var headline = []string{"ttft_p50_ms", "ttft_p95_ms", "tpot_p50_ms", "tpot_p95_ms", "e2e_p50_ms", "decode_tok_s_p50", "throughput_tok_s"}

// throughputKey is the one scalar of the v1 block a regression judges.
const throughputKey = "throughput_tok_s"

var figureIndex = sync.OnceValue(func() map[string]Figure {
	index := map[string]Figure{}
	for _, key := range metricKeys {
		ref := metricIndex[key]
		f := Figure{Key: key, of: func(b *Benchmark) (*float64, int) {
			v, n, _ := b.Metrics.Lookup(key)
			return v, n
		}}
		if ref.family >= 0 {
			fam := families[ref.family]
			f.Family, f.Stat = fam.prefix, statSamples
			if ref.stat >= 0 {
				f.Stat = stats[ref.stat].name
			}
			f.Ms = fam.unit == "_ms" || strings.HasSuffix(fam.prefix, "_ms")
			f.Judged, f.HigherIsWorse = fam.worse != counted, fam.worse == worseHigher
			f.values = func(b *Benchmark, lo, hi int) []float64 { return b.rowValues(fam.row, lo, hi) }
		}
		if key == throughputKey {
			f.Judged = true
			f.values = func(b *Benchmark, lo, hi int) []float64 { return b.rowValues(deliveredRate, lo, hi) }
		}
		index[key] = f
	}
	for _, fam := range extensionFamilies {
		for _, stat := range percentileStats {
			key := fam.prefix + "_" + stat + fam.unit
			index[key] = Figure{Key: key, Family: fam.prefix, Stat: stat, Ms: fam.unit == "_ms",
				Judged: fam.worse != counted, HigherIsWorse: fam.worse == worseHigher,
				of: func(b *Benchmark) (*float64, int) {
					p := fam.summary(b.Extension)
					if p == nil || p.Samples == 0 {
						return nil, 0
					}
					v := p.stat(stat)
					return &v, p.Samples
				},
				values: func(b *Benchmark, lo, hi int) []float64 { return b.spanValues(fam.span, lo, hi) },
			}
		}
	}
	for _, s := range specFigures {
		index[s.key] = Figure{Key: s.key, Judged: true, Engine: true, of: func(b *Benchmark) (*float64, int) {
			if b.Extension == nil || b.Extension.EngineMetrics.SpecDecode == nil {
				return nil, -1
			}
			if p := s.value(b.Extension.EngineMetrics.SpecDecode); p != nil {
				v := float64(*p)
				return &v, -1
			}
			return nil, -1
		}}
	}
	for _, f := range slices.Concat(sloFigures(), capacityFigures(), energyFigures()) {
		index[f.Key] = f
	}
	for _, key := range headline {
		f := index[key]
		f.Headline = true
		index[key] = f
	}
	return index
})

// deliveredRate is a request's own delivered rate, output tokens over its e2e seconds: at a
// fixed concurrency the run's throughput moves with it.
func deliveredRate(r *RequestTiming) (float64, bool) {
	if r.OutputTokens == nil || !(r.E2EMs > 0) {
		return 0, false
	}
	return float64(*r.OutputTokens) / (float64(r.E2EMs) / 1000), true
}

func (b *Benchmark) rowValues(get func(*RequestTiming) (float64, bool), lo, hi int) []float64 {
	var out []float64
	for i := range b.RequestTimings {
		r := &b.RequestTimings[i]
		if r.RequestIndex < lo || r.RequestIndex >= hi {
			continue
		}
		if v, ok := get(r); ok {
			out = append(out, v)
		}
	}
	return out
}

func (b *Benchmark) spanValues(get func(*RequestSpan) (float64, bool), lo, hi int) []float64 {
	if b.Extension == nil {
		return nil
	}
	var out []float64
	for k := range b.Extension.Timeline {
		s := &b.Extension.Timeline[k]
		if s.RequestIndex < lo || s.RequestIndex >= hi || s.Outcome != "ok" {
			continue
		}
		if v, ok := get(s); ok {
			out = append(out, v)
		}
	}
	return out
}

// extensionFamily is a per-request figure of the extension, defined once: its key prefix
// and unit, how a run summarizes it as Percentiles and how a request yields it from the
// timeline, which way it gets worse and how the report names it.
type extensionFamily struct {
	// group is the part of a report the figure belongs to: "reasoning", "engine phases".
	group        string
	prefix, unit string
	summary      func(*Extension) *Percentiles
	span         func(*RequestSpan) (float64, bool)
	worse        direction
	label        string
}

// direction is which way a family's figure gets worse: a latency as it grows, a rate as
// it shrinks; a count measures the workload, not the engine, and no regression judges it.
type direction int

const (
	counted direction = iota
	worseHigher
	worseLower
)

// summaryRow is how a report shows one per-request figure of the extension over a run.
type summaryRow struct {
	// Group is the part of a report it belongs to: "reasoning", "engine phases".
	Group string
	Label string
	// Ms is true for a time in milliseconds, false for a count of tokens.
	Ms bool
	*Percentiles
}

// Summaries are the run's summaries of the extension's per-request figures, in their
// definitions' order, each with its label; a figure the run has no summary of is left out.
func (x *Extension) Summaries() []summaryRow {
	var out []summaryRow
	for _, f := range extensionFamilies {
		if p := f.summary(x); p != nil {
			out = append(out, summaryRow{Group: f.group, Label: f.label, Ms: f.unit == "_ms", Percentiles: p})
		}
	}
	return out
}

func phasesOf(x *Extension, f func(*Phases) *Percentiles) *Percentiles {
	if x == nil || x.Phases == nil {
		return nil
	}
	return f(x.Phases)
}

func spanPhase(s *RequestSpan, f func(*EnginePhases) *Float) (float64, bool) {
	if s.EnginePhases == nil {
		return 0, false
	}
	return floatValue(f(s.EnginePhases))
}

func reasoningOf(x *Extension, f func(*Reasoning) *Percentiles) *Percentiles {
	if x == nil || x.Reasoning == nil {
		return nil
	}
	return f(x.Reasoning)
}

var extensionFamilies = []extensionFamily{
	{"reasoning", "reasoning_tokens", "", func(x *Extension) *Percentiles {
		return reasoningOf(x, func(r *Reasoning) *Percentiles { return r.ReasoningTokens })
	},
		func(s *RequestSpan) (float64, bool) { return intValue(s.ReasoningTokens) }, counted, "reasoning tokens"},
	{"reasoning", "answer_tokens", "", func(x *Extension) *Percentiles {
		return reasoningOf(x, func(r *Reasoning) *Percentiles { return r.AnswerTokens })
	},
		func(s *RequestSpan) (float64, bool) { return intValue(s.AnswerTokens) }, counted, "answer tokens"},
	{"reasoning", "reasoning_to_answer", "_ms", func(x *Extension) *Percentiles {
		return reasoningOf(x, func(r *Reasoning) *Percentiles { return r.ReasoningToAnswerMs })
	},
		func(s *RequestSpan) (float64, bool) { return floatValue(s.ReasoningToAnswerMs) }, worseHigher, "first reasoning to first answer"},
	{"reasoning", "answer_tpot", "_ms", func(x *Extension) *Percentiles {
		return reasoningOf(x, func(r *Reasoning) *Percentiles { return r.AnswerTPOTMs })
	},
		func(s *RequestSpan) (float64, bool) { return floatValue(s.AnswerTPOTMs) }, worseHigher, "answer tpot"},
	// The engine's own account of each request (EnginePhases), as it stated it.
	{"engine phases", "engine_queue", "_ms", func(x *Extension) *Percentiles { return phasesOf(x, func(p *Phases) *Percentiles { return p.QueueMs }) },
		func(s *RequestSpan) (float64, bool) {
			return spanPhase(s, func(p *EnginePhases) *Float { return p.QueueMs })
		}, worseHigher, "engine's queue"},
	{"engine phases", "engine_prefill", "_ms", func(x *Extension) *Percentiles {
		return phasesOf(x, func(p *Phases) *Percentiles { return p.PrefillMs })
	},
		func(s *RequestSpan) (float64, bool) {
			return spanPhase(s, func(p *EnginePhases) *Float { return p.PromptEvalMs })
		}, worseHigher, "engine's prefill"},
	{"engine phases", "engine_decode", "_ms", func(x *Extension) *Percentiles {
		return phasesOf(x, func(p *Phases) *Percentiles { return p.DecodeMs })
	},
		func(s *RequestSpan) (float64, bool) {
			return spanPhase(s, func(p *EnginePhases) *Float { return p.EvalMs })
		}, worseHigher, "engine's decode"},
	{"engine phases", "ttft_beyond_engine", "_ms", func(x *Extension) *Percentiles {
		return phasesOf(x, func(p *Phases) *Percentiles { return p.BeyondEngineMs })
	},
		func(s *RequestSpan) (float64, bool) {
			return spanPhase(s, func(p *EnginePhases) *Float { return p.BeyondEngineMs })
		}, worseHigher, "TTFT beyond the engine's"},
}

// specFigures are the figures of the engine's speculative decoding, from its counters, per
// run (EngineMetrics.SpecDecode) and per block (Blocks.Figures).
var specFigures = []struct {
	key   string
	value func(*SpecDecode) *Float
}{
	{"spec_accept_rate", func(d *SpecDecode) *Float { return d.AcceptanceRate }},
	{"spec_accept_length", func(d *SpecDecode) *Float { return d.MeanAcceptedLength }},
}

// percentileStats are the statistics of an extension family, as Percentiles holds them.
var percentileStats = []string{"p50", "p95", "p99", "max"}

func (p *Percentiles) stat(name string) float64 {
	switch name {
	case "p50":
		return float64(p.P50)
	case "p95":
		return float64(p.P95)
	case "p99":
		return float64(p.P99)
	}
	return float64(p.Max)
}
