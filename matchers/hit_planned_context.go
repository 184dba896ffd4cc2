package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HitPlannedContext succeeds when the prompt tokens the engine counted (usage.prompt_tokens)
// are within a relative tolerance of every request's planned context, over every response
// that reported them, failed requests included (gate.PlannedContext):
//
//	Expect(run).To(HitPlannedContext(0.02))
//
// It fails with the figure, the bound and the sample count, led by what a large shortfall
// means, e.g. "the engine counted 16384 prompt tokens for a 64000-token plan on every
// request: it truncated the prompt; its window is probably 16384 (set
// ANVIL_MAX_CONTEXT_TOKENS, or max_context_tokens of the scenario); prompt tokens are
// 74.40% off their planned size at worst (request 0) over 6 requests, calibration
// usage-probe (tolerance 2.00%)". It errors when the engine reported no prompt tokens. A
// miss fails the run's gate as a failed run: the engine did not serve the planned workload.
func HitPlannedContext(tolerance float64) types.GomegaMatcher {
	return named("HitPlannedContext", gate.PlannedContext(tolerance))
}
