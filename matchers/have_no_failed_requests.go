package matchers

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// HaveNoFailedRequests succeeds when every request of the run succeeded:
//
//	Expect(run).To(HaveNoFailedRequests())
//
// Its message counts the failures by type and quotes the first one, e.g.
// "2 of 6 requests failed (1 http_error, 1 stall); first: request 3 http_error: HTTP 503 ...".
func HaveNoFailedRequests() types.GomegaMatcher { return &noFailuresMatcher{} }

type noFailuresMatcher struct{ run *artifact.Benchmark }

func (m *noFailuresMatcher) Match(actual any) (bool, error) {
	a, err := benchmarkOf("HaveNoFailedRequests", actual)
	if err != nil {
		return false, err
	}
	m.run = a
	if a.Requests == 0 {
		return false, fmt.Errorf("HaveNoFailedRequests: the run attempted no requests")
	}
	return len(a.Failures) == 0 && a.Completed == a.Requests, nil
}

func (m *noFailuresMatcher) FailureMessage(any) string {
	a := m.run
	if len(a.Failures) == 0 {
		return fmt.Sprintf("%d of %d requests completed and none is recorded as failed", a.Completed, a.Requests)
	}
	return fmt.Sprintf("%d of %d requests failed (%s); first: request %d %s: %s",
		len(a.Failures), a.Requests, countByType(a.Failures), a.Failures[0].RequestIndex, a.Failures[0].ErrorType, a.Failures[0].ErrorMessage)
}

func (m *noFailuresMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("all %d requests succeeded (expected some to fail)", m.run.Requests)
}

// countByType renders "2 http_error, 1 stall", most frequent first.
func countByType(failures []artifact.Failure) string {
	counts := map[string]int{}
	for _, f := range failures {
		counts[f.ErrorType]++
	}
	types := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%d %s", counts[t], t)
	}
	return strings.Join(parts, ", ")
}
