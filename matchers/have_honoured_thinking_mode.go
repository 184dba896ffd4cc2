package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HaveHonouredThinkingMode succeeds when the engine served the thinking mode the run asked
// for (gate.ThinkingAsAsked): some response streamed reasoning with thinking enabled, none
// did with it disabled. A run that asked for no mode passes: there is nothing to judge.
//
//	Expect(run).To(HaveHonouredThinkingMode())
//
// It fails with the count, e.g. "thinking was disabled (...), but 6 of the 6 responses
// streamed reasoning: ...", and the run's gate is then a failed run.
func HaveHonouredThinkingMode() types.GomegaMatcher {
	return named("HaveHonouredThinkingMode", gate.ThinkingAsAsked())
}
