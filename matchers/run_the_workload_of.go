package matchers

import (
	"errors"
	"fmt"

	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/compare"
)

// RunTheWorkloadOf succeeds when the run measured the same workload as a baseline artifact
// (compare.Comparable: protocol, model, context plan, concurrency, words, max_tokens, cache
// mode, thinking, sampling), so that their figures may be compared:
//
//	Expect(run).To(RunTheWorkloadOf(baseline))
//
// It fails naming every differing field, e.g. "not the baseline's workload: concurrency 1
// vs 20; max_tokens 512 vs 64".
func RunTheWorkloadOf(baseline *artifact.Benchmark) types.GomegaMatcher {
	return &workloadMatcher{baseline: baseline}
}

type workloadMatcher struct {
	baseline *artifact.Benchmark
	diffs    []compare.Difference
}

func (m *workloadMatcher) Match(actual any) (bool, error) {
	a, err := benchmarkOf("RunTheWorkloadOf", actual)
	if err != nil {
		return false, err
	}
	if m.baseline == nil {
		return false, errors.New("RunTheWorkloadOf: no baseline artifact (got nil)")
	}
	m.diffs = compare.Comparable(m.baseline, a)
	return len(m.diffs) == 0, nil
}

func (m *workloadMatcher) FailureMessage(any) string {
	return fmt.Sprintf("not the baseline's workload: %s", compare.Explain(m.diffs))
}

func (m *workloadMatcher) NegatedFailureMessage(any) string {
	return "the run measured the baseline's workload (expected a difference)"
}
