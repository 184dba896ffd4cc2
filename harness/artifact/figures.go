package artifact

import (
	"slices"
	"strings"
)

// extensionFamily is a per-request figure of the extension, defined once: its key prefix
// and unit (a budget names it beside the v1 metrics block), how a run summarizes it as
// Percentiles and how a request yields it from the timeline, which way it gets worse (the
// regression test's direction) and how the report names it.
type extensionFamily struct {
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

// The v1 metrics block's families by direction (the extension's say theirs in
// extensionFamilies).
var (
	latencyFamilies = []string{"ttft", "time_to_first_output", "e2e", "generation", "tpot", "mean_time_per_output_token", "mean_inter_token_latency_ms"}
	rateFamilies    = []string{"decode_tok_s", "effective_prefill_tok_s"}
)

// Worse says which way a figure family (a v1 metrics family's or an extension family's)
// gets worse: higherIsWorse for a latency, not for a rate; judged is false for a token
// count, which measures the workload, not the engine, and for an unknown family.
func Worse(family string) (higherIsWorse, judged bool) {
	switch {
	case slices.Contains(latencyFamilies, family):
		return true, true
	case slices.Contains(rateFamilies, family):
		return false, true
	}
	for _, f := range extensionFamilies {
		if f.prefix == family {
			return f.worse == worseHigher, f.worse != counted
		}
	}
	return false, false
}

// summaryRow is how a report shows one per-request figure of the extension over a run.
type summaryRow struct {
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
			out = append(out, summaryRow{Label: f.label, Ms: f.unit == "_ms", Percentiles: p})
		}
	}
	return out
}

func reasoningOf(x *Extension, f func(*Reasoning) *Percentiles) *Percentiles {
	if x == nil || x.Reasoning == nil {
		return nil
	}
	return f(x.Reasoning)
}

func spanInt(p *int) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

func spanFloat(p *Float) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

var extensionFamilies = []extensionFamily{
	{"reasoning_tokens", "", func(x *Extension) *Percentiles {
		return reasoningOf(x, func(r *Reasoning) *Percentiles { return r.ReasoningTokens })
	},
		func(s *RequestSpan) (float64, bool) { return spanInt(s.ReasoningTokens) }, counted, "reasoning tokens"},
	{"answer_tokens", "", func(x *Extension) *Percentiles {
		return reasoningOf(x, func(r *Reasoning) *Percentiles { return r.AnswerTokens })
	},
		func(s *RequestSpan) (float64, bool) { return spanInt(s.AnswerTokens) }, counted, "answer tokens"},
	{"reasoning_to_answer", "_ms", func(x *Extension) *Percentiles {
		return reasoningOf(x, func(r *Reasoning) *Percentiles { return r.ReasoningToAnswerMs })
	},
		func(s *RequestSpan) (float64, bool) { return spanFloat(s.ReasoningToAnswerMs) }, worseHigher, "first reasoning to first answer"},
	{"answer_tpot", "_ms", func(x *Extension) *Percentiles {
		return reasoningOf(x, func(r *Reasoning) *Percentiles { return r.AnswerTPOTMs })
	},
		func(s *RequestSpan) (float64, bool) { return spanFloat(s.AnswerTPOTMs) }, worseHigher, "answer tpot"},
}

// SpecFigure is a figure of the engine's speculative decoding, of a run or of a block.
type SpecFigure struct {
	Key   string
	value func(*SpecDecode) *Float
}

// Of is the figure in d; nil when d is nil or lacks it.
func (f SpecFigure) Of(d *SpecDecode) *Float {
	if d == nil {
		return nil
	}
	return f.value(d)
}

// SpecFigures are the figures of the engine's speculative decoding a budget or a gate can
// name: per run (Figure) and per block (Blocks.Figures), from the engine's counters.
func SpecFigures() []SpecFigure {
	return []SpecFigure{
		{"spec_accept_rate", func(d *SpecDecode) *Float { return d.AcceptanceRate }},
		{"spec_accept_length", func(d *SpecDecode) *Float { return d.MeanAcceptedLength }},
	}
}

// extensionScalar is how a run-level figure of the extension is read.
func extensionScalar(key string) (func(*Extension) *Float, bool) {
	for _, f := range SpecFigures() {
		if f.Key == key {
			return func(x *Extension) *Float {
				if x == nil {
					return nil
				}
				return f.Of(x.EngineMetrics.SpecDecode)
			}, true
		}
	}
	return nil, false
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

// parseExtensionKey splits an extension figure's key, e.g. "answer_tpot_p50_ms".
func parseExtensionKey(key string) (extensionFamily, string, bool) {
	for _, f := range extensionFamilies {
		rest, ok := strings.CutPrefix(key, f.prefix+"_")
		if !ok {
			continue
		}
		stat, ok := strings.CutSuffix(rest, f.unit)
		if ok && slices.Contains(percentileStats, stat) {
			return f, stat, true
		}
	}
	return extensionFamily{}, "", false
}

// Figure looks a figure up by key: a key of the v1 metrics block (Metrics.Lookup), or one
// of the extension's figures (ExtensionFigureKeys: the answer's own time per output token,
// reasoning and answer tokens, the time from reasoning to answer, per request; the
// engine's speculative acceptance rate and mean accepted length, per run). samples is the
// family's count, -1 for a scalar; value is nil when the run has no value for it.
func (b *Benchmark) Figure(key string) (value *float64, samples int, ok bool) {
	if v, n, ok := b.Metrics.Lookup(key); ok {
		return v, n, ok
	}
	if get, ok := extensionScalar(key); ok {
		if p := get(b.Extension); p != nil {
			v := float64(*p)
			return &v, -1, true
		}
		return nil, -1, true
	}
	f, stat, ok := parseExtensionKey(key)
	if !ok {
		return nil, 0, false
	}
	p := f.summary(b.Extension)
	if p == nil || p.Samples == 0 {
		return nil, 0, true
	}
	v := p.stat(stat)
	return &v, p.Samples, true
}

// KnownFigure reports whether Figure knows key.
func KnownFigure(key string) bool {
	if _, _, ok := new(Metrics).Lookup(key); ok {
		return true
	}
	if _, ok := extensionScalar(key); ok {
		return true
	}
	_, _, ok := parseExtensionKey(key)
	return ok
}

// ParseFigureKey splits a figure's key into its family and statistic, for the v1 metrics
// block's families (ParseMetricKey) and the extension's.
func ParseFigureKey(key string) (family, stat string, ok bool) {
	if family, stat, ok = ParseMetricKey(key); ok {
		return family, stat, ok
	}
	f, stat, ok := parseExtensionKey(key)
	return f.prefix, stat, ok
}

// ExtensionFigureKeys lists the extension's figure keys, sorted.
func ExtensionFigureKeys() []string {
	var out []string
	for _, f := range SpecFigures() {
		out = append(out, f.Key)
	}
	for _, f := range extensionFamilies {
		for _, s := range percentileStats {
			out = append(out, f.prefix+"_"+s+f.unit)
		}
	}
	slices.Sort(out)
	return out
}

// SpanValues are an extension family's per-request values, from the timeline spans of the
// successes among request indices lo to hi-1; ok is false for a family that is not the
// extension's.
func (b *Benchmark) SpanValues(family string, lo, hi int) (values []float64, ok bool) {
	i := slices.IndexFunc(extensionFamilies, func(f extensionFamily) bool { return f.prefix == family })
	if i < 0 {
		return nil, false
	}
	if b.Extension == nil {
		return nil, true
	}
	for k := range b.Extension.Timeline {
		s := &b.Extension.Timeline[k]
		if s.RequestIndex < lo || s.RequestIndex >= hi || s.Outcome != "ok" {
			continue
		}
		if v, ok := extensionFamilies[i].span(s); ok {
			values = append(values, v)
		}
	}
	return values, true
}
