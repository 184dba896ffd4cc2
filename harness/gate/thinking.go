package gate

import (
	"fmt"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// ThinkingAsAsked checks that the engine served the thinking mode the run asked for
// (chat_template_kwargs.enable_thinking): with thinking enabled some response streamed
// reasoning, with it disabled none did. An engine whose template ignores the switch, or
// that streams its thinking inside the content for want of a reasoning parser, measured
// another workload: TTFT with thinking is not TTFT without. Skipped when the run asked for
// no mode.
func ThinkingAsAsked() Check {
	return Check{Name: "serves the thinking mode asked for", Kind: KindOutput, judge: func(a *artifact.Benchmark) Result {
		mode := a.ServeFlags.ThinkingMode
		if mode != "enabled" && mode != "disabled" {
			return skipped("the run asked for no thinking mode (" + mode + ")")
		}
		if len(a.RequestTimings) == 0 {
			return unjudged(RunFailed, "no response completed: whether the engine served thinking "+mode+" cannot be checked")
		}
		thought := 0
		for _, r := range a.RequestTimings {
			if r.ReasoningChunks > 0 {
				thought++
			}
		}
		n := len(a.RequestTimings)
		switch {
		case mode == "enabled" && thought == 0:
			return found(RunFailed, fmt.Sprintf("thinking was enabled (chat_template_kwargs.enable_thinking true), but none of the %d responses streamed reasoning: the engine ignored the switch, or streams its thinking inside the content (a reasoning parser, such as vLLM's --reasoning-parser, separates it)", n))
		case mode == "disabled" && thought > 0:
			return found(RunFailed, fmt.Sprintf("thinking was disabled (chat_template_kwargs.enable_thinking false), but %d of the %d responses streamed reasoning: the engine ignored the switch, and their TTFT includes the thinking", thought, n))
		}
		return held(fmt.Sprintf("thinking %s: %d of the %d responses streamed reasoning", mode, thought, n))
	}}
}
