package artifact

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestMetricKeys(t *testing.T) {
	keys := slices.Clone(metricKeys)
	if len(keys) != 159 || len(metricIndex) != 159 {
		t.Fatalf("%d keys, %d indexed; want 159 (11 families × 13 + 16 scalars)", len(keys), len(metricIndex))
	}
	if !sort.StringsAreSorted(keys) {
		t.Error("metricKeys is not sorted")
	}
	// The reference carries exactly these keys.
	var ref struct{ Metrics map[string]json.RawMessage }
	if err := json.Unmarshal(readReference(t), &ref); err != nil {
		t.Fatal(err)
	}
	refKeys := make([]string, 0, len(ref.Metrics))
	for k := range ref.Metrics {
		refKeys = append(refKeys, k)
	}
	slices.Sort(refKeys)
	if !slices.Equal(keys, refKeys) {
		t.Errorf("metricKeys differs from the reference's metrics keys:\n got %v\nwant %v", keys, refKeys)
	}
}

func TestLookupFigureSplitsKeys(t *testing.T) {
	tests := []struct{ key, family, stat string }{
		{"ttft_p50_ms", "ttft", "p50"},
		{"ttft_samples", "ttft", "samples"},
		{"e2e_mean_ci95_high_ms", "e2e", "mean_ci95_high"},
		{"mean_inter_token_latency_ms_max", "mean_inter_token_latency_ms", "max"},
		{"mean_inter_token_latency_ms_samples", "mean_inter_token_latency_ms", "samples"},
		{"mean_time_per_output_token_stddev_ms", "mean_time_per_output_token", "stddev"},
		{"decode_tok_s_p50", "decode_tok_s", "p50"},
		{"prompt_tokens_p50", "prompt_tokens", "p50"},
		{"completion_tokens_samples", "completion_tokens", "samples"},
		{"time_to_first_output_mean_ci95_low_ms", "time_to_first_output", "mean_ci95_low"},
		{"answer_tpot_p95_ms", "answer_tpot", "p95"},
		{"reasoning_tokens_max", "reasoning_tokens", "max"},
		{"prompt_tokens", "", ""},
		{"throughput_tok_s", "", ""},
		{"spec_accept_rate", "", ""},
	}
	for _, tt := range tests {
		f, ok := LookupFigure(tt.key)
		if !ok || f.Key != tt.key || f.Family != tt.family || f.Stat != tt.stat {
			t.Errorf("LookupFigure(%q) = %+v, %v; want family %q, stat %q", tt.key, f, ok, tt.family, tt.stat)
		}
	}
	for _, key := range []string{"ttft_p50", "mean_inter_token_latency_p50_ms", "tpot_ms_p50", "", "ttft", "answer_tpot_p50", "answer_tpot_mean_ms"} {
		if f, ok := LookupFigure(key); ok {
			t.Errorf("LookupFigure(%q) = %+v, true; want false", key, f)
		}
	}
}

// Each figure says which way it gets worse: a latency as it grows, a rate as it shrinks;
// a count of tokens is not judged.
func TestFiguresSayWhichWayIsWorse(t *testing.T) {
	for key, want := range map[string][2]bool{ // judged, higher is worse
		"ttft_p50_ms": {true, true}, "tpot_mean_ms": {true, true}, "mean_inter_token_latency_ms_p95": {true, true},
		"decode_tok_s_p50": {true, false}, "effective_prefill_tok_s_mean": {true, false}, "throughput_tok_s": {true, false},
		"answer_tpot_p50_ms": {true, true}, "reasoning_to_answer_p95_ms": {true, true}, "spec_accept_rate": {true, false},
		"prompt_tokens_p50": {false, false}, "completion_tokens_mean": {false, false}, "reasoning_tokens_p50": {false, false},
		"content_chunks": {false, false},
	} {
		f, _ := LookupFigure(key)
		if [2]bool{f.Judged, f.HigherIsWorse} != want {
			t.Errorf("%s: judged %v, higher is worse %v; want %v", key, f.Judged, f.HigherIsWorse, want)
		}
	}
	var keys []string
	for _, f := range HeadlineFigures() {
		if !f.Headline || !f.Judged {
			t.Errorf("headline %s: %+v", f.Key, f)
		}
		keys = append(keys, f.Key)
	}
	if len(keys) != 7 || keys[0] != "ttft_p50_ms" {
		t.Errorf("headline figures %v", keys)
	}
	all := Figures()
	if len(all) != 159+8*4+2+2+2+3 || !slices.IsSortedFunc(all, func(a, b Figure) int { return strings.Compare(a.Key, b.Key) }) {
		t.Errorf("%d figures, want 200 sorted", len(all))
	}
}

// A figure's per-request values are those its statistic is computed from: a v1 family's
// from the rows, an extension family's from the timeline's successes, throughput's each
// request's delivered rate; an engine counter has none.
func TestFigureValuesAreWhatTheStatisticIsOf(t *testing.T) {
	tokens := 10
	b := &Benchmark{RequestTimings: []RequestTiming{
		{RequestIndex: 0, TTFTMs: 5, E2EMs: 1000, OutputTokens: &tokens},
		{RequestIndex: 2, TTFTMs: 7, E2EMs: 500, OutputTokens: &tokens, TPOTMs: F(2)},
		{RequestIndex: 3, TTFTMs: 9, MeanInterTokenLatencyMs: F(6)}, // an older row: no tpot_ms, no usage
	}, Extension: &Extension{Timeline: []RequestSpan{
		{RequestIndex: 0, Outcome: "ok", AnswerTPOTMs: F(3)},
		{RequestIndex: 1, Outcome: "failed", AnswerTPOTMs: F(99)},
		{RequestIndex: 2, Outcome: "ok", AnswerTPOTMs: F(4)},
	}}}
	for key, want := range map[string][]float64{
		"ttft_p50_ms": {5, 7, 9}, "throughput_tok_s": {10, 20}, "answer_tpot_p95_ms": {3, 4},
		"tpot_p50_ms": {2, 6}, "mean_time_per_output_token_p95_ms": {2, 6}, "completion_tokens_mean": {10, 10},
	} {
		f, _ := LookupFigure(key)
		got, ok := f.Values(b, math.MinInt, math.MaxInt)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("%s values = %v, %v; want %v", key, got, ok, want)
		}
	}
	f, _ := LookupFigure("ttft_p50_ms")
	if got, _ := f.Values(b, 1, 3); !slices.Equal(got, []float64{7}) {
		t.Errorf("ttft values of requests 1..2 = %v, want [7]", got)
	}
	for _, key := range []string{"spec_accept_rate", "content_chunks"} {
		if f, _ := LookupFigure(key); func() bool { _, ok := f.Values(b, 0, 3); return ok }() {
			t.Errorf("%s has per-request values", key)
		}
	}
}

func referenceMetrics(t *testing.T) *Metrics {
	t.Helper()
	b, err := Decode(readReference(t))
	if err != nil {
		t.Fatal(err)
	}
	return &b.Metrics
}

func TestLookup(t *testing.T) {
	m := referenceMetrics(t)
	tests := []struct {
		key     string
		value   float64 // NaN-free: the reference has these
		samples int
	}{
		{"tpot_p50_ms", 5.980415626254398, 6},
		{"tpot_max_ms", 5.997075000777841, 6},
		{"decode_tok_s_p95", 167.30757675903405, 6},
		{"decode_tok_s_stddev", 0.24026936380015076, 6},
		{"completion_tokens_mean", 33, 6},
		{"ttft_samples", 6, 6},
		{"throughput_tok_s", 2.728494780999433, -1},
		{"output_tokens", 198, -1},
		{"prompt_tokens", 364633, -1},
		{"content_chunks", 57, -1},
		{"controlled_output_exact_adherence_rate", 1, -1},
		{"throughput_performance_eligible", 1, -1},
	}
	for _, tt := range tests {
		v, samples, ok := m.Lookup(tt.key)
		if !ok || v == nil || *v != tt.value || samples != tt.samples {
			got := "nil"
			if v != nil {
				got = strings.TrimSpace(string(mustJSON(t, *v)))
			}
			t.Errorf("Lookup(%q) = %s, %d, %v; want %v, %d, true", tt.key, got, samples, ok, tt.value, tt.samples)
		}
	}
	for _, key := range []string{"content_chunks_s", "prefix_cache_hit_avg", "output_token_sources"} {
		if v, samples, ok := m.Lookup(key); !ok || v != nil || samples != -1 {
			t.Errorf("Lookup(%q) = %v, %d, %v; want nil, -1, true", key, v, samples, ok)
		}
	}
	if _, _, ok := m.Lookup("ttft_p50"); ok {
		t.Error("Lookup of an unknown key succeeded")
	}
	// Every key resolves.
	for _, key := range metricKeys {
		if _, _, ok := m.Lookup(key); !ok {
			t.Errorf("Lookup(%q) failed", key)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFamily(t *testing.T) {
	m := referenceMetrics(t)
	d, ok := m.Family("tpot")
	if !ok || d != &m.TPOT || d.Samples != 6 || d.P50 == nil || *d.P50 != 5.980415626254398 {
		t.Errorf("Family(tpot) = %+v, %v", d, ok)
	}
	if d, ok := m.Family("mean_inter_token_latency_ms"); !ok || d != &m.MeanInterTokenLatency {
		t.Error("Family(mean_inter_token_latency_ms) is not MeanInterTokenLatency")
	}
	if d, ok := m.Family("prompt_tokens"); !ok || d != &m.PromptTokensDist {
		t.Error("Family(prompt_tokens) is not PromptTokensDist")
	}
	if _, ok := m.Family("tpot_ms"); ok {
		t.Error("Family(tpot_ms) succeeded")
	}
}

// TestMetricsFieldNames pins a few field-to-key mappings that a table slip would swap.
func TestMetricsFieldNames(t *testing.T) {
	m := Metrics{
		MeanTimePerOutputToken: Distribution{Samples: 3, StdDev: F(1.5)},
		PromptTokensDist:       Distribution{P50: F(60771)},
		PromptTokens:           new(364633),
		PromptTokenSamples:     6,
		E2E:                    Distribution{MeanCI95High: F(2)},
	}
	var flat map[string]json.RawMessage
	if err := json.Unmarshal(mustJSON(t, m), &flat); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"mean_time_per_output_token_samples":   "3",
		"mean_time_per_output_token_stddev_ms": "1.5",
		"prompt_tokens_p50":                    "60771.0",
		"prompt_tokens":                        "364633",
		"prompt_token_samples":                 "6",
		"prompt_tokens_samples":                "0",
		"e2e_mean_ci95_high_ms":                "2.0",
		"e2e_mean_ci95_low_ms":                 "null",
		"output_token_sources":                 "{}",
		"output_tokens":                        "null",
		"throughput_performance_eligible":      "false",
	} {
		if got := string(flat[key]); got != want {
			t.Errorf("%s = %s, want %s", key, got, want)
		}
	}
}

// TestMetricsTolerant decodes a legacy-era metrics block: missing keys stay zero, unknown
// keys are ignored, null reads as zero.
func TestMetricsTolerant(t *testing.T) {
	var m Metrics
	legacy := `{"ttft_p50_ms": 12.5, "ttft_p95_ms": 20, "e2e_p50_ms": 100.0, "throughput_tok_s": 3.5,
		"output_tokens": 120, "prefix_cache_hit_avg": null, "ttft_samples": 4, "some_future_key": [1, 2],
		"content_chunks": null}`
	if err := json.Unmarshal([]byte(legacy), &m); err != nil {
		t.Fatal(err)
	}
	if m.TTFT.P50 == nil || *m.TTFT.P50 != 12.5 || *m.TTFT.P95 != 20 || m.TTFT.Samples != 4 || m.TTFT.Mean != nil {
		t.Errorf("TTFT = %+v", m.TTFT)
	}
	if m.OutputTokens == nil || *m.OutputTokens != 120 || m.PrefixCacheHitAvg != nil || m.ContentChunks != 0 {
		t.Errorf("scalars = %+v", m)
	}
	if m.OutputTokenSources != nil || m.E2E.Samples != 0 {
		t.Errorf("missing keys not zero: %+v", m)
	}
	// UnmarshalJSON resets the receiver rather than merging.
	if err := json.Unmarshal([]byte(`{}`), &m); err != nil || m.TTFT.P50 != nil {
		t.Errorf("decode of {} kept old values: %+v, %v", m.TTFT, err)
	}
	if err := json.Unmarshal([]byte(`null`), &m); err != nil {
		t.Errorf("decode of null: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"ttft_samples": "six"}`), &m); err == nil ||
		!strings.Contains(err.Error(), "metrics.ttft_samples") {
		t.Errorf("wrong-type key: err = %v, want one naming metrics.ttft_samples", err)
	}
}

func TestMetricsRoundTrip(t *testing.T) {
	m := referenceMetrics(t)
	var back Metrics
	if err := json.Unmarshal(mustJSON(t, m), &back); err != nil {
		t.Fatal(err)
	}
	for _, key := range metricKeys {
		a, as, _ := m.Lookup(key)
		b, bs, _ := back.Lookup(key)
		if (a == nil) != (b == nil) || (a != nil && *a != *b) || as != bs {
			t.Errorf("%s changed in a round trip", key)
		}
	}
	if !maps.Equal(back.OutputTokenSources, map[string]int{"usage": 6}) {
		t.Errorf("output_token_sources = %v", back.OutputTokenSources)
	}
}
