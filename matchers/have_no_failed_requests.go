package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// HaveNoFailedRequests succeeds when every request of the run succeeded
// (gate.NoFailedRequests):
//
//	Expect(run).To(HaveNoFailedRequests())
//
// Its message counts the failures by type and quotes the first one, e.g.
// "2 of 6 requests failed (1 http_error, 1 stall); first: request 3 http_error: HTTP 503 ...".
// A failure fails the run's gate as a failed run.
func HaveNoFailedRequests() types.GomegaMatcher {
	return named("HaveNoFailedRequests", gate.NoFailedRequests())
}
