package gate

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/internal/compare"
	"github.com/anvilbench/anvilbench/internal/fields"
)

// Defaults of a Spec, the ANVIL_* variables and the keys of a scenarios file.
const (
	// defaultBy is the relative change of a gated metric that counts as a regression: 5%.
	defaultBy = 0.05
	// defaultContextTolerance is how far the prompt tokens the engine counted may be from
	// each request's plan: 2%.
	defaultContextTolerance = 0.02
	// defaultOnInconclusive fails a comparison that cannot resolve the gate's change.
	defaultOnInconclusive = InconclusiveFail
	// defaultMaxClientCPUPct bounds the CPU the client wanted over the request phase,
	// running or waiting for a core, in percent of the cores it may use (ClientBounds).
	defaultMaxClientCPUPct = 90.0
	// defaultMaxStartLagPct bounds the share of the requests' time spent waiting on the
	// client to start them (ClientBounds).
	defaultMaxStartLagPct = 5.0
)

// defaultMetrics are the metrics judged against a baseline when none are named.
func defaultMetrics() metricList { return metricList{"tpot_p50_ms", "ttft_p50_ms"} }

// InconclusivePolicy is what a baseline comparison that cannot resolve a change of the
// gate's size comes to.
type InconclusivePolicy string

// Inconclusive policies.
const (
	InconclusiveFail InconclusivePolicy = "fail" // the gate fails, outcome Inconclusive (fail closed)
	InconclusivePass InconclusivePolicy = "pass" // the check passes, its message saying it was inconclusive
)

// Choices lists the policies.
func (InconclusivePolicy) Choices() []string {
	return []string{string(InconclusiveFail), string(InconclusivePass)}
}

// Valid reports whether p is a known policy; "" is valid and means the default.
func (p InconclusivePolicy) Valid() bool {
	return p == "" || p == InconclusiveFail || p == InconclusivePass
}

// ClientBounds are how far the client may fall behind before a run is an invalid run: its
// figures measured the harness, not the engine. A zero field takes its default.
type ClientBounds struct {
	// MaxCPUPct bounds the CPU the client process wanted over the request phase: its CPU
	// time plus the time its threads waited, runnable, for a core (Linux; elsewhere its CPU
	// time alone), in percent of the wall time of the cores it may use (its CPU affinity, at
	// most GOMAXPROCS). Near 100% it was saturated, by its own work or by another process
	// on its cores. An in-process engine counts too: it shares those cores.
	MaxCPUPct float64 `key:"max_client_cpu_pct" range:"(0,)" default:"90"`
	// MaxStartLagPct bounds artifact.ClientOverhead's StartLagSharePct: the client's own
	// delay before starting each request (its worker freed by the previous response's last
	// bytes in a closed loop, its scheduled instant in an open loop, the release of a
	// burst), as a share of the time the requests were meant to be in flight.
	MaxStartLagPct float64 `key:"max_start_lag_pct" range:"(0,100]" default:"5"`
}

// withDefaults fills the zero bounds.
func (b ClientBounds) withDefaults() ClientBounds {
	if b.MaxCPUPct == 0 {
		b.MaxCPUPct = defaultMaxClientCPUPct
	}
	if b.MaxStartLagPct == 0 {
		b.MaxStartLagPct = defaultMaxStartLagPct
	}
	return b
}

// ClientKeptUp checks that the client kept up with the workload (ClientBounds): a run in
// which it wanted more CPU than it had, or held requests back, is an invalid run, whatever
// its figures say.
func ClientKeptUp(bounds ClientBounds) Check {
	bounds = bounds.withDefaults()
	return Check{Name: "was measured by a client that kept up", Kind: KindClient, judge: func(a *artifact.Benchmark) Result {
		if a.Extension == nil {
			return skipped("the artifact records no client overhead (not written by anvilbench)")
		}
		c := a.Extension.ClientOverhead
		running, waiting := value(c.CPUSharePct), value(c.CPUWaitPct)
		demand := running + waiting
		cpu := fmt.Sprintf("%.0f%% running", running)
		if c.CPUWaitPct != nil {
			cpu += fmt.Sprintf(", %.0f%% waiting for a core", waiting)
		}
		lagShare := value(c.StartLagSharePct)
		lag := fmt.Sprintf("start lag p99 %.2fms, max %.2fms over %d requests", value(c.StartLagP99Ms), value(c.StartLagMaxMs), c.StartLagSamples)
		var late []string
		if demand > bounds.MaxCPUPct {
			late = append(late, fmt.Sprintf("the client wanted %.0f%% of the %s it may use during the request phase (%s; bound %s%%): it could not keep up, and the figures include its delays",
				demand, cores(c.Cores), cpu, trim(bounds.MaxCPUPct)))
		}
		if lagShare > bounds.MaxStartLagPct {
			late = append(late, fmt.Sprintf("the client held requests back %.1f%% of the time they were meant to be in flight (%s; bound %s%%): the engine saw less load than planned",
				lagShare, lag, trim(bounds.MaxStartLagPct)))
		}
		if len(late) > 0 {
			return found(InvalidRun, strings.Join(late, "; "))
		}
		return held(fmt.Sprintf("the client wanted %.0f%% of the %s it may use (%s) and held requests back %.2f%% of their time (%s)",
			demand, cores(c.Cores), cpu, lagShare, lag))
	}}
}

// value is a nullable figure, 0 when null.
func value(f *artifact.Float) float64 {
	if f == nil {
		return 0
	}
	return float64(*f)
}

func cores(n int) string {
	if n == 1 {
		return "1 core"
	}
	return fmt.Sprintf("%d cores", n)
}

// trim prints a bound as written: 2, 0.5, 90.
func trim(f float64) string { return fmt.Sprintf("%g", f) }

// Spec is everything that judges one scenario's run: its budgets, its baseline and how it
// is compared, the context tolerance and the client's bounds.
type Spec struct {
	// Budgets must all hold.
	Budgets []budget.Budget
	// BaselinePath and Baseline are the artifact the run must not regress from; empty and
	// nil without one. History are earlier runs of the scenario to judge it against in its
	// place (the run-to-run spread measured from them; BaselinePath then names the directory
	// or pattern they came from). Interleaved says the run is measured interleaved with a
	// baseline build, whose artifact of the run becomes Baseline once it ran.
	BaselinePath string
	Baseline     *artifact.Benchmark
	History      []*artifact.Benchmark
	Interleaved  bool
	// Searched says the run is a search for the highest load within the budgets (its
	// capacity): against a baseline its capacity is judged, not its figures at one load.
	Searched bool
	// Metrics are judged against the baseline (DefaultMetrics when nil), with Comparison's
	// By, AllowMismatch and OnInconclusive.
	Metrics metricList `key:"gate_metrics" default:"tpot_p50_ms,ttft_p50_ms"`
	Comparison
	// ContextTolerance bounds each request's counted prompt tokens relative to its plan;
	// 0 is the default, 0.02.
	ContextTolerance float64 `key:"context_tolerance" range:"(0,1)" default:"0.02"`
	// Client bounds the client's own lag.
	Client ClientBounds
	// GPU bounds what the engine's GPUs may show (throttle, clocks).
	GPU GPUBounds
	// steadyBounds bound the engine's drift over the run: MaxDriftPct, AllowDrift.
	steadyBounds
}

// DefaultSpec is a Spec with every default (its tags'), no budget and no baseline.
func DefaultSpec() Spec {
	var s Spec
	if err := fields.Defaults(&s); err != nil {
		panic(err) // the tags are the program's own
	}
	return s
}

// Validate reports every field of the spec out of its range or its choices, and a gated
// metric no comparison can judge, at once (errors.Join of *fields.FieldError, named by the
// Go fields). Budgets and the baseline are checked where they are read.
func (s Spec) Validate() error {
	errs := fields.Problems(&s, nil)
	for _, m := range s.Metrics {
		if err := compare.CheckMetric(m); err != nil {
			errs = append(errs, &fields.FieldError{Field: "Metrics", Problem: fmt.Sprintf("%q: %v", m, err)})
		}
	}
	return errors.Join(errs...)
}

// metricList is a list of metrics keys, written as text "tpot_p50_ms,ttft_p50_ms".
type metricList []string

// String writes the list as UnmarshalText reads it.
func (l metricList) String() string { return strings.Join(l, ",") }

// MarshalText writes the list as String does.
func (l metricList) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a comma-separated list, blanks around names ignored.
func (l *metricList) UnmarshalText(text []byte) error {
	*l = nil
	for m := range strings.SplitSeq(string(text), ",") {
		if m = strings.TrimSpace(m); m != "" {
			*l = append(*l, m)
		}
	}
	return nil
}

// UnmarshalJSON reads the list as a scenarios file may write it: the text
// "tpot_p50_ms,ttft_p50_ms", or a list of keys as budgets are written.
func (l *metricList) UnmarshalJSON(data []byte) error {
	var keys []string
	if err := json.Unmarshal(data, &keys); err == nil {
		return l.UnmarshalText([]byte(strings.Join(keys, ",")))
	}
	var text string
	if err := json.Unmarshal(data, &text); err != nil {
		return err
	}
	return l.UnmarshalText([]byte(text))
}

// Checks are the spec's checks of a run, in the order a gated container runs them:
//
//   - every request completed (NoFailedRequests);
//   - every response was exactly the requested words, under the strict policy
//     (ControlledOutput; skipped under observe);
//   - the answers were streamed, not delivered at once (StreamedAnswers; skipped when no
//     answer was long enough to tell);
//   - one model served them (OneServedModel; skipped when no response named one);
//   - the engine thought, or did not, as asked (ThinkingAsAsked; skipped without a mode);
//   - the engine counted each request's planned prompt tokens within the tolerance
//     (PlannedContext; skipped when it reported none);
//   - the client kept up (ClientKeptUp);
//   - the engine served the run alone (EngineToItself; skipped without its metrics);
//   - its GPUs did not throttle and held their clocks (GPUHeldClocks; skipped, as unknown,
//     without GPU telemetry);
//   - a tool-call or JSON-schema run's responses held a valid structure (ValidToolCalls,
//     ValidJSONAnswers; skipped for other outputs);
//   - a trace or sessions found cached what they share (PlannedPrefixCache; skipped for
//     a workload that plans no sharing);
//   - one check per budget (MeetBudget);
//   - with a baseline, that it ran the same workload (SameWorkload, unless AllowMismatch)
//     and one check per metric that it did not regress (NoRegression).
func (s Spec) Checks() []Check {
	if s.ContextTolerance == 0 {
		s.ContextTolerance = defaultContextTolerance
	}
	checks := []Check{
		NoFailedRequests(),
		when(ControlledOutput(), func(a *artifact.Benchmark) string {
			if a.ControlledOutputPolicy != "strict" {
				return "the controlled-output policy is " + a.ControlledOutputPolicy + ": adherence is recorded, not gated"
			}
			return ""
		}),
		StreamedAnswers(),
		OneServedModel(),
		ThinkingAsAsked(),
		when(PlannedContext(s.ContextTolerance), func(a *artifact.Benchmark) string {
			if a.Extension != nil && a.Extension.ContextAccuracy.Samples == 0 {
				return "the engine reported no usage.prompt_tokens: what context it saw cannot be checked"
			}
			return ""
		}),
		ClientKeptUp(s.Client),
		EngineToItself(),
		stoppedWhatWasLeft(),
		imagesByRule(),
		StartedWarm(),
		GPUHeldClocks(s.GPU, s.Baseline),
		heldSteady(s.steadyBounds),
		when(ValidToolCalls(), onlyFor("tool_call")),
		when(ValidJSONAnswers(), onlyFor("json_schema")),
		when(PlannedPrefixCache(), func(a *artifact.Benchmark) string {
			if !plansSharing(a) {
				return "the workload plans no prefix sharing"
			}
			return ""
		}),
	}
	for _, b := range s.Budgets {
		checks = append(checks, MeetBudget(b))
	}
	if !s.compares() {
		return checks
	}
	if s.Searched {
		return append(checks, capacityHeld(Against{Baseline: s.Baseline, History: s.History}, s.OnMain))
	}
	var compared []Check
	if !s.AllowMismatch {
		compared = append(compared, SameWorkload(s.Reference()))
	}
	against := Against{Baseline: s.Baseline, History: s.History, Metrics: len(s.metrics())}
	for _, m := range s.metrics() {
		compared = append(compared, NoRegression(against, m, s.Comparison))
	}
	if s.noBaselineYet() {
		// A scenario new to its history runs, unjudged, and starts it: the others of the
		// run are judged, and the verdict names this one.
		why := fmt.Sprintf("no baseline yet: %s holds no earlier run of this scenario; this run is the first of its history (anvilbench baseline records it on main)", s.BaselinePath)
		for i, c := range compared {
			compared[i] = Check{Name: c.Name, Kind: c.Kind, judge: func(*artifact.Benchmark) Result {
				r := skipped(why)
				r.Noted = notedNoBaseline
				return r
			}}
		}
	}
	return append(checks, compared...)
}

// HistoryReach says, before any request, what judging the run against its history can
// resolve where that falls short of the gate: "main's history of 3 runs resolves tpot p50
// to 38.2% at best, not the 5.0% gate: a history of 9 runs would ...". "" without a
// history of three runs or more, for a run of main's own (gate_on_main), and when the
// history resolves the gate on every metric.
func (s Spec) HistoryReach() string {
	if len(s.History) == 0 || s.OnMain || s.Baseline != nil || s.Interleaved {
		return ""
	}
	by := cmp.Or(s.By, defaultBy)
	var short []string
	runs, most := 0, 0
	for _, m := range s.metrics() {
		v := compare.HistoryReach(s.History, m, by, compare.Options{Metrics: len(s.metrics())})
		if v.Outcome != compare.Inconclusive {
			continue
		}
		runs = v.HistoryLength
		name := m
		if f, ok := artifact.LookupFigure(m); ok {
			name = f.Label()
		}
		short = append(short, fmt.Sprintf("%s to %s", name, percent(v.Detectable)))
		if v.HistoryRunsNeeded == 0 {
			most = -1
		} else if most >= 0 {
			most = max(most, v.HistoryRunsNeeded)
		}
	}
	if len(short) == 0 {
		return ""
	}
	would := fmt.Sprintf("a history of %d runs would, or interleaved pairs against main's build (ANVIL_BASELINE_URL)", most)
	if most < 0 {
		would = "no history can, one run's own spread being wider than the gate: interleave pairs against main's build (ANVIL_BASELINE_URL)"
	}
	then := "a smaller change will be inconclusive (exit 5)"
	if s.OnInconclusive == InconclusivePass {
		then = "a smaller change will pass inconclusive, noted (gate_inconclusive=pass)"
	}
	return fmt.Sprintf("its history of %d runs resolves %s at best, not the %s gate: %s; %s",
		runs, strings.Join(short, " and "), percent(by), would, then)
}

// noBaselineYet reports a baseline that is a history holding no earlier run of the
// scenario.
func (s Spec) noBaselineYet() bool {
	return s.BaselinePath != "" && s.Baseline == nil && len(s.History) == 0 && !s.Interleaved
}

// compares reports whether the spec judges the run against a baseline, a history or an
// interleaved baseline build.
func (s Spec) compares() bool {
	return s.BaselinePath != "" || s.Baseline != nil || len(s.History) > 0 || s.Interleaved
}

// Reference is the run the workload is held to (SameWorkload): the baseline, else the
// history's latest run; nil for an interleaved run before it ran.
func (s Spec) Reference() *artifact.Benchmark {
	if s.Baseline != nil || len(s.History) == 0 {
		return s.Baseline
	}
	return slices.MaxFunc(s.History, func(a, b *artifact.Benchmark) int { return cmp.Compare(a.StartedAtUnixNs, b.StartedAtUnixNs) })
}

// BaselineRef is what a run's artifact keeps of the spec's baseline for its report: the
// stored run's figures, or a history's runs and levels; nil for an interleaved run (its
// baseline build's artifact is the reference) and without a baseline.
func (s Spec) BaselineRef() *artifact.BaselineRef {
	var ref *artifact.BaselineRef
	switch {
	case s.Baseline != nil:
		ref = s.Baseline.BaselineRef(s.BaselinePath)
	case len(s.History) > 0:
		ref = compare.HistoryRef(s.BaselinePath, s.History)
	default:
		return nil
	}
	ref.GateBy = cmp.Or(s.By, defaultBy)
	return ref
}

func (s Spec) metrics() metricList {
	if s.Metrics == nil {
		return defaultMetrics()
	}
	return s.Metrics
}

// onlyFor skips a structured-output check on a run of another output, and under observe,
// where adherence is recorded, not gated.
func onlyFor(output string) func(*artifact.Benchmark) string {
	return func(a *artifact.Benchmark) string {
		if a.Extension == nil || a.Extension.StructuredOutput == nil || a.Extension.StructuredOutput.Output != output {
			return "the run asked for no " + output + " output"
		}
		if a.ControlledOutputPolicy != "strict" {
			return "the controlled-output policy is " + a.ControlledOutputPolicy + ": the structure is recorded, not gated"
		}
		return ""
	}
}

// plansSharing reports whether some request of a has an expected prefix-cache range.
func plansSharing(a *artifact.Benchmark) bool {
	if a.Extension == nil {
		return false
	}
	for _, s := range a.Extension.Timeline {
		if s.ExpectedCachedMin != nil {
			return true
		}
	}
	return false
}

// inBlocks is " in N blocks" for a run of more than one block.
func inBlocks(blocks int) string {
	if blocks < 2 {
		return ""
	}
	return fmt.Sprintf(" in %d blocks", blocks)
}

// when is c skipped on a run for which skip gives a reason.
func when(c Check, skip func(*artifact.Benchmark) string) Check {
	judge := c.judge
	c.judge = func(a *artifact.Benchmark) Result {
		if why := skip(a); why != "" {
			return skipped(why)
		}
		return judge(a)
	}
	return c
}

// Refusals are what makes the spec unable to judge a run of requests requests in all, in
// blocks blocks, found before any request is sent, each a failed Result: a baseline with fewer
// requests than a comparison needs, or a history with fewer runs than a spread needs
// (NotComparable), and a budget whose figure, or whose percentile bound in one block,
// needs more samples than the run can have (RunFailed: a configuration error).
func (s Spec) Refusals(requests, blocks int) []Result {
	var out []Result
	for _, b := range s.Budgets {
		if s.Searched {
			break // a search sizes each probe to its budgets
		}
		need := b.RequiredSamples()
		switch bound := b.BoundSamples(); {
		case requests > 0 && need > requests:
			out = append(out, Result{Check: "meets the budget " + b.String(), Kind: KindBudget, Outcome: RunFailed,
				Message: fmt.Sprintf("budget %s needs %d samples but the scenario sends %d requests%s: send more (requests, or repeats: the figure covers every block), or set @min=%d to judge fewer", b, need, requests, inBlocks(blocks), requests)})
		case requests > 0 && blocks < 2 && bound > requests:
			out = append(out, Result{Check: "meets the budget " + b.String(), Kind: KindBudget, Outcome: RunFailed,
				Message: fmt.Sprintf("budget %s needs %d samples for its %s but the scenario sends %d requests in one block: send %d or more, judge the point figure (no @%s), or run repeats of 2 or more (the bound is then over the blocks)",
					b, bound, b.Bound, requests, bound, b.Bound)})
		}
	}
	if s.Baseline == nil {
		return out
	}
	for _, m := range s.metrics() {
		if err := compare.Sufficient(s.Baseline, m); err != nil {
			out = append(out, Result{Check: NoRegression(Against{Baseline: s.Baseline}, m, s.Comparison).Name, Kind: KindComparable, Outcome: NotComparable,
				Message: fmt.Sprintf("not comparable: baseline %s: %v", s.BaselinePath, err)})
		}
	}
	return out
}
