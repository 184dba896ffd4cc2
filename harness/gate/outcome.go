package gate

import (
	"slices"
	"strings"
)

// Outcome is what a check, a scenario or a whole run comes to.
type Outcome string

// Outcomes, in precedence order: when several checks fail, the run's outcome is the first
// of this list that any of them leads to, and every failure is still listed.
//
// A run that did not happen as planned, or that measured the client or another workload
// instead of the engine, says nothing about the engine, so RunFailed and InvalidRun come
// first. A baseline
// that cannot be compared makes every regression check against it meaningless, so
// NotComparable comes next. Then what the engine did: a Regression from the baseline, a
// broken budget. Inconclusive comes last: it is the absence of a finding, and a definite
// one outranks it.
const (
	RunFailed     Outcome = "run_failed"     // requests failed, output was wrong, the run never started or did not finish
	InvalidRun    Outcome = "invalid_run"    // the client could not keep up, or the engine served other work
	NotComparable Outcome = "not_comparable" // the baseline ran another workload, or has too few requests to compare
	Regression    Outcome = "regression"     // a metric regressed from the baseline
	BudgetBroken  Outcome = "budget_broken"  // a budget was broken
	Inconclusive  Outcome = "inconclusive"   // the samples could not resolve a change of the gate's size
	Pass          Outcome = "pass"
)

// Outcomes lists every outcome in precedence order, most severe first.
func Outcomes() []Outcome {
	return []Outcome{RunFailed, InvalidRun, NotComparable, Regression, BudgetBroken, Inconclusive, Pass}
}

// ExitCode is the outcome's exit status in `anvilbench gate-status`, `judge` and
// `compare`: 0 pass, 1 regression, 2 not comparable, 3 budget broken, 4 run failed,
// 5 inconclusive, 6 invalid run. An outcome this version does not know is 4: a verdict it
// cannot read is not a pass.
func (o Outcome) ExitCode() int {
	switch o {
	case Pass:
		return 0
	case Regression:
		return 1
	case NotComparable:
		return 2
	case BudgetBroken:
		return 3
	case Inconclusive:
		return 5
	case InvalidRun:
		return 6
	}
	return 4
}

// Valid reports whether o is one of Outcomes.
func (o Outcome) Valid() bool { return slices.Contains(Outcomes(), o) }

// Text is the outcome for people: "budget broken".
func (o Outcome) Text() string { return strings.ReplaceAll(string(o), "_", " ") }

// severity is o's place in Outcomes; an unknown outcome ranks as RunFailed.
func (o Outcome) severity() int {
	if i := slices.Index(Outcomes(), o); i >= 0 {
		return i
	}
	return 0
}

// Worse reports whether o takes precedence over p.
func (o Outcome) Worse(p Outcome) bool { return o.severity() < p.severity() }

// worstOf is the outcome that takes precedence among outcomes; Pass when there are none.
func worstOf(outcomes ...Outcome) Outcome {
	w := Pass
	for _, o := range outcomes {
		if o.Worse(w) {
			w = o
		}
	}
	return w
}
