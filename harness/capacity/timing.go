package capacity

import (
	"math"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
)

// Output token sources.
const (
	sourceUsage         = "usage"
	sourceContentChunks = "content_chunks"
)

// timingRow derives a request_timings row from a stream, or nil when its timestamps
// cannot form one (no visible content, or out of order). Figures are computed from
// float64 seconds and converted to milliseconds by ×1000, as the original does:
//
//	generation = e2e − time_to_first_output
//	tpot = mean_time_per_output_token = mean_inter_token_latency = generation / (output_tokens − f)
//	decode_tok_s = (output_tokens − f) / generation
//	effective_prefill_tok_s = prompt_tokens / time_to_first_output
//
// output_tokens is usage.completion_tokens; without it the token figures are null. f is the
// number of tokens the first output chunk carried: 1, as the original assumes, unless the
// engine reported usage in every chunk, when it is counted, so that an engine coalescing
// several tokens into its first chunk does not make TPOT look faster.
func timingRow(res *stream.Result, index, planned int) *artifact.RequestTiming {
	if !res.HasFirstContent {
		return nil
	}
	ttft := res.FirstContent.Seconds()
	ttfo := ttft
	if res.HasFirstOutput {
		ttfo = res.FirstOutput.Seconds()
	}
	e2e := res.End.Seconds()
	if ttfo < 0 || ttfo > ttft || e2e < ttft || math.IsNaN(e2e) {
		return nil
	}
	row := &artifact.RequestTiming{
		ContentChunks:           res.ContentChunks,
		E2EMs:                   artifact.Float(e2e * 1000),
		GenerationMs:            artifact.Float((e2e - ttfo) * 1000),
		OutputTokenSource:       outputTokenSource(res),
		PlannedContextTokens:    planned,
		ReasoningChunks:         res.ReasoningChunks,
		RequestIndex:            index,
		TimeToFirstOutputMs:     artifact.Float(ttfo * 1000),
		TTFTMs:                  artifact.Float(ttft * 1000),
		VisibleContentTruncated: res.ContentTruncated,
		VisibleGenerationMs:     artifact.Float((e2e - ttft) * 1000),
	}
	if res.Usage != nil {
		row.PromptTokens = nonNegative(res.Usage.PromptTokens)
	}
	if row.OutputTokenSource == sourceUsage {
		row.OutputTokens = nonNegative(res.Usage.CompletionTokens)
	}
	if row.PromptTokens != nil && ttfo > 0 {
		row.EffectivePrefillTokS = artifact.F(float64(*row.PromptTokens) / ttfo)
	}
	generation := e2e - ttfo
	first := firstChunkTokens(res)
	if row.OutputTokens != nil && *row.OutputTokens > first && generation > 0 {
		decodeTokens := float64(*row.OutputTokens - first)
		row.DecodeTokS = artifact.F(decodeTokens / generation)
		perToken := generation * 1000 / decodeTokens
		row.MeanInterTokenLatencyMs = artifact.F(perToken)
		row.MeanTimePerOutputTokenMs = artifact.F(perToken)
		row.TPOTMs = artifact.F(perToken)
	}
	return row
}

// firstChunkTokens is how many completion tokens the first output chunk carried: counted
// when every chunk reported usage, else 1.
func firstChunkTokens(res *stream.Result) int {
	if len(res.ArrivalTokens) > 0 && res.ArrivalTokens[0] > 1 {
		return res.ArrivalTokens[0]
	}
	return 1
}

// outputTokenSource is "usage" when the server reported completion tokens, else
// "content_chunks" (the chunk count stands in, and exact token figures are withheld).
func outputTokenSource(res *stream.Result) string {
	if res.Usage != nil && nonNegative(res.Usage.CompletionTokens) != nil {
		return sourceUsage
	}
	return sourceContentChunks
}

func nonNegative(v *int) *int {
	if v == nil || *v < 0 {
		return nil
	}
	return v
}
