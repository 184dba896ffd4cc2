package reporters

import (
	"fmt"
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

// GateSummary is the outcome of the gate specs of a run.
type GateSummary struct {
	Outcome  string       `json:"outcome"`
	ExitCode int          `json:"exit_code"`
	Specs    int          `json:"specs"`
	Failed   []GateFailed `json:"failed"`
}

// GateFailed is one gate spec that did not pass.
type GateFailed struct {
	Spec    string `json:"spec"`
	Kind    string `json:"kind"`
	State   string `json:"state"`
	Message string `json:"message"`
}

// gateKinds ranks the spec kinds (Label "kind:<kind>") by the outcome they lead to.
var gateKinds = map[string]string{
	"requests": GateRunFailed, "output": GateRunFailed,
	"comparable": GateNotComparable, "regression": GateRegression, "budget": GateBudgetBroken,
}

var gateSeverity = []string{GateRunFailed, GateNotComparable, GateRegression, GateBudgetBroken, GatePass}

// SummarizeGate judges the specs labelled "gate" of report. ok is false when the report
// has none. A gate spec that failed outside its assertions (its setup, a timeout) counts
// as a failed run.
func SummarizeGate(report types.Report) (GateSummary, bool) {
	s := GateSummary{Outcome: GatePass, Failed: []GateFailed{}}
	found := false
	for _, spec := range report.SpecReports {
		if spec.LeafNodeType != types.NodeTypeIt || !slices.Contains(spec.Labels(), "gate") {
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
		kind := labelValue(spec.Labels(), "kind:")
		outcome, ok := gateKinds[kind]
		if !ok || spec.State != types.SpecStateFailed || spec.Failure.FailureNodeType != types.NodeTypeIt {
			outcome = GateRunFailed
		}
		s.Failed = append(s.Failed, GateFailed{Spec: spec.FullText(), Kind: kind, State: spec.State.String(), Message: spec.Failure.Message})
		if rank(outcome) < rank(s.Outcome) {
			s.Outcome = outcome
		}
	}
	s.ExitCode = GateExitCodes[s.Outcome]
	return s, found
}

// WriteGateSummary writes the gate outcome of report to dst atomically; a report without
// gate specs writes nothing.
func WriteGateSummary(report types.Report, dst string) error {
	s, ok := SummarizeGate(report)
	if !ok {
		return nil
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
