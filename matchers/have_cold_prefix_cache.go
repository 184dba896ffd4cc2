package matchers

import (
	"fmt"

	"github.com/onsi/gomega/types"
)

// HaveColdPrefixCache succeeds when no request was served from the prefix cache, as a
// cold-cache scenario declares: warm caches inflate TTFT and prefill figures by tens of
// percent, silently.
//
//	Expect(run).To(HaveColdPrefixCache())
//
// It errors when the endpoint reports no cached tokens, since coldness is then
// unverifiable; check artifact Extension.Capabilities.CachedTokensReported to skip instead.
func HaveColdPrefixCache() types.GomegaMatcher { return &coldMatcher{} }

type coldMatcher struct{ msg string }

func (m *coldMatcher) Match(actual any) (bool, error) {
	a, err := benchmarkOf("HaveColdPrefixCache", actual)
	if err != nil {
		return false, err
	}
	hit := a.Metrics.PrefixCacheHitAvg
	if hit == nil {
		return false, fmt.Errorf("HaveColdPrefixCache: the endpoint reported no cached_tokens over %d requests, so a cold cache cannot be verified", a.Completed)
	}
	m.msg = fmt.Sprintf("prefix cache served %.1f%% of prompt tokens on average over %d requests of a cold-cache scenario: a warm cache inflates TTFT and prefill figures", 100*float64(*hit), a.Completed)
	return *hit == 0, nil
}

func (m *coldMatcher) FailureMessage(any) string { return m.msg }

func (m *coldMatcher) NegatedFailureMessage(any) string {
	return "no prompt token was served from the prefix cache (expected a warm cache)"
}
