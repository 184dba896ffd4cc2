package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HaveValidToolCalls succeeds when every response of a tool-call run (Scenario.Output
// OutputTool) made exactly one call of the offered tool, with arguments that are valid JSON
// matching its schema (gate.ValidToolCalls). The words in them are AdhereToControlledOutput's.
//
//	Expect(run).To(HaveValidToolCalls())
//
// A failure names each request and what was wrong ("request 3: the arguments are not valid
// JSON: unexpected end of JSON input: ..."). It errors on a run that offered no tool.
func HaveValidToolCalls() types.GomegaMatcher {
	return named("HaveValidToolCalls", gate.ValidToolCalls())
}
