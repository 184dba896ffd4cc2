package matchers

import (
	"errors"

	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/checklog"
)

// Check turns any gate check into a matcher: the run is judged as a gated scenario's spec
// judges it, with the same message, and a failure is classified by the check's outcome in
// the run's gate verdict (gate.json). The matchers of this package are checks of package
// gate made matchers this way.
//
//	Expect(run).To(Check(gate.ClientKeptUp(gate.ClientBounds{MaxCPUPct: 80})))
func Check(c gate.Check) types.GomegaMatcher { return named("Check("+c.Name+")", c) }

// named is c as a matcher that names itself name in its errors.
func named(name string, c gate.Check) *checkMatcher { return &checkMatcher{name: name, check: c} }

// checkMatcher judges with a gate check. A judgement with nothing to judge (no samples, a
// baseline of another workload) is an error, so it fails negated too. The judgement an
// assertion fails on is recorded for the toolkit, which classifies the failed spec by it:
// where Gomega asks for the failure message, or fails on the error.
type checkMatcher struct {
	name   string
	check  gate.Check
	result gate.Result
}

func (m *checkMatcher) Match(actual any) (bool, error) {
	a, err := benchmarkOf(m.name, actual)
	if err != nil {
		return false, err
	}
	m.result = m.check.Judge(a)
	if !m.result.Passed() && !m.result.Judged {
		checklog.Failing(m.result)
		return false, errors.New(m.name + ": " + m.result.Message)
	}
	return m.result.Passed(), nil
}

func (m *checkMatcher) FailureMessage(any) string {
	checklog.Failing(m.result)
	return m.result.Message
}

func (m *checkMatcher) NegatedFailureMessage(any) string {
	return m.result.Message + " (expected the check to fail: " + m.check.Name + ")"
}
