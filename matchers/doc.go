// Package matchers holds Gomega matchers over anvil-serving.benchmark/v1 artifacts, one per
// file. Every matcher takes a *artifact.Benchmark (or a Benchmark value) as its actual and
// fails, never passes, when there is nothing to judge (no samples, no artifact). Failure
// messages state the measured figure, the bound and the number of samples it stands on.
package matchers

import (
	"fmt"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// benchmarkOf converts a matcher's actual into an artifact.
func benchmarkOf(matcher string, actual any) (*artifact.Benchmark, error) {
	switch a := actual.(type) {
	case *artifact.Benchmark:
		if a == nil {
			return nil, fmt.Errorf("%s expects an artifact, got a nil *artifact.Benchmark", matcher)
		}
		return a, nil
	case artifact.Benchmark:
		return &a, nil
	}
	return nil, fmt.Errorf("%s expects a *artifact.Benchmark, got %T", matcher, actual)
}
