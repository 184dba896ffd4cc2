package junit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// Labels the gate reads: LabelGate marks a spec that gates an engine merge (a label to
// select them by), and KindLabelPrefix+kind says what a spec checks, the fallback for the
// kind of a failure no check explains.
const (
	LabelGate       = "gate"
	KindLabelPrefix = "kind:"
)

// CheckEntry names the report entry that carries the gate.Result explaining a spec's
// failure: the toolkit attaches it to a failed spec, from the check that failed it.
const CheckEntry = "anvilbench.check"

// SuiteVerdict is what a suite's report adds to its run's verdict: the checks it judged
// (every spec that ran, whatever its labels), those that failed, and those that held or
// were skipped with a note the verdict must carry (gate.Result.Noted). A failure's outcome
// comes from the check that explains it (CheckEntry); a spec that failed on something
// else takes the outcome of its kind label, else it is a failed run, as are a spec that
// was interrupted, timed out or panicked, and a failed set-up node (BeforeSuite: the
// configuration, the preflight). A suite that did not succeed for a reason of its own
// (Ginkgo's special failure reasons, e.g. an interrupt) with no failed spec to show for it
// is a failed run too.
func SuiteVerdict(report types.Report) (checks int, failed, noted []gate.Failure) {
	suite := report.SuiteDescription
	for _, spec := range report.SpecReports {
		it := spec.LeafNodeType == types.NodeTypeIt
		if it && !spec.State.Is(types.SpecStateSkipped|types.SpecStatePending) {
			checks++
		}
		if r, ok := explained(spec); ok && it && spec.State.Is(types.SpecStatePassed|types.SpecStateSkipped) && r.Noted != "" {
			message := r.Message
			if r.Skipped != "" {
				message = r.Skipped
			}
			noted = append(noted, gate.Failure{Suite: suite, Check: spec.FullText(), Kind: r.Kind, Outcome: gate.Pass, State: r.Noted, Message: message})
		}
		if !spec.State.Is(types.SpecStateFailureStates) || !(it || spec.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes)) {
			continue
		}
		failed = append(failed, failureOf(suite, spec))
	}
	if !report.SuiteSucceeded && len(failed) == 0 {
		reasons := strings.Join(report.SpecialSuiteFailureReasons, "; ")
		if reasons == "" {
			reasons = "the suite did not succeed"
		}
		failed = append(failed, gate.Failure{Suite: suite, Check: "suite " + suite, Kind: gate.KindRun, Outcome: gate.RunFailed,
			State: "failed", Message: reasons})
	}
	return checks, failed, noted
}

// failureOf is one failed spec or set-up node as a gate failure.
func failureOf(suite string, spec types.SpecReport) gate.Failure {
	f := gate.Failure{Suite: suite, Check: spec.FullText(), State: spec.State.String(), Message: spec.Failure.Message,
		Kind: gate.KindRun, Outcome: gate.RunFailed}
	if spec.LeafNodeType != types.NodeTypeIt {
		f.Check = fmt.Sprintf("suite %s set-up (%s)", suite, spec.LeafNodeType)
	}
	if r, ok := explained(spec); ok {
		f.Kind = r.Kind
		if spec.State == types.SpecStateFailed {
			f.Outcome = r.Outcome
		}
	} else if kind := labelValue(spec.Labels(), KindLabelPrefix); kind != "" && spec.LeafNodeType == types.NodeTypeIt {
		f.Kind = gate.Kind(kind)
		if spec.State == types.SpecStateFailed && spec.Failure.FailureNodeType == types.NodeTypeIt {
			f.Outcome = f.Kind.Finding()
		}
	}
	if f.Outcome == gate.Pass {
		f.Outcome = gate.RunFailed
	}
	if spec.State != types.SpecStateFailed {
		f.Message = spec.State.String() + ": " + f.Message
	}
	return f
}

// explained is the check result attached to a spec (the last, if several).
func explained(spec types.SpecReport) (gate.Result, bool) {
	for _, e := range slices.Backward(spec.ReportEntries) {
		if e.Name != CheckEntry {
			continue
		}
		if r, ok := e.Value.GetRawValue().(gate.Result); ok {
			return r, true
		}
		var r gate.Result
		if json.Unmarshal([]byte(e.Value.AsJSON), &r) == nil && r.Outcome != "" {
			return r, true
		}
	}
	return gate.Result{}, false
}

func labelValue(labels []string, prefix string) string {
	for _, l := range labels {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			return v
		}
	}
	return ""
}
