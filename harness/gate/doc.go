// Package gate decides whether a run passes: the checks of a gated scenario, the kind of
// each, the outcome a failure leads to, which outcome wins when several fail, the exit
// code of each outcome, and the defaults. It is free of Ginkgo and Gomega: the toolkit
// (harness/anvil) turns a Spec's checks into specs, package matchers makes each check a
// Gomega matcher, and `anvilbench judge` and `gate-status` run and read the same checks.
//
// A check judges one artifact into a Result whose outcome comes from what failed, not
// from a label: failed requests are RunFailed wherever they show, a budget broken is
// BudgetBroken, a comparison whose samples cannot resolve the gate's change is
// Inconclusive, a client that could not keep up or an engine that served other work makes
// an InvalidRun.
//
// A run's verdict is its Summary, gate.json in the output directory: written when the run
// starts as a failed run, updated as each suite ends, so that a run that never got to
// judge anything (a bad variable, an unreachable endpoint, a killed process) never leaves
// a pass behind, and files of an earlier run are never counted as this run's. Outcomes
// lists the precedence, most severe first: RunFailed, InvalidRun, NotComparable,
// Regression, BudgetBroken, Inconclusive, Pass.
package gate
