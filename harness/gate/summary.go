package gate

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// summarySchema is the schema of a run's verdict (gate.json).
const summarySchema = "anvilbench.gate/v2"

// Suite states.
const (
	SuiteRunning  = "running"
	SuiteFinished = "finished"
)

// Summary is a run's verdict, gate.json: every suite of one run (the suites of one
// `ginkgo -r`, or what `anvilbench judge` checked), what each judged, what failed and the
// outcome that wins. It is written when the run starts, as a failed run until a suite
// reports, so a run that never gets to judge anything never leaves a pass behind.
type Summary struct {
	Schema string `json:"schema"`
	RunID  string `json:"run_id"`
	// Outcome and ExitCode are the verdict; Reason is the first failure in one line, ""
	// on a pass.
	Outcome  Outcome `json:"outcome"`
	ExitCode int     `json:"exit_code"`
	Reason   string  `json:"reason"`
	// Checks counts the checks judged (a check skipped or filtered out is not judged);
	// Failed lists those that did not hold, most severe first.
	Checks int       `json:"checks"`
	Failed []Failure `json:"failed"`
	// Noted lists the checks that held or were skipped without judging what they name,
	// each with its note in State: a comparison passed inconclusive (gate_inconclusive=
	// pass), a scenario whose history holds no earlier run (no baseline yet).
	Noted []Failure `json:"noted"`
	// Suites are the run's suites in the order they started.
	Suites []SuiteState `json:"suites"`
	// Variables are the ANVIL_* variables set when the run started (names only);
	// Unused those no spec of the run used so far.
	Variables []string `json:"variables"`
	Unused    []string `json:"unused_variables"`
	// Preflight is the run's check of the endpoint, made once by its first suite.
	Preflight *Preflight `json:"preflight"`
	// Conformance is what the endpoint honoured, per API, when the run held conformance
	// specs; nil otherwise.
	Conformance *Conformance `json:"conformance,omitempty"`
}

// Failure is one check, spec or set-up step that did not hold.
type Failure struct {
	Suite string `json:"suite"`
	// Check names it: the spec's full text, or the set-up step.
	Check   string  `json:"check"`
	Kind    Kind    `json:"kind"`
	Outcome Outcome `json:"outcome"`
	// State is Ginkgo's: failed, panicked, interrupted, timedout...
	State   string `json:"state"`
	Message string `json:"message"`
}

// FirstLine is the failure's message up to its first line break.
func (f Failure) FirstLine() string {
	line, _, _ := strings.Cut(strings.TrimSpace(f.Message), "\n")
	return strings.TrimSpace(line)
}

// SuiteState is one suite of a run.
type SuiteState struct {
	Name       string `json:"name"`
	State      string `json:"state"`
	StartedAt  string `json:"started_at"`
	FinishedAt string `json:"finished_at"`
	Checks     int    `json:"checks"`
	// Uses are the ANVIL_* variables the suite's selected specs read.
	Uses []string `json:"uses"`
}

// Preflight is what the run's preflight found of the endpoint before any scenario.
type Preflight struct {
	OK bool `json:"ok"`
	// Message says what failed, or what was found.
	Message string `json:"message"`
	// Suite made it.
	Suite string `json:"suite"`
	// Model is the model the run requests; Served what GET /models listed.
	Model  string   `json:"model"`
	Served []string `json:"served"`
	// Window is the served context window (0 unknown) and WindowSource where it came from.
	Window       int    `json:"window"`
	WindowSource string `json:"window_source"`
	// Outcome is what a failed preflight comes to.
	Outcome Outcome `json:"outcome"`
}

// Judge sets the verdict from what the summary holds: the worst outcome of Failures.
func (s *Summary) Judge() {
	s.Schema = summarySchema
	if s.Failed == nil {
		s.Failed = []Failure{}
	}
	if s.Noted == nil {
		s.Noted = []Failure{}
	}
	slices.SortStableFunc(s.Failed, bySeverity)
	s.Checks = 0
	for _, st := range s.Suites {
		s.Checks += st.Checks
	}
	s.Unused = s.unused()
	all := s.Failures()
	s.Outcome, s.Reason = Pass, ""
	if len(all) > 0 {
		s.Outcome = all[0].Outcome
		s.Reason = all[0].Check + ": " + all[0].FirstLine()
		if n := len(all) - 1; n > 0 {
			s.Reason += fmt.Sprintf(" (and %d more)", n)
		}
	}
	s.ExitCode = s.Outcome.ExitCode()
}

// Failures are every failure of the run, most severe first: the checks that did not hold
// (Failed), and those of the run itself: a suite that started and has not finished, a set
// ANVIL_* variable no spec used, and a run that judged no check at all.
func (s Summary) Failures() []Failure {
	all := slices.Clone(s.Failed)
	checks := 0
	for _, st := range s.Suites {
		checks += st.Checks
		if st.State != SuiteFinished {
			all = append(all, Failure{Suite: st.Name, Check: "suite " + st.Name, Kind: KindRun, Outcome: RunFailed, State: st.State,
				Message: fmt.Sprintf("suite %s started at %s and has not finished: it is still running, or it was killed before it could report", st.Name, st.StartedAt)})
		}
	}
	for _, v := range s.unused() {
		all = append(all, Failure{Check: v, Kind: KindRun, Outcome: RunFailed, State: "unused",
			Message: fmt.Sprintf("%s is set but no spec of this run used it: what it describes did not run (check the suites and the label filter, or unset it)", v)})
	}
	if checks == 0 && len(all) == 0 {
		all = append(all, Failure{Check: "the run", Kind: KindRun, Outcome: RunFailed, State: "empty",
			Message: "no check ran: the suites, or the label filter, selected no spec; a run that judged nothing is not a pass"})
	}
	slices.SortStableFunc(all, bySeverity)
	return all
}

func bySeverity(a, b Failure) int { return a.Outcome.severity() - b.Outcome.severity() }

// unused are the set variables no suite used, sorted.
func (s Summary) unused() []string {
	used := map[string]bool{}
	for _, st := range s.Suites {
		for _, u := range st.Uses {
			used[u] = true
		}
	}
	var out []string
	for _, v := range s.Variables {
		if !used[v] {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// Suite returns the state of the suite named name, adding it (running, started now) if
// the summary has none.
func (s *Summary) Suite(name string) *SuiteState {
	for i := range s.Suites {
		if s.Suites[i].Name == name {
			return &s.Suites[i]
		}
	}
	s.Suites = append(s.Suites, SuiteState{Name: name, State: SuiteRunning, StartedAt: now()})
	return &s.Suites[len(s.Suites)-1]
}

// FinishSuite records what suite judged: checks judged, the failures among them and the
// checks noted (Noted), replacing any earlier record of the suite in this run.
func (s *Summary) FinishSuite(suite string, checks int, failed, noted []Failure) {
	st := s.Suite(suite)
	st.State, st.FinishedAt, st.Checks = SuiteFinished, now(), checks
	ofSuite := func(f Failure) bool { return f.Suite == suite }
	s.Failed = append(slices.DeleteFunc(s.Failed, ofSuite), failed...)
	s.Noted = append(slices.DeleteFunc(s.Noted, ofSuite), noted...)
	s.Judge()
}

func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }
