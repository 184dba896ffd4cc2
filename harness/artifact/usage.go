package artifact

// ReportedUsage sums the prompt and completion tokens the engine's usage reported for the
// requests that ran to their end, successes and failures with a response, the warm-up's
// included: what an engine's own counters hold of this run. unknown counts those of all
// whose usage the engine did not report (a failure without a response, an engine that
// reports none), so that the counters cannot be set against the sum.
func (b *Benchmark) ReportedUsage() (prompt, generated, unknown, all int) {
	if b.Extension != nil && b.Extension.Warmup != nil {
		w := b.Extension.Warmup
		prompt, generated = w.PromptTokens, w.CompletionTokens
		unknown, all = w.Requests-w.UsageReported, w.Requests
	}
	add := func(r *RequestTiming) {
		all++
		if r == nil || r.PromptTokens == nil || r.OutputTokens == nil || r.OutputTokenSource != "usage" {
			unknown++
			return
		}
		prompt += *r.PromptTokens
		generated += *r.OutputTokens
	}
	for i := range b.RequestTimings {
		add(&b.RequestTimings[i])
	}
	for _, f := range b.Failures {
		add(f.ResponseTiming.Row)
	}
	return prompt, generated, unknown, all
}
