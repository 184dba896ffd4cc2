package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HaveCachedWhatItShares succeeds when the engine served from its prefix cache what a trace
// or a session shares (gate.PlannedPrefixCache): every request's cached tokens within its
// expected range (a trace's shared blocks, a session's earlier turns), give or take the
// engine's cache block (Scenario.CacheBlockTokens).
//
//	Expect(run).To(HaveCachedWhatItShares())
//
// Without cached tokens in usage it judges the run's total from the engine's prefix-cache
// metrics; it errors on a run that plans no sharing.
func HaveCachedWhatItShares() types.GomegaMatcher {
	return named("HaveCachedWhatItShares", gate.PlannedPrefixCache())
}
