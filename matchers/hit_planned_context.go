package matchers

import (
	"fmt"

	"github.com/onsi/gomega/types"
)

// HitPlannedContext succeeds when every successful request's usage.prompt_tokens is within
// a relative tolerance of its planned context:
//
//	Expect(run).To(HitPlannedContext(0.01))
//
// It errors when the endpoint reported no prompt tokens.
func HitPlannedContext(tolerance float64) types.GomegaMatcher {
	return &plannedMatcher{tolerance: tolerance}
}

type plannedMatcher struct {
	tolerance float64
	msg       string
}

func (m *plannedMatcher) Match(actual any) (bool, error) {
	a, err := benchmarkOf("HitPlannedContext", actual)
	if err != nil {
		return false, err
	}
	worst, n, worstIndex := 0.0, 0, -1
	for _, r := range a.RequestTimings {
		if r.PromptTokens == nil || r.PlannedContextTokens <= 0 {
			continue
		}
		n++
		e := float64(*r.PromptTokens-r.PlannedContextTokens) / float64(r.PlannedContextTokens)
		if e < 0 {
			e = -e
		}
		if e > worst || worstIndex < 0 {
			worst, worstIndex = e, r.RequestIndex
		}
	}
	if n == 0 {
		return false, fmt.Errorf("HitPlannedContext: no request reported usage.prompt_tokens")
	}
	method := "unknown"
	if a.Extension != nil {
		method = a.Extension.Calibration.Method
	}
	m.msg = fmt.Sprintf("prompt tokens are %.2f%% off their planned size at worst (request %d) over %d requests, calibration %s (tolerance %.2f%%)",
		100*worst, worstIndex, n, method, 100*m.tolerance)
	return worst <= m.tolerance, nil
}

func (m *plannedMatcher) FailureMessage(any) string { return m.msg }

func (m *plannedMatcher) NegatedFailureMessage(any) string { return m.msg + " (expected farther off)" }
