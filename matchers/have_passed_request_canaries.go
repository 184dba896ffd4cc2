package matchers

import (
	"fmt"
	"strings"

	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// HavePassedRequestCanaries succeeds when every response began with its own marker and
// carried no other request's: the check for cross-request contamination in batching
// engines.
//
//	Expect(run).To(HavePassedRequestCanaries())
//
// It errors on a run without canaries.
func HavePassedRequestCanaries() types.GomegaMatcher { return &canaryMatcher{} }

type canaryMatcher struct {
	run    *artifact.Benchmark
	misses []string
}

func (m *canaryMatcher) Match(actual any) (bool, error) {
	a, err := benchmarkOf("HavePassedRequestCanaries", actual)
	if err != nil {
		return false, err
	}
	if !a.RequestCanaries {
		return false, fmt.Errorf("HavePassedRequestCanaries: the run had request canaries off")
	}
	m.run, m.misses = a, nil
	for _, f := range a.Failures {
		switch c := f.RequestCanary; {
		case c == nil:
			m.misses = append(m.misses, fmt.Sprintf("request %d: no response to check (%s)", f.RequestIndex, f.ErrorType))
		case !c.Passed:
			m.misses = append(m.misses, fmt.Sprintf("request %d: %s", f.RequestIndex, describeCanary(c)))
		}
	}
	for _, r := range a.RequestTimings {
		if r.RequestCanary == nil || !r.RequestCanary.Passed {
			m.misses = append(m.misses, fmt.Sprintf("request %d: canary not passed", r.RequestIndex))
		}
	}
	return len(m.misses) == 0, nil
}

func describeCanary(c *artifact.RequestCanary) string {
	var why []string
	if !c.MarkerAtStart {
		why = append(why, "does not begin with "+c.Marker)
	}
	if c.ForeignMarkerCount > 0 {
		why = append(why, fmt.Sprintf("carries %d other request marker(s)", c.ForeignMarkerCount))
	}
	if !c.CaptureComplete {
		why = append(why, "capture truncated")
	}
	return strings.Join(why, ", ")
}

func (m *canaryMatcher) FailureMessage(any) string {
	return fmt.Sprintf("%d of %d responses failed their request canary (cross-request contamination):\n  %s",
		len(m.misses), m.run.Requests, listMisses(m.misses))
}

func (m *canaryMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("all %d responses passed their request canary (expected some not to)", m.run.Requests)
}
