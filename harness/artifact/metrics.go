package artifact

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Distribution is one metric family's summary over the performance-eligible requests, in
// the family's unit (ms for latency families, tokens/s for rates, tokens for counts). With
// Samples 0 every statistic is nil and encodes as null. StdDev is the sample (n-1) standard
// deviation, the CI is the normal approximation mean ± 1.96·sd/√n, and the percentiles are
// nearest rank.
type Distribution struct {
	Samples      int    // count of non-null values
	Mean         *Float // exact mean, rounded once
	StdDev       *Float // sample standard deviation; 0 for one sample
	MeanCI95Low  *Float // Mean - 1.96·StdDev/√Samples
	MeanCI95High *Float // Mean + 1.96·StdDev/√Samples
	Min          *Float
	P25          *Float
	P50          *Float
	P75          *Float
	P90          *Float
	P95          *Float
	P99          *Float // descriptive only below P99MinimumSamples
	Max          *Float
}

// Metrics is the v1 "metrics" block: 11 distribution families of 13 keys each plus 16
// scalars, 159 flat keys in JSON. The key of a statistic is prefix + "_" + stat + unit, as
// the reference artifact writes them, so the unit suffix follows the statistic ("ttft_p50_ms") except
// where the original put "_ms" in the prefix ("mean_inter_token_latency_ms_p50"); the count
// key is always prefix + "_samples". Family prefixes and units are listed beside each field.
//
// Decoding is tolerant: keys missing from older artifacts leave zero values and nil
// pointers, and unknown keys are ignored.
type Metrics struct {
	// families (prefix, unit suffix)
	CompletionTokens       Distribution // completion_tokens, "" (tokens)
	DecodeTokS             Distribution // decode_tok_s, "" (tokens/s)
	E2E                    Distribution // e2e, "_ms"
	EffectivePrefillTokS   Distribution // effective_prefill_tok_s, "" (tokens/s)
	Generation             Distribution // generation, "_ms"
	MeanInterTokenLatency  Distribution // mean_inter_token_latency_ms, "" (ms; legacy twin of TPOT)
	MeanTimePerOutputToken Distribution // mean_time_per_output_token, "_ms" (twin of TPOT)
	PromptTokensDist       Distribution // prompt_tokens, "" (tokens)
	TimeToFirstOutput      Distribution // time_to_first_output, "_ms"
	TPOT                   Distribution // tpot, "_ms"
	TTFT                   Distribution // ttft, "_ms"

	// scalars, all over the successful requests only

	// ContentChunks is content_chunks: the sum of streamed deltas with visible content.
	ContentChunks int
	// ContentChunksS is content_chunks_s: chunks per wall-clock second, set only when
	// OutputTokens is nil (no exact usage counts).
	ContentChunksS *Float
	// ControlledOutputExactAdherence is controlled_output_exact_adherence: rows that
	// produced exactly the requested words.
	ControlledOutputExactAdherence int
	// ControlledOutputExactAdherenceRate is controlled_output_exact_adherence_rate, in
	// [0, 1]; nil when no row's adherence was observable.
	ControlledOutputExactAdherenceRate *Float
	// ControlledOutputSamples is controlled_output_samples: rows carrying a score.
	ControlledOutputSamples int
	// ControlledOutputUnobservable is controlled_output_unobservable: scored rows whose
	// adherence could not be decided (e.g. a truncated capture).
	ControlledOutputUnobservable int
	// OutputTokenSources is output_token_sources: rows per output_token_source; encodes as
	// {} (never null) when empty.
	OutputTokenSources map[string]int
	// OutputTokens is output_tokens: the sum of usage completion tokens; nil when any row
	// lacked exact usage, 0 when there were no successes.
	OutputTokens *int
	// PrefixCacheHitAvg is prefix_cache_hit_avg: the mean cached/prompt token ratio, in
	// [0, 1], over the rows that report cached tokens; nil when none do.
	PrefixCacheHitAvg *Float
	// PromptTokenSamples is prompt_token_samples: rows with a prompt token count.
	PromptTokenSamples int
	// PromptTokens is prompt_tokens: the integer sum of prompt tokens (the distribution is
	// PromptTokensDist); nil when no row has a count.
	PromptTokens *int
	// ReasoningChunks is reasoning_chunks: the sum of streamed reasoning deltas.
	ReasoningChunks int
	// RequestCanaryPassed is request_canary_passed: rows whose canary passed.
	RequestCanaryPassed int
	// RequestCanarySamples is request_canary_samples: rows carrying a canary check.
	RequestCanarySamples int
	// ThroughputPerformanceEligible is throughput_performance_eligible: every request
	// succeeded with exact output tokens over a positive wall clock.
	ThroughputPerformanceEligible bool
	// ThroughputTokS is throughput_tok_s: output tokens per wall-clock second; nil unless
	// ThroughputPerformanceEligible.
	ThroughputTokS *Float
}

// MarshalJSON writes the 159 flat keys in sorted order.
func (m Metrics) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(8 << 10)
	buf.WriteByte('{')
	for i, key := range metricKeys {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('"')
		buf.WriteString(key)
		buf.WriteString(`":`)
		raw, err := metricIndex[key].marshal(&m)
		if err != nil {
			return nil, fmt.Errorf("metrics.%s: %w", key, err)
		}
		buf.Write(raw)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads the flat keys back. Missing keys keep their zero value, unknown keys
// are ignored and null reads as the zero value; a known key of the wrong JSON type is an
// error.
func (m *Metrics) UnmarshalJSON(data []byte) error {
	var flat map[string]json.RawMessage
	if err := json.Unmarshal(data, &flat); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	*m = Metrics{}
	for key, raw := range flat {
		ref, ok := metricIndex[key]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, ref.target(m)); err != nil {
			return fmt.Errorf("metrics.%s: %w", key, err)
		}
	}
	return nil
}

// Family returns the distribution with the given family prefix ("ttft", "tpot",
// "mean_inter_token_latency_ms", ...), or false for an unknown prefix.
func (m *Metrics) Family(name string) (*Distribution, bool) {
	for _, f := range families {
		if f.prefix == name {
			return f.dist(m), true
		}
	}
	return nil, false
}

// Lookup resolves any v1 metrics key to its numeric value: nil for null, counts and sums
// as float64, booleans as 1 or 0. For a distribution key ("tpot_p50_ms", "ttft_samples")
// samples is the family's sample count; for a scalar it is -1, unknown here.
// output_token_sources, the one non-numeric key, resolves with a nil value. ok is false for
// a key that is not in the v1 metrics block.
func (m *Metrics) Lookup(key string) (value *float64, samples int, ok bool) {
	ref, ok := metricIndex[key]
	if !ok {
		return nil, 0, false
	}
	samples = -1
	if ref.family >= 0 {
		samples = families[ref.family].dist(m).Samples
	}
	switch p := ref.target(m).(type) {
	case *int:
		v := float64(*p)
		return &v, samples, true
	case **int:
		if *p == nil {
			return nil, samples, true
		}
		v := float64(**p)
		return &v, samples, true
	case **Float:
		if *p == nil {
			return nil, samples, true
		}
		v := float64(**p)
		return &v, samples, true
	case *bool:
		v := 0.0
		if *p {
			v = 1
		}
		return &v, samples, true
	default: // output_token_sources
		return nil, samples, true
	}
}
