package gate

// Kind is what a check checks. A failure's outcome comes from what failed, not from the
// kind alone (a budget with no figure because every request failed is a failed run), but
// each kind has the outcome its own finding leads to (Kind.Finding).
type Kind string

// Kinds.
const (
	KindRequests   Kind = "requests"   // every request completed
	KindOutput     Kind = "output"     // every response was the controlled output, canaries intact
	KindContext    Kind = "context"    // the engine saw the planned prompt
	KindClient     Kind = "client"     // the client kept up with the workload
	KindEngine     Kind = "engine"     // the engine served the run and nothing else
	KindComparable Kind = "comparable" // the baseline ran the same workload, with enough requests
	KindRegression Kind = "regression" // a metric did not regress from the baseline
	KindBudget     Kind = "budget"     // a budget held
	KindRun        Kind = "run"        // the run itself: configuration, preflight, set-up, an interrupt
)

// Finding is the outcome a check of kind k leads to when it finds what it looks for: a
// broken budget for KindBudget, a regression for KindRegression. An unknown kind leads to
// RunFailed.
func (k Kind) Finding() Outcome {
	switch k {
	case KindClient, KindEngine:
		return InvalidRun
	case KindComparable:
		return NotComparable
	case KindRegression:
		return Regression
	case KindBudget:
		return BudgetBroken
	}
	return RunFailed
}
