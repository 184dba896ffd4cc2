package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HavePassedRequestCanaries succeeds when every response began with its own marker and
// carried no other request's (gate.RequestCanaries): the check for cross-request
// contamination in batching engines.
//
//	Expect(run).To(HavePassedRequestCanaries())
//
// It errors on a run without canaries. A miss fails the run's gate as a failed run.
func HavePassedRequestCanaries() types.GomegaMatcher {
	return named("HavePassedRequestCanaries", gate.RequestCanaries())
}
