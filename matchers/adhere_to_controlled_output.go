package matchers

import (
	"fmt"

	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// AdhereToControlledOutput succeeds when every request of the run answered with exactly
// the requested code words, with a complete capture (strict adherence), whatever the
// run's own policy was:
//
//	Expect(run).To(AdhereToControlledOutput())
//
// It errors on a run without controlled output (response_words 0).
func AdhereToControlledOutput() types.GomegaMatcher { return &adherenceMatcher{} }

type adherenceMatcher struct {
	run    *artifact.Benchmark
	misses []string
}

func (m *adherenceMatcher) Match(actual any) (bool, error) {
	a, err := benchmarkOf("AdhereToControlledOutput", actual)
	if err != nil {
		return false, err
	}
	if a.ResponseWords <= 0 {
		return false, fmt.Errorf("AdhereToControlledOutput: the run asked for no controlled output (response_words %d)", a.ResponseWords)
	}
	m.run, m.misses = a, nil
	observed := map[int]bool{}
	for _, row := range a.RequestTimings {
		observed[row.RequestIndex] = true
		m.check(row.RequestIndex, row.ControlledOutput)
	}
	for _, f := range a.Failures {
		observed[f.RequestIndex] = true
		if f.ControlledOutput == nil {
			m.misses = append(m.misses, fmt.Sprintf("request %d: no scored response (%s)", f.RequestIndex, f.ErrorType))
			continue
		}
		m.check(f.RequestIndex, f.ControlledOutput)
	}
	if len(observed) < a.Requests {
		m.misses = append(m.misses, fmt.Sprintf("%d requests are in neither request_timings nor failures", a.Requests-len(observed)))
	}
	return len(m.misses) == 0, nil
}

func (m *adherenceMatcher) check(index int, co *artifact.ControlledOutput) {
	switch {
	case co == nil:
		m.misses = append(m.misses, fmt.Sprintf("request %d: not scored", index))
	case !co.CaptureComplete:
		m.misses = append(m.misses, fmt.Sprintf("request %d: capture truncated, adherence unobservable", index))
	case co.ExactAdherence == nil || !*co.ExactAdherence:
		m.misses = append(m.misses, fmt.Sprintf("request %d: %d code words and %d other words", index, co.ObservedCodeWords, co.ObservedExtraWords))
	}
}

func (m *adherenceMatcher) FailureMessage(any) string {
	return fmt.Sprintf("%d of %d responses missed exactly %d code words:\n  %s",
		len(m.misses), m.run.Requests, m.run.ResponseWords, listMisses(m.misses))
}

func (m *adherenceMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("all %d responses gave exactly %d code words (expected some not to)", m.run.Requests, m.run.ResponseWords)
}
