package capacity

import "github.com/anvilbench/anvilbench/harness/artifact"

// reasoningSplit fills a success's span with what its usage split of its completion
// tokens: reasoning and answer tokens, the answer's own time per output token, and the
// time from its first reasoning to its first answer.
func reasoningSplit(s *artifact.RequestSpan, row *artifact.RequestTiming, reasoning *int) {
	if row.ReasoningChunks > 0 && row.TTFTMs > row.TimeToFirstOutputMs {
		s.ReasoningToAnswerMs = artifact.F(float64(row.TTFTMs - row.TimeToFirstOutputMs))
	}
	if reasoning == nil || row.OutputTokens == nil || row.OutputTokenSource != sourceUsage {
		return
	}
	answer := *row.OutputTokens - *reasoning
	if answer < 0 {
		return
	}
	s.ReasoningTokens, s.AnswerTokens = new(*reasoning), new(answer)
	if answer >= 2 {
		s.AnswerTPOTMs = artifact.F(float64(row.E2EMs-row.TTFTMs) / float64(answer-1))
	}
}

// reasoningSummary summarizes the spans' reasoning split; nil when no span has one.
func reasoningSummary(spans []artifact.RequestSpan) *artifact.Reasoning {
	var out artifact.Reasoning
	var reasoning, answer, toAnswer, answerTPOT []float64
	for _, s := range spans {
		if s.ReasoningTokens != nil {
			out.Requests++
			reasoning = append(reasoning, float64(*s.ReasoningTokens))
			answer = append(answer, float64(*s.AnswerTokens))
		}
		if s.ReasoningToAnswerMs != nil {
			toAnswer = append(toAnswer, float64(*s.ReasoningToAnswerMs))
		}
		if s.AnswerTPOTMs != nil {
			answerTPOT = append(answerTPOT, float64(*s.AnswerTPOTMs))
		}
	}
	if out.Requests == 0 && len(toAnswer) == 0 {
		return nil
	}
	out.ReasoningTokens, out.AnswerTokens = percentiles(reasoning), percentiles(answer)
	out.ReasoningToAnswerMs, out.AnswerTPOTMs = percentiles(toAnswer), percentiles(answerTPOT)
	return &out
}

// phasesSummary summarizes the engine's own account of the successful requests' time; nil
// when none carried one.
func phasesSummary(spans []artifact.RequestSpan) *artifact.Phases {
	var out artifact.Phases
	var queue, prefill, decode, beyond []float64
	add := func(dst *[]float64, f *artifact.Float) {
		if f != nil {
			*dst = append(*dst, float64(*f))
		}
	}
	for _, s := range spans {
		p := s.EnginePhases
		if p == nil || s.Outcome != "ok" {
			continue
		}
		out.Requests++
		if out.Source == "" {
			out.Source = p.Source
		}
		add(&queue, p.QueueMs)
		add(&prefill, p.PromptEvalMs)
		add(&decode, p.EvalMs)
		add(&beyond, p.BeyondEngineMs)
	}
	if out.Requests == 0 {
		return nil
	}
	out.QueueMs, out.PrefillMs, out.DecodeMs, out.BeyondEngineMs = percentiles(queue), percentiles(prefill), percentiles(decode), percentiles(beyond)
	return &out
}
