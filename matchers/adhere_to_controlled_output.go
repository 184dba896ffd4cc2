package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// AdhereToControlledOutput succeeds when every request of the run answered with exactly
// the requested code words, with a complete capture (strict adherence), whatever the
// run's own policy was (gate.ControlledOutput):
//
//	Expect(run).To(AdhereToControlledOutput())
//
// It errors on a run without controlled output (response_words 0). A miss fails the run's
// gate as a failed run.
func AdhereToControlledOutput() types.GomegaMatcher {
	return named("AdhereToControlledOutput", gate.ControlledOutput())
}
