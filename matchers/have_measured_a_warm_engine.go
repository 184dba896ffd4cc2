package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HaveMeasuredAWarmEngine succeeds when the run measured a warm engine (gate.StartedWarm):
// its warm-up's last requests decoded within 25% of the measured phase, or, without a
// warm-up, its first requests within 25% of the rest.
//
//	Expect(run).To(HaveMeasuredAWarmEngine())
//
// It fails with the figures, e.g. "a cold engine: without a warm-up, the run's first 8
// requests decoded at 15.00ms a token, the rest at 5.00ms (200% slower; bound 25%)", and the
// run's gate is then an invalid run.
func HaveMeasuredAWarmEngine() types.GomegaMatcher {
	return named("HaveMeasuredAWarmEngine", gate.StartedWarm())
}
