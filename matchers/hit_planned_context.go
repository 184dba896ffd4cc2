package matchers

import (
	"fmt"
	"math"

	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// HitPlannedContext succeeds when the prompt tokens the engine counted (usage.prompt_tokens)
// are within a relative tolerance of every request's planned context, over every response
// that reported them, failed requests included (an engine that truncated a prompt and then
// failed still did not see the plan):
//
//	Expect(run).To(HitPlannedContext(0.02))
//
// It fails with the figure, the bound and the sample count, led by what a large shortfall
// means, e.g. "the engine counted 16384 prompt tokens for a 64000-token plan on every
// request: it truncated the prompt; its window is probably 16384 (set
// ANVIL_MAX_CONTEXT_TOKENS, or max_context_tokens of the scenario); prompt tokens are
// 74.40% off their planned size at worst (request 0) over 6 requests, calibration
// usage-probe (tolerance 2.00%)". It errors when the engine reported no prompt tokens.
func HitPlannedContext(tolerance float64) types.GomegaMatcher {
	return &plannedMatcher{tolerance: tolerance}
}

type plannedMatcher struct {
	tolerance float64
	msg       string
}

// contextSample is one request's planned and counted prompt tokens.
type contextSample struct{ index, planned, counted int }

func contextSamples(a *artifact.Benchmark) []contextSample {
	var out []contextSample
	if a.Extension != nil && len(a.Extension.Timeline) > 0 {
		for _, s := range a.Extension.Timeline {
			if s.PromptTokens != nil && s.PlannedContextTokens > 0 {
				out = append(out, contextSample{s.RequestIndex, s.PlannedContextTokens, *s.PromptTokens})
			}
		}
		return out
	}
	for _, r := range a.RequestTimings { // an artifact without the extension: successes only
		if r.PromptTokens != nil && r.PlannedContextTokens > 0 {
			out = append(out, contextSample{r.RequestIndex, r.PlannedContextTokens, *r.PromptTokens})
		}
	}
	return out
}

func (m *plannedMatcher) Match(actual any) (bool, error) {
	a, err := benchmarkOf("HitPlannedContext", actual)
	if err != nil {
		return false, err
	}
	samples := contextSamples(a)
	if len(samples) == 0 {
		return false, fmt.Errorf("HitPlannedContext: no request reported usage.prompt_tokens")
	}
	worst, worstIndex := -1.0, 0
	for _, s := range samples {
		if e := math.Abs(float64(s.counted-s.planned)) / float64(s.planned); e > worst {
			worst, worstIndex = e, s.index
		}
	}
	method, diagnosis := "unknown", ""
	if x := a.Extension; x != nil {
		method, diagnosis = x.Calibration.Method, x.ContextAccuracy.Diagnosis
		if x.ContextAccuracy.TruncatedAt != nil {
			diagnosis += " (set ANVIL_MAX_CONTEXT_TOKENS, or max_context_tokens of the scenario)"
		}
	}
	m.msg = fmt.Sprintf("prompt tokens are %.2f%% off their planned size at worst (request %d) over %d requests, calibration %s (tolerance %.2f%%)",
		100*worst, worstIndex, len(samples), method, 100*m.tolerance)
	pass := worst <= m.tolerance
	if !pass && diagnosis != "" {
		m.msg = diagnosis + "; " + m.msg
	}
	return pass, nil
}

func (m *plannedMatcher) FailureMessage(any) string { return m.msg }

func (m *plannedMatcher) NegatedFailureMessage(any) string { return m.msg + " (expected farther off)" }
