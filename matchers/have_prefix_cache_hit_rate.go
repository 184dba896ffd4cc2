package matchers

import (
	"fmt"

	"github.com/onsi/gomega/types"
)

// HavePrefixCacheHitRate succeeds when the engine served at least the given share of
// prompt tokens from its prefix cache on average (prefix_cache_hit_avg), as a
// shared-prefix scenario expects:
//
//	Expect(run).To(HavePrefixCacheHitRate(0.5))
//
// It fails when the engine reported no cached tokens at all, saying so.
func HavePrefixCacheHitRate(atLeast float64) types.GomegaMatcher {
	return &hitRateMatcher{atLeast: atLeast}
}

type hitRateMatcher struct {
	atLeast float64
	msg     string
}

func (m *hitRateMatcher) Match(actual any) (bool, error) {
	a, err := benchmarkOf("HavePrefixCacheHitRate", actual)
	if err != nil {
		return false, err
	}
	if a.Completed == 0 {
		return false, fmt.Errorf("HavePrefixCacheHitRate: no request succeeded (%d failed)", a.Failed)
	}
	hit := a.Metrics.PrefixCacheHitAvg
	if hit == nil {
		m.msg = fmt.Sprintf("the endpoint reported no usage.prompt_tokens_details.cached_tokens over %d requests: no prefix cache hit is visible (want at least %.1f%%)", a.Completed, 100*m.atLeast)
		return false, nil
	}
	m.msg = fmt.Sprintf("prefix cache served %.1f%% of prompt tokens on average over %d requests (want at least %.1f%%)", 100*float64(*hit), a.Completed, 100*m.atLeast)
	return float64(*hit) >= m.atLeast, nil
}

func (m *hitRateMatcher) FailureMessage(any) string { return m.msg }

func (m *hitRateMatcher) NegatedFailureMessage(any) string { return m.msg + " (expected less)" }
