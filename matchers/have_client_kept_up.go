package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HaveClientKeptUp succeeds when the client kept up with the run's workload within bounds
// (gate.ClientKeptUp; zero fields take gate's defaults): it did not want more CPU than the
// cores it may use, and did not hold requests back from their start.
//
//	Expect(run).To(HaveClientKeptUp(gate.ClientBounds{}))
//
// It fails with the figure and the bound, e.g. "the client wanted 110% of the 1 core it may
// use during the request phase (39% running, 70% waiting for a core; bound 90%): ...", and
// the run's gate is then an invalid run.
func HaveClientKeptUp(bounds gate.ClientBounds) types.GomegaMatcher {
	return named("HaveClientKeptUp", gate.ClientKeptUp(bounds))
}
