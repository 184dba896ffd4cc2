package capacity

import (
	"context"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/fields"
)

// A kind is what a scenario sends: independent prompts (independent.go), the lines of a
// trace (trace.go) or the turns of sessions (session.go). Run asks it, in this order, to
// plan every request, to prepare this process's share and the schedule that starts it, and
// once the run is over to finish what it expects and to record its block of the artifact.
// A new kind is a file that implements it, and its test.
type kind interface {
	// replaces reports whether the kind gives field its own value, so that the scenario's
	// is not checked: a trace's lines set each request's max_tokens and words.
	replaces(sc Scenario, field string) bool
	// requests is how many requests the scenario sends in all, before any file is read
	// (0: not known yet, a trace's lines).
	requests(sc Scenario) int
	// plan checks the scenario against the served window and plans every request of it,
	// every shard's: its context, max_tokens and words. It may read a file.
	plan(r *run) ([]planned, error)
	// prepare, with the prompts calibrated, returns the request indices this process sends
	// in outcome order (every one, or a shard's) and the pacer that sends them.
	prepare(ctx context.Context, r *run) (indices []int, p pacer, err error)
	// finish works out, once every request has ended, what each one could find cached.
	finish(r *run)
	// record adds the kind's block to the artifact and marks the timeline's requests.
	record(r *run, b *artifact.Benchmark)
}

// planned is one request of a scenario as planned before any is sent: its prompt tokens,
// its max_tokens and the code words it asks for (0: a summary).
type planned struct {
	context, maxTokens, words int
}

// kind is the workload kind the scenario names: a trace, sessions, or independent prompts.
// Validate refuses a scenario that names two.
func (sc Scenario) kind() kind {
	switch {
	case sc.Trace.replayed():
		return &traceKind{}
	case sc.Sessions.held():
		return &sessionKind{}
	}
	return &independent{}
}

// oneKind is the problem of a scenario that names more than one kind.
func (sc Scenario) oneKind() []error {
	if sc.Trace.replayed() && sc.Sessions.held() {
		return []error{&fields.FieldError{Field: "Trace.File", Value: sc.Trace.File, Problem: "cannot be combined with %s", Others: []string{"Sessions.Count"}}}
	}
	return nil
}

// contexts are the planned prompt tokens of each request.
func contexts(plan []planned) []int {
	out := make([]int, len(plan))
	for i, p := range plan {
		out[i] = p.context
	}
	return out
}
