package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HavePrefixCacheHitRate succeeds when the engine served at least the given share of
// prompt tokens from its prefix cache on average (prefix_cache_hit_avg), as a
// shared-prefix scenario expects (gate.PrefixCacheHitRate):
//
//	Expect(run).To(HavePrefixCacheHitRate(0.5))
//
// It fails when the engine reported no cached tokens at all, saying so.
func HavePrefixCacheHitRate(atLeast float64) types.GomegaMatcher {
	return named("HavePrefixCacheHitRate", gate.PrefixCacheHitRate(atLeast))
}
