package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HaveHadTheEngineToItself succeeds when the engine's own metrics show it served the run
// alone (gate.EngineToItself): no more tokens counted over it than the run's responses
// reported, or, where those counters cannot be compared, nothing running or waiting when
// the run began.
//
//	Expect(run).To(HaveHadTheEngineToItself())
//
// It fails with the figures, e.g. "generated tokens: the engine counted 12400, the run's 64
// responses reported 8000: 4400 more (55.0%; bound 2% + 1 per request) were another
// workload's", and the run's gate is then an invalid run. Without the engine's metrics it
// passes, saying why it could not check.
func HaveHadTheEngineToItself() types.GomegaMatcher {
	return named("HaveHadTheEngineToItself", gate.EngineToItself())
}
