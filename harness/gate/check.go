package gate

import (
	"github.com/anvilbench/anvilbench/harness/artifact"
)

// Result is one check's judgement of one run.
type Result struct {
	// Check names the check as its spec does ("meets the budget tpot_p50_ms<=6"); Kind is
	// what it checks.
	Check string `json:"check"`
	Kind  Kind   `json:"kind"`
	// Outcome is Pass, or the outcome the failure leads to. It comes from what failed: a
	// budget whose figure is missing because requests failed is RunFailed, not BudgetBroken.
	Outcome Outcome `json:"outcome"`
	// Judged is false when there was nothing to judge (no samples, a baseline of another
	// workload): the check can then neither pass nor, negated, fail.
	Judged bool `json:"judged"`
	// Message states the figure, the bound and the samples, failed or not.
	Message string `json:"message"`
	// Skipped, when set, says why the check does not apply to this run (strict adherence
	// under the observe policy); the outcome is then Pass.
	Skipped string `json:"skipped,omitempty"`
	// Resolution is what a baseline comparison's samples could resolve; nil for other
	// checks, and for a comparison that did not get to compare the rows.
	Resolution *resolution `json:"resolution,omitempty"`
	// Noted is what the verdict must say of a check that held or was skipped without
	// judging what it names (notedInconclusive, notedNoBaseline); "" otherwise.
	Noted string `json:"noted,omitempty"`
}

// What a verdict notes of a check that held or was skipped without judging.
const (
	// notedInconclusive: a comparison that could not resolve the gate's change passed
	// because the gate says so (gate_inconclusive=pass).
	notedInconclusive = "inconclusive, passed by gate_inconclusive=pass"
	// notedNoBaseline: a scenario its history holds no earlier run of ran unjudged, the
	// first run of its history.
	notedNoBaseline = "without a baseline yet"
	// notedShortHistory: a history of fewer runs than a spread needs; the run is judged on
	// the rest.
	notedShortHistory = "against a history too short yet"
	// notedMainStepped, notedMainInconclusive: a run of main's own history (gate_on_main)
	// moved against it, or could not be resolved against it; reported, not failed.
	notedMainStepped      = "main's own step, reported on main"
	notedMainInconclusive = "inconclusive, passed on main"
)

// resolution is what a comparison could resolve.
type resolution struct {
	// Design is how it accounted for what varies between its sides (compare.Design).
	Design string `json:"design"`
	// Detectable is the smallest relative change it resolves; PairsNeeded and
	// HistoryRunsNeeded what would resolve a change of the gate's size in its place:
	// interleaved pairs against the baseline build, or a history of runs (0 where none
	// can).
	Detectable        float64 `json:"detectable"`
	PairsNeeded       int     `json:"pairs_needed"`
	HistoryRunsNeeded int     `json:"history_runs_needed"`
}

// Passed reports whether the check held (or did not apply).
func (r Result) Passed() bool { return r.Outcome == Pass }

// Check is one check of a run: a name, a kind, and the judgement. The checks of a gated
// scenario come from Spec.Checks; each is also a matcher of package matchers, so a spec an
// engine team writes is judged, and its failures classified, the same way.
type Check struct {
	// Name names the check's spec, e.g. "completes every request".
	Name string
	Kind Kind
	// judge judges a non-nil run; Judge fills in the name and kind.
	judge func(*artifact.Benchmark) Result
}

// Judge judges run. A nil run is a failed run: there is nothing measured to judge.
func (c Check) Judge(run *artifact.Benchmark) Result {
	var r Result
	if run == nil {
		r = Result{Outcome: RunFailed, Message: "no artifact to judge: the scenario did not run"}
	} else {
		r = c.judge(run)
	}
	r.Check, r.Kind = c.Name, c.Kind
	return r
}

// held is a passing judgement; found a failure of the check's own finding; unjudged a
// failure with nothing to judge, leading to outcome.
func held(msg string) Result { return Result{Outcome: Pass, Judged: true, Message: msg} }

func found(o Outcome, msg string) Result { return Result{Outcome: o, Judged: true, Message: msg} }

func unjudged(o Outcome, msg string) Result { return Result{Outcome: o, Message: msg} }

func skipped(why string) Result { return Result{Outcome: Pass, Skipped: why} }
