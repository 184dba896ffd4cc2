package artifact

import (
	"encoding/json"
	"sort"
	"strconv"
)

// family is one distribution family of the metrics block, defined once: its key prefix,
// the unit suffix written after each statistic, where it lives in Metrics, which way it
// gets worse and how a request_timings row yields it. This table is the single source of
// the family key names for encoding, decoding, lookup, budgets and regression tests.
type family struct {
	prefix, unit string
	dist         func(*Metrics) *Distribution
	worse        direction
	row          func(*RequestTiming) (float64, bool)
}

var families = [...]family{
	{"completion_tokens", "", func(m *Metrics) *Distribution { return &m.CompletionTokens }, counted,
		func(r *RequestTiming) (float64, bool) { return intValue(r.OutputTokens) }},
	{"decode_tok_s", "", func(m *Metrics) *Distribution { return &m.DecodeTokS }, worseLower,
		func(r *RequestTiming) (float64, bool) { return floatValue(r.DecodeTokS) }},
	{"e2e", "_ms", func(m *Metrics) *Distribution { return &m.E2E }, worseHigher,
		func(r *RequestTiming) (float64, bool) { return float64(r.E2EMs), true }},
	{"effective_prefill_tok_s", "", func(m *Metrics) *Distribution { return &m.EffectivePrefillTokS }, worseLower,
		func(r *RequestTiming) (float64, bool) { return floatValue(r.EffectivePrefillTokS) }},
	{"generation", "_ms", func(m *Metrics) *Distribution { return &m.Generation }, worseHigher,
		func(r *RequestTiming) (float64, bool) { return float64(r.GenerationMs), true }},
	{"mean_inter_token_latency_ms", "", func(m *Metrics) *Distribution { return &m.MeanInterTokenLatency }, worseHigher, tpotOfRow},
	{"mean_time_per_output_token", "_ms", func(m *Metrics) *Distribution { return &m.MeanTimePerOutputToken }, worseHigher, tpotOfRow},
	{"prompt_tokens", "", func(m *Metrics) *Distribution { return &m.PromptTokensDist }, counted,
		func(r *RequestTiming) (float64, bool) { return intValue(r.PromptTokens) }},
	{"time_to_first_output", "_ms", func(m *Metrics) *Distribution { return &m.TimeToFirstOutput }, worseHigher,
		func(r *RequestTiming) (float64, bool) { return float64(r.TimeToFirstOutputMs), true }},
	{"tpot", "_ms", func(m *Metrics) *Distribution { return &m.TPOT }, worseHigher, tpotOfRow},
	{"ttft", "_ms", func(m *Metrics) *Distribution { return &m.TTFT }, worseHigher,
		func(r *RequestTiming) (float64, bool) { return float64(r.TTFTMs), true }},
}

// tpotOfRow is a row's time per output token, the figure of the three TPOT twins: a row
// without tpot_ms (artifacts older than 2026-09-04) has it under its older names.
func tpotOfRow(r *RequestTiming) (float64, bool) {
	for _, f := range []*Float{r.TPOTMs, r.MeanTimePerOutputTokenMs, r.MeanInterTokenLatencyMs} {
		if f != nil {
			return float64(*f), true
		}
	}
	return 0, false
}

func intValue(p *int) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

func floatValue(p *Float) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

// statSamples is the statistic name of a family's count key, which never takes the unit.
const statSamples = "samples"

// stats are the twelve nullable statistics of a Distribution, by key name.
var stats = [...]struct {
	name  string
	field func(*Distribution) **Float
}{
	{"mean", func(d *Distribution) **Float { return &d.Mean }},
	{"stddev", func(d *Distribution) **Float { return &d.StdDev }},
	{"mean_ci95_low", func(d *Distribution) **Float { return &d.MeanCI95Low }},
	{"mean_ci95_high", func(d *Distribution) **Float { return &d.MeanCI95High }},
	{"min", func(d *Distribution) **Float { return &d.Min }},
	{"p25", func(d *Distribution) **Float { return &d.P25 }},
	{"p50", func(d *Distribution) **Float { return &d.P50 }},
	{"p75", func(d *Distribution) **Float { return &d.P75 }},
	{"p90", func(d *Distribution) **Float { return &d.P90 }},
	{"p95", func(d *Distribution) **Float { return &d.P95 }},
	{"p99", func(d *Distribution) **Float { return &d.P99 }},
	{"max", func(d *Distribution) **Float { return &d.Max }},
}

// scalars are the 16 scalar metrics; field returns a pointer to the Metrics field (*int,
// **int, **Float, *bool or *map[string]int).
var scalars = [...]struct {
	key   string
	field func(*Metrics) any
}{
	{"content_chunks", func(m *Metrics) any { return &m.ContentChunks }},
	{"content_chunks_s", func(m *Metrics) any { return &m.ContentChunksS }},
	{"controlled_output_exact_adherence", func(m *Metrics) any { return &m.ControlledOutputExactAdherence }},
	{"controlled_output_exact_adherence_rate", func(m *Metrics) any { return &m.ControlledOutputExactAdherenceRate }},
	{"controlled_output_samples", func(m *Metrics) any { return &m.ControlledOutputSamples }},
	{"controlled_output_unobservable", func(m *Metrics) any { return &m.ControlledOutputUnobservable }},
	{"output_token_sources", func(m *Metrics) any { return &m.OutputTokenSources }},
	{"output_tokens", func(m *Metrics) any { return &m.OutputTokens }},
	{"prefix_cache_hit_avg", func(m *Metrics) any { return &m.PrefixCacheHitAvg }},
	{"prompt_token_samples", func(m *Metrics) any { return &m.PromptTokenSamples }},
	{"prompt_tokens", func(m *Metrics) any { return &m.PromptTokens }},
	{"reasoning_chunks", func(m *Metrics) any { return &m.ReasoningChunks }},
	{"request_canary_passed", func(m *Metrics) any { return &m.RequestCanaryPassed }},
	{"request_canary_samples", func(m *Metrics) any { return &m.RequestCanarySamples }},
	{"throughput_performance_eligible", func(m *Metrics) any { return &m.ThroughputPerformanceEligible }},
	{"throughput_tok_s", func(m *Metrics) any { return &m.ThroughputTokS }},
}

// keyRef locates one metrics key: a family statistic (family >= 0; stat -1 for samples)
// or a scalar (family -1).
type keyRef struct {
	family, stat, scalar int
}

var (
	metricKeys  []string          // all 159 keys, sorted
	metricIndex map[string]keyRef // key -> location
)

func init() {
	metricIndex = make(map[string]keyRef, len(families)*(len(stats)+1)+len(scalars))
	add := func(key string, ref keyRef) {
		metricIndex[key] = ref // uniqueness is checked by TestMetricKeys
		metricKeys = append(metricKeys, key)
	}
	for fi, f := range families {
		add(f.prefix+"_"+statSamples, keyRef{family: fi, stat: -1, scalar: -1})
		for si, s := range stats {
			add(f.prefix+"_"+s.name+f.unit, keyRef{family: fi, stat: si, scalar: -1})
		}
	}
	for i, s := range scalars {
		add(s.key, keyRef{family: -1, stat: -1, scalar: i})
	}
	sort.Strings(metricKeys)
}

// target returns a pointer to the field holding the key's value in m.
func (r keyRef) target(m *Metrics) any {
	switch {
	case r.family < 0:
		return scalars[r.scalar].field(m)
	case r.stat < 0:
		return &families[r.family].dist(m).Samples
	default:
		return stats[r.stat].field(families[r.family].dist(m))
	}
}

// marshal encodes the key's value in m.
func (r keyRef) marshal(m *Metrics) ([]byte, error) {
	switch p := r.target(m).(type) {
	case *int:
		return strconv.AppendInt(nil, int64(*p), 10), nil
	case **Float:
		if *p == nil {
			return []byte("null"), nil
		}
		return (*p).MarshalJSON()
	case *map[string]int:
		if *p == nil {
			return []byte("{}"), nil // output_token_sources is {} when empty, never null
		}
		return json.Marshal(*p)
	default:
		return json.Marshal(p)
	}
}
