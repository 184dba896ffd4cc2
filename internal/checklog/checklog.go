// Package checklog carries, within one process, the judgement of the check whose failure
// Gomega reported to the toolkit: a matcher records its judgement when Gomega asks it for
// its failure message (or when it could not judge, and Gomega fails on its error), and
// after a spec the toolkit takes it to classify the spec's failure by what failed (a broken
// budget, a regression, failed requests), labels or not. A failed assertion ends its
// spec, so the judgement recorded last is the one that failed it; a spec that failed on
// anything else (a plain assertion, a panic, a timeout) recorded none.
package checklog

import (
	"sync"

	"github.com/anvilbench/anvilbench/harness/gate"
)

var (
	mu      sync.Mutex
	failing *gate.Result
)

// Failing records r as the judgement a failed assertion reports.
func Failing(r gate.Result) {
	mu.Lock()
	defer mu.Unlock()
	failing = &r
}

// Take returns the judgement recorded since the last Take, if any, and forgets it.
func Take() (gate.Result, bool) {
	mu.Lock()
	defer mu.Unlock()
	r := failing
	failing = nil
	if r == nil {
		return gate.Result{}, false
	}
	return *r, true
}
