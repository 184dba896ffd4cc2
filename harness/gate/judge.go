package gate

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/internal/compare"
)

// NoFailedRequests checks that every request of the run succeeded. Its message counts the
// failures by type and quotes the first, e.g. "2 of 6 requests failed (1 http_error,
// 1 stall); first: request 3 http_error: HTTP 503 ...".
func NoFailedRequests() Check {
	return Check{Name: "completes every request", Kind: KindRequests, judge: func(a *artifact.Benchmark) Result {
		switch {
		case a.Requests == 0:
			return unjudged(RunFailed, "the run attempted no requests")
		case len(a.Failures) > 0:
			f := a.Failures[0]
			msg := fmt.Sprintf("%d of %d requests failed (%s); first: request %d %s: %s",
				len(a.Failures), a.Requests, countByType(a.Failures), f.RequestIndex, f.ErrorType, f.ErrorMessage)
			mismatched := 0
			for _, f := range a.Failures {
				if f.ErrorType == "controlled_output_mismatch" {
					mismatched++
				}
			}
			if 2*mismatched > a.Requests {
				msg += "; " + notFollowed
			}
			return found(RunFailed, msg)
		case a.Completed+abandoned(a) != a.Requests:
			return found(RunFailed, fmt.Sprintf("%d of %d requests completed and none is recorded as failed", a.Completed, a.Requests))
		case abandoned(a) > 0:
			return held(fmt.Sprintf("all %d requests the client did not leave succeeded (%d left as planned)", a.Completed, abandoned(a)))
		}
		return held(fmt.Sprintf("all %d requests succeeded", a.Requests))
	}}
}

// notFollowed is what a run in which most answers missed the requested words suggests: a
// model that cannot follow the instruction (a base model, random weights) is no engine
// regression to hunt, and observe measures it.
const notFollowed = "most answers did not follow the instruction: if this model cannot, measure it with " +
	"ANVIL_CONTROLLED_OUTPUT_POLICY=observe (the scenario key controlled_output_policy), which keeps their timings and records the words"

// countByType renders "2 http_error, 1 stall", most frequent first.
func countByType(failures []artifact.Failure) string {
	counts := map[string]int{}
	for _, f := range failures {
		counts[f.ErrorType]++
	}
	types := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%d %s", counts[t], t)
	}
	return strings.Join(parts, ", ")
}

// shownMisses is the number of per-request misses a message lists.
const shownMisses = 5

// listMisses lists per-request misses one per indented line, the first shownMisses and a
// count of the rest.
func listMisses(misses []string) string {
	shown := misses
	if len(shown) > shownMisses {
		shown = append(shown[:shownMisses:shownMisses], fmt.Sprintf("... and %d more", len(misses)-shownMisses))
	}
	return strings.Join(shown, "\n  ")
}

// ControlledOutput checks that every response was exactly the requested code words with a
// complete capture (strict adherence), whatever the run's own policy. A run that asked for
// no controlled output has nothing to judge.
func ControlledOutput() Check {
	return Check{Name: "answers with exactly the requested words", Kind: KindOutput, judge: func(a *artifact.Benchmark) Result {
		if a.ResponseWords <= 0 {
			return unjudged(RunFailed, fmt.Sprintf("the run asked for no controlled output (response_words %d)", a.ResponseWords))
		}
		var misses []string
		wrongWords := 0
		check := func(index int, co *artifact.ControlledOutput) {
			switch {
			case co == nil:
				misses = append(misses, fmt.Sprintf("request %d: not scored", index))
			case !co.CaptureComplete:
				misses = append(misses, fmt.Sprintf("request %d: capture truncated, adherence unobservable", index))
			case co.ExactAdherence == nil || !*co.ExactAdherence:
				wrongWords++
				misses = append(misses, fmt.Sprintf("request %d: %d code words and %d other words", index, co.ObservedCodeWords, co.ObservedExtraWords))
			}
		}
		observed := map[int]bool{}
		for _, row := range a.RequestTimings {
			observed[row.RequestIndex] = true
			check(row.RequestIndex, row.ControlledOutput)
		}
		for _, f := range a.Failures {
			observed[f.RequestIndex] = true
			if f.ControlledOutput == nil {
				misses = append(misses, fmt.Sprintf("request %d: no scored response (%s)", f.RequestIndex, f.ErrorType))
				continue
			}
			check(f.RequestIndex, f.ControlledOutput)
		}
		if len(observed)+abandoned(a) < a.Requests {
			misses = append(misses, fmt.Sprintf("%d requests are in neither request_timings nor failures", a.Requests-len(observed)-abandoned(a)))
		}
		if len(misses) > 0 {
			msg := fmt.Sprintf("%d of %d responses missed exactly %d code words:\n  %s", len(misses), a.Requests, a.ResponseWords, listMisses(misses))
			if 2*wrongWords > a.Requests {
				// Most answers, not a few: the model does not follow the instruction (a base
				// model, random weights), which is no regression of the engine to hunt.
				msg += "\n  " + notFollowed
			}
			return found(RunFailed, msg)
		}
		return held(fmt.Sprintf("all %d responses gave exactly %d code words", a.Requests, a.ResponseWords))
	}}
}

// PlannedContext checks that the prompt tokens the engine counted (usage.prompt_tokens)
// are within a relative tolerance of every request's planned context, over every
// response that reported them, failed requests included (an engine that truncated a
// prompt and then failed still did not see the plan). The message leads with what a large
// shortfall means, e.g. "the engine counted 16384 prompt tokens for a 64000-token plan on
// every request: it truncated the prompt; ...".
func PlannedContext(tolerance float64) Check {
	name := fmt.Sprintf("is served the planned context within %s", percent(tolerance))
	return Check{Name: name, Kind: KindContext, judge: func(a *artifact.Benchmark) Result {
		samples := contextSamples(a)
		if len(samples) == 0 {
			return unjudged(RunFailed, "no request reported usage.prompt_tokens: what context the engine saw cannot be checked")
		}
		worst, worstIndex := -1.0, 0
		for _, s := range samples {
			if e := math.Abs(float64(s.counted-s.planned)) / float64(s.planned); e > worst {
				worst, worstIndex = e, s.index
			}
		}
		method, diagnosis := "unknown", ""
		if x := a.Extension; x != nil {
			method, diagnosis = x.Calibration.Method, x.ContextAccuracy.Diagnosis
			if x.ContextAccuracy.TruncatedAt != nil {
				diagnosis += " (set ANVIL_MAX_CONTEXT_TOKENS, or max_context_tokens of the scenario)"
			}
		}
		msg := fmt.Sprintf("prompt tokens are %.2f%% off their planned size at worst (request %d) over %d requests, calibration %s (tolerance %.2f%%)",
			100*worst, worstIndex, len(samples), method, 100*tolerance)
		if worst <= tolerance {
			return held(msg)
		}
		if diagnosis != "" {
			msg = diagnosis + "; " + msg
		}
		return found(RunFailed, msg)
	}}
}

// contextSample is one request's planned and counted prompt tokens.
type contextSample struct{ index, planned, counted int }

func contextSamples(a *artifact.Benchmark) []contextSample {
	var out []contextSample
	if a.Extension != nil && len(a.Extension.Timeline) > 0 {
		for _, s := range a.Extension.Timeline {
			if text, ok := s.TextTokens(); ok && s.PlannedContextTokens > 0 {
				out = append(out, contextSample{s.RequestIndex, s.PlannedContextTokens, text})
			}
		}
		return out
	}
	for _, r := range a.RequestTimings { // an artifact without the extension: successes only
		if r.PromptTokens != nil && r.PlannedContextTokens > 0 {
			out = append(out, contextSample{r.RequestIndex, r.PlannedContextTokens, *r.PromptTokens})
		}
	}
	return out
}

// MeetBudget checks a budget (budget.Judge): "tpot p50 6.31ms exceeds budget 6.00ms over
// 6 samples" is a broken budget. A figure missing or standing on too few samples because
// requests failed is a failed run; too few samples otherwise is inconclusive; a figure the
// run cannot have (no usage from the engine) is a failed run.
func MeetBudget(b budget.Budget) Check {
	return Check{Name: "meets the budget " + b.String(), Kind: KindBudget, judge: func(a *artifact.Benchmark) Result {
		v := budget.Judge(b, a)
		switch {
		case v.Err == nil && v.Pass:
			return held(v.Message())
		case v.Err == nil:
			msg := v.Message()
			if split := compare.Composition(b.Metric, a); split != "" {
				msg += "; " + split
			}
			return found(BudgetBroken, msg)
		case a.Failed > 0:
			return unjudged(RunFailed, fmt.Sprintf("budget %s: %v (%d of %d requests failed)", b, v.Err, a.Failed, a.Requests))
		case errors.Is(v.Err, budget.ErrInsufficientSamples):
			return unjudged(Inconclusive, fmt.Sprintf("budget %s: %v", b, v.Err))
		}
		return unjudged(RunFailed, fmt.Sprintf("budget %s: %v", b, v.Err))
	}}
}

// SameWorkload checks that the run measured the baseline's workload (artifact.Differences:
// protocol, model, context plan, concurrency, words, max_tokens, cache mode, thinking,
// sampling), naming every differing field: "not the baseline's workload: concurrency 1
// vs 20; max_tokens 512 vs 64".
func SameWorkload(baseline *artifact.Benchmark) Check {
	return Check{Name: "runs the baseline's workload", Kind: KindComparable, judge: func(a *artifact.Benchmark) Result {
		if baseline == nil {
			return unjudged(RunFailed, "no baseline artifact")
		}
		if diffs := artifact.Differences(baseline, a); len(diffs) > 0 {
			return found(NotComparable, "not the baseline's workload: "+compare.Explain(diffs))
		}
		return held("the run measured the baseline's workload")
	}}
}

// Comparison is how NoRegression compares a metric with its baseline.
type Comparison struct {
	// By is the smallest relative change that must be caught (0.05 is 5%); 0 is DefaultBy.
	By float64 `key:"gate_by" range:"(0,1)" default:"0.05"`
	// AllowMismatch judges the metric even when the workloads differ.
	AllowMismatch bool `key:"allow_mismatch" default:"false"`
	// OnInconclusive is what a comparison that cannot resolve a change of By comes to;
	// "" is defaultOnInconclusive (fail).
	OnInconclusive InconclusivePolicy `key:"gate_inconclusive" default:"fail"`
	// RunCV is the run-to-run coefficient of variation of a figure between sessions of one
	// build, counted when a comparison has no history to measure it (one run against one
	// stored run); RestartCV the part of it two engines measured side by side in an
	// interleaved run do not share. Never zero: a spread nothing measured is counted, not
	// assumed away (compare.DefaultRunCV, compare.DefaultRestartCV).
	RunCV     float64 `key:"gate_run_cv" range:"(0,1)" default:"0.05" zero:"default"`
	RestartCV float64 `key:"gate_restart_cv" range:"(0,1)" default:"0.005" zero:"default"`
	// OnMain says the run is one of the history's own (main's, recorded into it after):
	// against that history a step is main's own change, reported and not failed, and a
	// comparison the history cannot resolve yet passes, noted. Budgets, failed and
	// invalid runs fail as anywhere.
	OnMain bool `key:"gate_on_main" default:"false"`
	// RestartSource says what measured RestartCV when something did ("measured over 3
	// interleaved runs of main's build against a second start of it"); the verdict says
	// it, and otherwise that the spread is a default.
	RestartSource string
}

// Against is what a run is compared with: a stored run (an interleaved run's baseline
// engine is one, and is compared by its blocks), or a history of earlier runs. Metrics is
// how many metrics the gate judges, each at 1%/Metrics.
type Against struct {
	Baseline *artifact.Benchmark
	History  []*artifact.Benchmark
	Metrics  int
}

// NoRegression checks that the run's metric did not regress from the baseline beyond
// what varies between them (compare.Regression: worse by more than half the gate and
// significant, by the design the artifacts allow), e.g. "tpot p50 regressed 9.8% (5.00ms
// -> 5.49ms, 95% CI of the change +7.1%..+12.6%, p=2e-05; 6 interleaved pairs against the
// baseline build, ...): worse than the 5.0% gate". A comparison that cannot resolve a
// change of the gate's size is inconclusive, with the change it could resolve and the
// interleaved pairs or the history that would resolve the gate's; too little on either
// side, or a baseline of another workload, is not comparable.
func NoRegression(against Against, metric string, how Comparison) Check {
	if how.By == 0 {
		how.By = defaultBy
	}
	// The name states the rule compare.Regression applies, so a 3% change failing a 5% gate
	// does not read as a contradiction.
	name := fmt.Sprintf("does not regress %s from the baseline (fails a significant change over %.4g%%, resolves %.4g%%)", metric, 50*how.By, 100*how.By)
	return Check{Name: name, Kind: KindRegression, judge: func(a *artifact.Benchmark) Result {
		if against.Baseline == nil && len(against.History) == 0 {
			return unjudged(RunFailed, "no baseline artifact")
		}
		v := compare.Regression(against.Baseline, a, metric, how.By, compare.Options{AllowMismatch: how.AllowMismatch,
			Metrics: against.Metrics, RunCV: how.RunCV, RestartCV: how.RestartCV, RestartSource: how.RestartSource, History: against.History})
		r := regressionResult(v, how)
		if v.Design == compare.DesignHistory && v.Outcome == compare.Insufficient && v.HistoryLength > 0 && v.HistoryLength < compare.MinHistory {
			// A history too short to measure a spread yet: judged on the rest, and said.
			r = skipped(fmt.Sprintf("the history holds %d comparable runs of this scenario; a spread is measured from %d (anvilbench baseline records each run of main's)",
				v.HistoryLength, compare.MinHistory))
			r.Noted = notedShortHistory
		}
		if v.Outcome == compare.Inconclusive || v.Outcome == compare.Pass || v.Outcome == compare.Regressed {
			r.Resolution = &resolution{Design: string(v.Design), Detectable: v.Detectable, PairsNeeded: v.PairsNeeded, HistoryRunsNeeded: v.HistoryRunsNeeded}
		}
		return r
	}}
}

// regressionResult is a regression verdict as a check's result.
func regressionResult(v compare.Verdict, how Comparison) Result {
	onMain := how.OnMain && v.Design == compare.DesignHistory
	switch v.Outcome {
	case compare.Pass:
		return held(v.Message())
	case compare.Regressed:
		if onMain {
			r := held(v.Message() + " (a run of main's own history: its step is reported, not failed, gate_on_main)")
			r.Noted = notedMainStepped
			return r
		}
		return found(Regression, v.Message())
	case compare.Inconclusive:
		if onMain {
			r := held(v.Message() + " (a run of main's own history: a comparison it cannot resolve yet does not fail it, gate_on_main)")
			r.Noted = notedMainInconclusive
			return r
		}
		if how.OnInconclusive == InconclusivePass {
			r := held(v.Message() + " (inconclusive passes: gate_inconclusive=pass)")
			r.Noted = notedInconclusive
			return r
		}
		return unjudged(Inconclusive, v.Message())
	case compare.NotComparable, compare.Insufficient:
		return unjudged(NotComparable, v.Message())
	}
	return unjudged(RunFailed, v.Message())
}

// percent prints a fraction as a percentage with one decimal: 0.05 is "5.0%".
func percent(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// abandoned counts the requests the client left as planned: neither completed
// nor failed, and scored on nothing.
func abandoned(a *artifact.Benchmark) int {
	if a.Extension == nil || a.Extension.Cancellation == nil {
		return 0
	}
	return a.Extension.Cancellation.Abandoned
}
