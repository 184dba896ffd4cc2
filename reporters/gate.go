package reporters

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// Gate outcomes and their exit codes, most severe first: a CI step can tell "the engine
// got slower" from "the run itself failed" without reading JUnit.
const (
	GateRunFailed     = "run_failed"     // requests failed, output was wrong, or the run never started
	GateNotComparable = "not_comparable" // the baseline ran another workload
	GateRegression    = "regression"     // a metric regressed from the baseline
	GateBudgetBroken  = "budget_broken"  // a budget was broken
	GatePass          = "pass"
)

// GateExitCodes maps an outcome to the exit code of `anvilbench gate-status`.
var GateExitCodes = map[string]int{GatePass: 0, GateRegression: 1, GateNotComparable: 2, GateBudgetBroken: 3, GateRunFailed: 4}

// GateFileName is the gate summary's name under ANVIL_OUT_DIR.
const GateFileName = "gate.json"

// GateSummary is the outcome of the gate specs of a run: every suite of one ginkgo
// invocation, merged.
type GateSummary struct {
	Outcome  string       `json:"outcome"`
	ExitCode int          `json:"exit_code"`
	Specs    int          `json:"specs"`
	Failed   []GateFailed `json:"failed"`
	// Invocation identifies the run (see JUnitOptions.Invocation); SuiteSpecs counts the
	// gate specs judged in each of its suites.
	Invocation string         `json:"invocation"`
	SuiteSpecs map[string]int `json:"suite_specs"`
}

// GateFailed is one gate spec that did not pass.
type GateFailed struct {
	Suite   string `json:"suite"`
	Spec    string `json:"spec"`
	Kind    string `json:"kind"`
	State   string `json:"state"`
	Message string `json:"message"`
	// Outcome is the gate outcome this failure leads to.
	Outcome string `json:"outcome"`
}

// Labels the gate summary reads: LabelGate marks a spec that gates the merge, and
// KindLabelPrefix+kind says what it checks, which decides the outcome its failure leads to.
const (
	LabelGate       = "gate"
	KindLabelPrefix = "kind:"
)

// Gate spec kinds.
const (
	KindRequests   = "requests"   // every request completed
	KindOutput     = "output"     // every response was the controlled output
	KindContext    = "context"    // the engine saw the planned prompt
	KindComparable = "comparable" // the baseline ran the same workload
	KindRegression = "regression" // a metric did not regress from the baseline
	KindBudget     = "budget"     // a budget held
)

// gateKinds ranks the spec kinds by the outcome their failure leads to.
var gateKinds = map[string]string{
	KindRequests: GateRunFailed, KindOutput: GateRunFailed, KindContext: GateRunFailed,
	KindComparable: GateNotComparable, KindRegression: GateRegression, KindBudget: GateBudgetBroken,
}

var gateSeverity = []string{GateRunFailed, GateNotComparable, GateRegression, GateBudgetBroken, GatePass}

// SummarizeGate judges the specs labelled "gate" of report. ok is false when the report
// has none. A gate spec that failed outside its assertions (its setup, a timeout) counts
// as a failed run.
func SummarizeGate(report types.Report) (GateSummary, bool) {
	suite := report.SuiteDescription
	s := GateSummary{Outcome: GatePass, Failed: []GateFailed{}, SuiteSpecs: map[string]int{}}
	found := false
	for _, spec := range report.SpecReports {
		if spec.LeafNodeType != types.NodeTypeIt || !slices.Contains(spec.Labels(), LabelGate) {
			continue
		}
		found = true
		if spec.State == types.SpecStateSkipped || spec.State == types.SpecStatePending {
			continue
		}
		s.Specs++
		if !spec.State.Is(types.SpecStateFailureStates) {
			continue
		}
		kind := labelValue(spec.Labels(), KindLabelPrefix)
		outcome, ok := gateKinds[kind]
		if !ok || spec.State != types.SpecStateFailed || spec.Failure.FailureNodeType != types.NodeTypeIt {
			outcome = GateRunFailed
		}
		s.Failed = append(s.Failed, GateFailed{Suite: suite, Spec: spec.FullText(), Kind: kind, State: spec.State.String(), Message: spec.Failure.Message, Outcome: outcome})
	}
	if found {
		s.SuiteSpecs[suite] = s.Specs
	}
	s.judge()
	return s, found
}

// GateCheck is one check of a gate judged outside Ginkgo (anvilbench judge), with the kind
// a gate spec would carry.
type GateCheck struct {
	Name, Kind string
	Passed     bool
	Message    string
}

// SummarizeChecks judges checks as SummarizeGate judges gate specs, in suite.
func SummarizeChecks(suite string, checks []GateCheck) GateSummary {
	s := GateSummary{Failed: []GateFailed{}, SuiteSpecs: map[string]int{suite: len(checks)}, Specs: len(checks)}
	for _, c := range checks {
		if c.Passed {
			continue
		}
		outcome, ok := gateKinds[c.Kind]
		if !ok {
			outcome = GateRunFailed
		}
		s.Failed = append(s.Failed, GateFailed{Suite: suite, Spec: c.Name, Kind: c.Kind, State: types.SpecStateFailed.String(), Message: c.Message, Outcome: outcome})
	}
	s.judge()
	return s
}

// judge sets the outcome and exit code from the failures.
func (s *GateSummary) judge() {
	s.Outcome = GatePass
	for _, f := range s.Failed {
		if rank(f.Outcome) < rank(s.Outcome) {
			s.Outcome = f.Outcome
		}
	}
	s.ExitCode = GateExitCodes[s.Outcome]
}

// WriteGateSummary writes the gate outcome of report to dst atomically, merged with the
// summary already there from other suites of the same invocation (as WriteJUnit merges);
// a report without gate specs writes nothing.
func WriteGateSummary(report types.Report, dst, invocation string) error {
	s, ok := SummarizeGate(report)
	if !ok {
		return nil
	}
	if invocation == "" {
		invocation = ParentInvocation()
	}
	s.Invocation = invocation
	var prior GateSummary
	if data, err := os.ReadFile(dst); err == nil && json.Unmarshal(data, &prior) == nil && prior.Invocation == invocation {
		suite := report.SuiteDescription
		for name, n := range prior.SuiteSpecs {
			if name != suite {
				s.SuiteSpecs[name] = n
			}
		}
		for _, f := range prior.Failed {
			if f.Suite != suite {
				s.Failed = append(s.Failed, f)
			}
		}
		s.Specs = 0
		for _, n := range s.SuiteSpecs {
			s.Specs += n
		}
		s.judge()
	}
	if err := artifact.WriteJSON(dst, s); err != nil {
		return fmt.Errorf("gate summary: %w", err)
	}
	return nil
}

func rank(outcome string) int {
	for i, o := range gateSeverity {
		if o == outcome {
			return i
		}
	}
	return len(gateSeverity)
}

func labelValue(labels []string, prefix string) string {
	for _, l := range labels {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			return v
		}
	}
	return ""
}
