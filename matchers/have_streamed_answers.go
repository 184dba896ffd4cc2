package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HaveStreamedAnswers succeeds unless most answers of four or more output chunks arrived
// at once (gate.StreamedAnswers): buffered by a proxy or by the engine, they leave TTFT
// the time to the whole answer and TPOT nothing to measure.
//
//	Expect(run).To(HaveStreamedAnswers())
//
// It fails with the count, e.g. "6 of the 6 answers of 4 or more output chunks were not
// streamed: ...", and the run's gate is then a failed run.
func HaveStreamedAnswers() types.GomegaMatcher {
	return named("HaveStreamedAnswers", gate.StreamedAnswers())
}
