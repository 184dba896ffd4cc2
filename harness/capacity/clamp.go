package capacity

import (
	"fmt"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
)

// FitsWindow refuses a fixed plan of ContextTokens that a served window (from source)
// cannot hold with MaxTokens and ContextMargin, naming the window, its source and the
// largest plan that fits; nil when it fits, or when the scenario samples its contexts or
// clamps them to the window.
func (sc Scenario) FitsWindow(window int, source string) error {
	fits := window - sc.MaxTokens - sc.ContextMargin
	if sc.ContextTokens <= fits || sc.ContextTokens == 0 || sc.ClampToWindow {
		return nil
	}
	return fmt.Errorf("a %d-token context does not fit the served window of %d tokens (%s): after max_tokens %d and the margin of %d, the largest plan that fits is %d tokens (plan at most that, or a smaller max_tokens or margin; set the window with max_context_tokens if the engine serves a larger one)",
		sc.ContextTokens, window, source, sc.MaxTokens, sc.ContextMargin, fits)
}

// windowSource says where a window came from, for messages.
func windowSource(caps artifact.Capabilities) string {
	if caps.MaxContextSource != nil && *caps.MaxContextSource != "" {
		return "from " + *caps.MaxContextSource
	}
	return "source unknown"
}

// clampOf records how the window clamped a plan: nil when no request was clamped.
func clampOf(sc Scenario, plan []int, capTokens int, caps artifact.Capabilities) *artifact.ContextClamp {
	if capTokens <= 0 {
		return nil
	}
	unclamped := workload.PlanContexts(sc.Requests, sc.ContextTokens, sc.ContextSeed, sc.ContextBuckets, 0)
	c := &artifact.ContextClamp{Window: sc.MaxContextTokens, WindowSource: caps.MaxContextSource, MaxPromptTokens: capTokens}
	for i := range plan {
		if plan[i] < unclamped[i] {
			c.Requests++
			c.LargestPlanned = max(c.LargestPlanned, unclamped[i])
		}
	}
	if c.Requests == 0 {
		return nil
	}
	c.Note = fmt.Sprintf("context plan clamped: %d of %d requests planned up to %d tokens run at %d, the most the window of %d tokens (%s) leaves after max_tokens %d and the margin of %d",
		c.Requests, len(plan), c.LargestPlanned, capTokens, sc.MaxContextTokens, windowSource(caps), sc.MaxTokens, sc.ContextMargin)
	return c
}
