package capacity

import (
	"errors"
	"fmt"
	"math"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// Verify checks the invariants every capacity artifact must hold, whoever wrote it: each
// request index in exactly one of request_timings and failures; per row, the documented
// formulas between its figures; and the metrics block equal to what its rows give. It
// returns every violation found.
func Verify(b *artifact.Benchmark) error {
	return errors.Join(append(verifyIndices(b), verifyFigures(b)...)...)
}

// verifyIndices checks that every request of the run, or of the shard, ends in exactly
// one of request_timings, failures and (a request left as planned) the timeline, and that
// the counts say so.
func verifyIndices(b *artifact.Benchmark) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	abandoned := 0
	if b.Extension != nil && b.Extension.Cancellation != nil {
		abandoned = b.Extension.Cancellation.Abandoned
	}
	if b.Completed+b.Failed+abandoned != b.Requests || len(b.RequestTimings) != b.Completed || len(b.Failures) != b.Failed {
		bad("counts: completed %d + failed %d + abandoned %d != requests %d (rows %d, failures %d)", b.Completed, b.Failed, abandoned, b.Requests, len(b.RequestTimings), len(b.Failures))
	}
	seen := make(map[int]int, b.Requests)
	for _, r := range b.RequestTimings {
		seen[r.RequestIndex]++
	}
	for _, f := range b.Failures {
		seen[f.RequestIndex]++
	}
	if b.Extension != nil { // an abandoned request's one place is its timeline span
		for _, s := range b.Extension.Timeline {
			if s.Outcome == artifact.OutcomeAbandoned {
				seen[s.RequestIndex]++
			}
		}
	}
	// A whole run holds indices 0..requests-1; a shard its own.
	indices := make([]int, b.Requests)
	for i := range indices {
		indices[i] = i
	}
	if b.Extension != nil && b.Extension.Shard != nil {
		indices = b.Extension.Shard.Indices
		if len(indices) != b.Requests {
			bad("shard holds %d indices for %d requests", len(indices), b.Requests)
		}
	}
	for _, i := range indices {
		if seen[i] != 1 {
			bad("request %d appears %d times in request_timings and failures", i, seen[i])
		}
	}
	if len(seen) != len(indices) {
		bad("request indices outside the run's %d", len(indices))
	}
	return errs
}

// verifyFigures checks each row's figures, and the metrics against the rows.
func verifyFigures(b *artifact.Benchmark) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	firstChunk := map[int]int{}
	if b.Extension != nil {
		for _, s := range b.Extension.Timeline {
			if s.FirstChunkTokens != nil {
				firstChunk[s.RequestIndex] = *s.FirstChunkTokens
			}
		}
	}
	outputTokens := 0
	for _, r := range b.RequestTimings {
		first, ok := firstChunk[r.RequestIndex]
		if !ok {
			first = 1
		}
		errs = append(errs, verifyRow(r, first)...)
		if r.OutputTokens != nil {
			outputTokens += *r.OutputTokens
		}
	}
	if b.Metrics.OutputTokens != nil && *b.Metrics.OutputTokens != outputTokens {
		bad("metrics.output_tokens %d != sum of rows %d", *b.Metrics.OutputTokens, outputTokens)
	}
	if tp := b.Metrics.ThroughputTokS; tp != nil {
		want := float64(outputTokens) / (float64(b.WallClockMs) / 1000)
		if !nearlyEqual(float64(*tp), want) {
			bad("throughput_tok_s %v != output_tokens / wall %v", *tp, want)
		}
	}

	// The distribution families must be what the rows give (prefix_cache_hit_avg is not
	// among them: the rows do not carry cached tokens).
	want := buildMetrics(b.RequestTimings, nil, float64(b.WallClockMs)/1000, b.PerformanceEligible)
	for _, f := range artifact.Figures() {
		if f.Stat != "samples" {
			continue // one key per family of the metrics block
		}
		name := f.Family
		got, _ := b.Metrics.Family(name)
		exp, _ := want.Family(name)
		if !sameDistribution(*got, *exp) {
			bad("metrics %s do not match the rows: samples %d vs %d", name, got.Samples, exp.Samples)
		}
	}
	return errs
}

// verifyRow checks one row's formulas; first is the tokens of its first output chunk (see
// timingRow). The ms figures are rounded from seconds, so the comparison allows a
// relative 1e-9.
func verifyRow(r artifact.RequestTiming, first int) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("request %d: "+format, append([]any{r.RequestIndex}, args...)...))
	}
	ttfo, ttft, e2e, gen := float64(r.TimeToFirstOutputMs), float64(r.TTFTMs), float64(r.E2EMs), float64(r.GenerationMs)
	if ttfo < 0 || ttfo > ttft || ttft > e2e {
		bad("want 0 <= time_to_first_output %v <= ttft %v <= e2e %v", ttfo, ttft, e2e)
	}
	if !nearlyEqual(gen, e2e-ttfo) {
		bad("generation_ms %v != e2e - time_to_first_output %v", gen, e2e-ttfo)
	}
	if !nearlyEqual(float64(r.VisibleGenerationMs), e2e-ttft) {
		bad("visible_generation_ms %v != e2e - ttft %v", r.VisibleGenerationMs, e2e-ttft)
	}
	if r.OutputTokens != nil && *r.OutputTokens > first && gen > 0 {
		n := float64(*r.OutputTokens - first)
		for name, v := range map[string]*artifact.Float{"tpot_ms": r.TPOTMs, "mean_time_per_output_token_ms": r.MeanTimePerOutputTokenMs, "mean_inter_token_latency_ms": r.MeanInterTokenLatencyMs} {
			if v == nil || !nearlyEqual(float64(*v), gen/n) {
				bad("%s %v != generation / (output_tokens - %d) %v", name, v, first, gen/n)
			}
		}
		if r.DecodeTokS == nil || !nearlyEqual(float64(*r.DecodeTokS), n/(gen/1000)) {
			bad("decode_tok_s %v != (output_tokens - %d) / generation_s %v", r.DecodeTokS, first, n/(gen/1000))
		}
	}
	if r.PromptTokens != nil && ttfo > 0 {
		if want := float64(*r.PromptTokens) / (ttfo / 1000); r.EffectivePrefillTokS == nil || !nearlyEqual(float64(*r.EffectivePrefillTokS), want) {
			bad("effective_prefill_tok_s %v != prompt_tokens / time_to_first_output_s %v", r.EffectivePrefillTokS, want)
		}
	}
	return errs
}

func nearlyEqual(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func sameDistribution(a, b artifact.Distribution) bool {
	if a.Samples != b.Samples {
		return false
	}
	pairs := [][2]*artifact.Float{{a.Mean, b.Mean}, {a.StdDev, b.StdDev}, {a.MeanCI95Low, b.MeanCI95Low}, {a.MeanCI95High, b.MeanCI95High},
		{a.Min, b.Min}, {a.P25, b.P25}, {a.P50, b.P50}, {a.P75, b.P75}, {a.P90, b.P90}, {a.P95, b.P95}, {a.P99, b.P99}, {a.Max, b.Max}}
	for _, p := range pairs {
		if (p[0] == nil) != (p[1] == nil) || (p[0] != nil && *p[0] != *p[1]) {
			return false
		}
	}
	return true
}
