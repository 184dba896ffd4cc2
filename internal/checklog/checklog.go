// Package checklog carries the judgements of the matchers to the toolkit within one
// process: a matcher records each check it judged, and after a spec the toolkit takes them
// to classify the spec's failure by what failed (a broken budget, a regression, failed
// requests), labels or not.
package checklog

import (
	"strings"
	"sync"

	"github.com/anvilbench/anvilbench/harness/gate"
)

var (
	mu     sync.Mutex
	failed []gate.Result
)

// maxKept bounds the log between two Takes: a spec that judges in a loop keeps the latest.
const maxKept = 64

// Record notes a judgement; only failures are kept, since only they classify a failure.
func Record(r gate.Result) {
	if r.Passed() {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if len(failed) == maxKept {
		failed = append(failed[:0], failed[1:]...)
	}
	failed = append(failed, r)
}

// Take returns the failed judgements recorded since the last Take and forgets them.
func Take() []gate.Result {
	mu.Lock()
	defer mu.Unlock()
	out := failed
	failed = nil
	return out
}

// Explaining is the latest of results whose message the failure message holds: the
// judgement that failed the spec. ok is false when none does (the spec failed on something
// else: a plain assertion, a panic, a timeout).
func Explaining(results []gate.Result, failure string) (gate.Result, bool) {
	for i := len(results) - 1; i >= 0; i-- {
		if m := strings.TrimSpace(results[i].Message); m != "" && strings.Contains(failure, m) {
			return results[i], true
		}
	}
	return gate.Result{}, false
}
