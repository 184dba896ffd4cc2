package budget

import (
	"fmt"
	"math"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// RowValues returns the per-request values of a distribution family ("ttft", "tpot",
// "decode_tok_s", ...) over the artifact's request_timings rows, in row order, skipping rows
// where the value is null. The families map to row fields as the metrics block is computed:
//
//	ttft -> ttft_ms                      time_to_first_output -> time_to_first_output_ms
//	e2e -> e2e_ms                        generation -> generation_ms
//	tpot, mean_time_per_output_token,    decode_tok_s -> decode_tok_s
//	mean_inter_token_latency_ms -> tpot_ms
//	effective_prefill_tok_s -> effective_prefill_tok_s
//	prompt_tokens -> prompt_tokens       completion_tokens -> output_tokens
//
// For the three TPOT twins a row without tpot_ms (artifacts older than 2026-09-04) falls
// back to mean_time_per_output_token_ms, then mean_inter_token_latency_ms: the same figure
// under its older names. An unknown family is an error quoting it.
func RowValues(a *artifact.Benchmark, family string) ([]float64, error) {
	return RowValuesIn(a, family, math.MinInt, math.MaxInt)
}

// RowValuesIn is RowValues over the rows of request indices lo to hi-1: one block of a run
// of several (artifact.Blocks).
func RowValuesIn(a *artifact.Benchmark, family string, lo, hi int) ([]float64, error) {
	if a == nil {
		return nil, fmt.Errorf("family %q: no artifact", family)
	}
	get, ok := rowFields[family]
	if !ok {
		if values, ok := a.SpanValues(family, lo, hi); ok {
			return values, nil // a figure of the extension, per request in the timeline
		}
		return nil, fmt.Errorf("family %q has no request_timings field", family)
	}
	var out []float64
	for i := range a.RequestTimings {
		r := &a.RequestTimings[i]
		if r.RequestIndex < lo || r.RequestIndex >= hi {
			continue
		}
		if v, ok := get(r); ok {
			out = append(out, v)
		}
	}
	return out, nil
}

var rowFields = map[string]func(*artifact.RequestTiming) (float64, bool){
	"ttft":                        func(r *artifact.RequestTiming) (float64, bool) { return float64(r.TTFTMs), true },
	"time_to_first_output":        func(r *artifact.RequestTiming) (float64, bool) { return float64(r.TimeToFirstOutputMs), true },
	"e2e":                         func(r *artifact.RequestTiming) (float64, bool) { return float64(r.E2EMs), true },
	"generation":                  func(r *artifact.RequestTiming) (float64, bool) { return float64(r.GenerationMs), true },
	"tpot":                        tpotOf,
	"mean_time_per_output_token":  tpotOf,
	"mean_inter_token_latency_ms": tpotOf,
	"decode_tok_s":                func(r *artifact.RequestTiming) (float64, bool) { return floatOf(r.DecodeTokS) },
	"effective_prefill_tok_s":     func(r *artifact.RequestTiming) (float64, bool) { return floatOf(r.EffectivePrefillTokS) },
	"prompt_tokens":               func(r *artifact.RequestTiming) (float64, bool) { return intOf(r.PromptTokens) },
	"completion_tokens":           func(r *artifact.RequestTiming) (float64, bool) { return intOf(r.OutputTokens) },
}

func tpotOf(r *artifact.RequestTiming) (float64, bool) {
	for _, f := range []*artifact.Float{r.TPOTMs, r.MeanTimePerOutputTokenMs, r.MeanInterTokenLatencyMs} {
		if f != nil {
			return float64(*f), true
		}
	}
	return 0, false
}

func floatOf(f *artifact.Float) (float64, bool) {
	if f == nil {
		return 0, false
	}
	return float64(*f), true
}

func intOf(i *int) (float64, bool) {
	if i == nil {
		return 0, false
	}
	return float64(*i), true
}

// Answers that arrive at once: of StreamedMinChunks output chunks or more, with their first
// output and their end less than StreamedWithin apart. No engine decodes four tokens that
// fast; a proxy that buffers responses, or an engine that flushes only at the end, delivers
// every answer so.
const (
	StreamedMinChunks = 4
	StreamedWithin    = 0.1 // ms
)

// AtOnce counts the successful answers of at least StreamedMinChunks output chunks
// (content and reasoning), and how many of them arrived at once: their generation_ms (first
// output to end) under StreamedWithin. Such an answer's TTFT is the time to the whole
// answer, and its TPOT measures nothing.
func AtOnce(a *artifact.Benchmark) (atOnce, answers int) {
	if a == nil {
		return 0, 0
	}
	for _, r := range a.RequestTimings {
		if r.ContentChunks+r.ReasoningChunks < StreamedMinChunks {
			continue
		}
		answers++
		if float64(r.GenerationMs) < StreamedWithin {
			atOnce++
		}
	}
	return atOnce, answers
}
