// Package checklog carries, within one process, the judgement of the check whose failure
// Gomega reported to the toolkit: a matcher records its judgement when Gomega asks it for
// its failure message (or when it could not judge, and Gomega fails on its error), and
// after a spec the toolkit takes it to classify the spec's failure by what failed (a broken
// budget, a regression, failed requests), labels or not. A failed assertion ends its
// spec, so the judgement recorded last is the one that failed it; a spec that failed on
// anything else (a plain assertion, a panic, a timeout) recorded none.
//
// It holds the judgement as a value of any type (a gate.Result), so that it stands on the
// ground floor beneath both the matchers and the toolkit, which agree on the type.
package checklog

import "sync"

var (
	mu      sync.Mutex
	failing any
)

// Failing records judgement as the one a failed assertion reports.
func Failing(judgement any) {
	mu.Lock()
	defer mu.Unlock()
	failing = judgement
}

// Take returns the judgement recorded since the last Take, if any, and forgets it.
func Take() (any, bool) {
	mu.Lock()
	defer mu.Unlock()
	r := failing
	failing = nil
	return r, r != nil
}
