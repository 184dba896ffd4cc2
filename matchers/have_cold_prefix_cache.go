package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HaveColdPrefixCache succeeds when no request was served from the prefix cache, as a
// cold-cache scenario declares (gate.ColdPrefixCache): warm caches inflate TTFT and
// prefill figures by tens of percent, silently.
//
//	Expect(run).To(HaveColdPrefixCache())
//
// It errors when the endpoint reports no cached tokens, since coldness is then
// unverifiable; check artifact Extension.Capabilities.CachedTokensReported to skip instead.
func HaveColdPrefixCache() types.GomegaMatcher {
	return named("HaveColdPrefixCache", gate.ColdPrefixCache())
}
