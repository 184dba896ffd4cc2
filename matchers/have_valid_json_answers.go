package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HaveValidJSONAnswers succeeds when every response of a JSON-schema run (Scenario.Output
// OutputJSON) was valid JSON matching the schema (gate.ValidJSONAnswers).
//
//	Expect(run).To(HaveValidJSONAnswers())
//
// It errors on a run that asked for no JSON answer.
func HaveValidJSONAnswers() types.GomegaMatcher {
	return named("HaveValidJSONAnswers", gate.ValidJSONAnswers())
}
