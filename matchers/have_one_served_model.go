package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HaveOneServedModel succeeds unless the run's responses named more than one model
// (gate.OneServedModel): a router, or replicas of different models behind one address,
// served it, and its figures mix them.
//
//	Expect(run).To(HaveOneServedModel())
//
// It fails with the models and their counts, e.g. `the responses named 2 models, 6
// "llama-70b", 2 "llama-8b" (requested "llama-70b"): ...`, and the run's gate is then a
// failed run.
func HaveOneServedModel() types.GomegaMatcher {
	return named("HaveOneServedModel", gate.OneServedModel())
}
