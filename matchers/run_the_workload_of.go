package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// RunTheWorkloadOf succeeds when the run measured the same workload as a baseline artifact
// (gate.SameWorkload: protocol, model, context plan, concurrency, words, max_tokens, cache
// mode, thinking, sampling), so that their figures may be compared:
//
//	Expect(run).To(RunTheWorkloadOf(baseline))
//
// It fails naming every differing field, e.g. "not the baseline's workload: concurrency 1
// vs 20; max_tokens 512 vs 64" (the run's gate: not comparable).
func RunTheWorkloadOf(baseline *artifact.Benchmark) types.GomegaMatcher {
	return named("RunTheWorkloadOf", gate.SameWorkload(baseline))
}
