package report

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/units"
	"github.com/anvilbench/anvilbench/reporters/report/internal/chart"
)

// runView is one run: a row of a table and a section of its own.
type runView struct {
	// ID is the run's anchor; Name its scenario; Path its artifact file.
	ID, Name, Path string
	B              *artifact.Benchmark
	SelfTest       bool
	Interrupted    bool
	// Workload is "6 × 1 at 64,000 tok": requests, concurrency and planned context.
	Workload string
	// Figures are the headline figures (Model.HeadlineNames) with their baseline deltas;
	// Baseline names where the baseline came from, empty without one.
	Figures  []figureView
	Baseline string
	// Timeline is the request timeline's SVG, empty with TimelineNote saying why.
	Timeline     string
	TimelineNote string
	// Charts are the workload kind's own: TTFT by turn, a trace's starts.
	Charts []kindChart
	// Budgets are those the scenario's gate judged it against, each with its figure and
	// margin, judged again here as the gate judges them.
	Budgets      []budgetView
	Failures     []failureView
	FailuresMore int
	// MissedTimings gives, as information, the timings of the answers the strict policy
	// failed for their words: a model that cannot follow the instruction still has a speed.
	MissedTimings string
	// Phases are the engine's own account of the requests' time, phase by phase, beside
	// the baseline's when there is one (PhasesBaseline names it); PhasesSource says whose
	// account it is.
	Phases                       []phaseView
	PhasesSource, PhasesBaseline string
}

// phaseView is one of the engine's phases: its p50 and p95 in the run and, beside them,
// in the baseline, with the change of the p50.
type phaseView struct {
	Phase, P50, P95, BaseP50, BaseP95, Change string
}

// phaseViews are b's engine phases (its summaries of the group "engine phases") beside
// base's (nil base: none beside).
func phaseViews(b, base *artifact.Benchmark) []phaseView {
	if b.Extension == nil {
		return nil
	}
	baseRows := map[string]*artifact.Percentiles{}
	if base != nil && base.Extension != nil {
		for _, r := range base.Extension.Summaries() {
			baseRows[r.Label] = r.Percentiles
		}
	}
	var out []phaseView
	for _, r := range b.Extension.Summaries() {
		if r.Group != "engine phases" {
			continue
		}
		v := phaseView{Phase: r.Label, P50: fmtMs(float64(r.P50)), P95: fmtMs(float64(r.P95)), BaseP50: "—", BaseP95: "—", Change: "—"}
		if bp := baseRows[r.Label]; bp != nil {
			v.BaseP50, v.BaseP95 = fmtMs(float64(bp.P50)), fmtMs(float64(bp.P95))
			v.Change = fmt.Sprintf("%+.2f ms", float64(r.P50-bp.P50))
		}
		out = append(out, v)
	}
	return out
}

// budgetView is one budget of a scenario: "tpot_p50_ms<=6", its figure "5.00ms", held,
// and the margin "1.00ms to spare (17%)" or "over by 0.50ms (8%)".
type budgetView struct {
	Budget, Figure, Margin string
	Held                   bool
}

// missedTimings is "16 answers failed for their words streamed at TTFT p50 61.60ms, TPOT
// p50 7.02ms (information, not gated)", from the timing rows of the failures a strict run
// recorded for a controlled-output mismatch; "" without such rows.
func missedTimings(b *artifact.Benchmark) string {
	var ttft, tpot []float64
	for _, f := range b.Failures {
		if f.ErrorType != "controlled_output_mismatch" || f.ResponseTiming.Row == nil {
			continue
		}
		r := f.ResponseTiming.Row
		ttft = append(ttft, float64(r.TTFTMs))
		if r.TPOTMs != nil {
			tpot = append(tpot, float64(*r.TPOTMs))
		}
	}
	if len(ttft) == 0 {
		return ""
	}
	median := func(xs []float64) string {
		if len(xs) == 0 {
			return "—"
		}
		slices.Sort(xs)
		return fmtMs(xs[(len(xs)-1)/2])
	}
	return fmt.Sprintf("%s failed for their words streamed at TTFT p50 %s, TPOT p50 %s (information, not gated: the strict policy keeps them out of the figures)",
		plural(len(ttft), "answer", "answers"), median(ttft), median(tpot))
}

// budgetViews judges each budget the artifact names against it.
func budgetViews(b *artifact.Benchmark) []budgetView {
	if b.Extension == nil {
		return nil
	}
	var out []budgetView
	for _, text := range b.Extension.Budgets {
		parsed, err := budget.Parse(text)
		if err != nil {
			out = append(out, budgetView{Budget: text, Figure: "—", Margin: "unreadable: " + err.Error()})
			continue
		}
		for _, bu := range parsed {
			v := budget.Judge(bu, b)
			view := budgetView{Budget: bu.String(), Figure: "—", Held: v.Err == nil && v.Pass}
			if v.Err != nil {
				view.Margin = "not judged: " + v.Err.Error()
				out = append(out, view)
				continue
			}
			unit := units.Of(bu.Metric)
			places := 2
			view.Figure = units.FormatPlaces(v.Value, unit, places)
			spare := bu.Limit - v.Value // at most, below: room under the limit
			if bu.Op == budget.AtLeast || bu.Op == budget.Above {
				spare = v.Value - bu.Limit
			}
			pct := ""
			if bu.Limit != 0 {
				pct = fmt.Sprintf(" (%.0f%%)", 100*math.Abs(spare/bu.Limit))
			}
			switch {
			case view.Held:
				view.Margin = units.FormatPlaces(math.Abs(spare), unit, places) + " to spare" + pct
			case bu.Op == budget.AtLeast || bu.Op == budget.Above:
				view.Margin = "short by " + units.FormatPlaces(math.Abs(spare), unit, places) + pct
			default:
				view.Margin = "over by " + units.FormatPlaces(math.Abs(spare), unit, places) + pct
			}
			out = append(out, view)
		}
	}
	return out
}

// failureView is one failed request.
type failureView struct {
	Index                int
	Type, Class, Elapsed string
	Message              string
	Truncated            bool
}

func newRunView(r Run, baseline, partner *artifact.Benchmark) *runView {
	b := r.Benchmark
	v := &runView{Path: r.Path, B: b, Name: strings.TrimSuffix(path.Base(r.Path), ".json")}
	if x := b.Extension; x != nil {
		if strings.TrimSpace(x.Scenario) != "" {
			v.Name = x.Scenario
		}
		v.SelfTest, v.Interrupted = x.SelfTest, !x.Complete
		if x.Interleaved != nil && x.Interleaved.Role == artifact.RoleBaseline {
			v.Name += " (baseline build)"
		}
	}
	if v.Name == "" {
		v.Name = "run"
	}
	ctx := "—"
	if c, exact := plannedContext(b); c > 0 {
		ctx = fmtTokens(c)
		if !exact {
			ctx = "mean " + ctx
		}
	}
	// Sessions grow their prompts turn by turn and a trace's vary by line: the range the
	// engine was sent, not the size a scenario starts from.
	if lo, hi := plannedRange(b); lo < hi {
		ctx = fmtInt(lo) + "–" + fmtTokens(float64(hi))
	}
	if cl := clampOf(b); cl != nil {
		ctx += fmt.Sprintf(" (clamped from %s to the %s-token window)", fmtTokens(float64(cl.LargestPlanned)), fmtInt(cl.Window))
	}
	v.Workload = fmt.Sprintf("%s × %s at %s", fmtInt(b.Requests), fmtInt(b.Concurrency), ctx)
	var base map[string]float64
	switch {
	case baseline != nil:
		v.Baseline, base = "the baseline run's "+r.Path, map[string]float64{}
		for _, f := range artifact.HeadlineFigures() {
			if x, _ := f.Of(baseline); x != nil {
				base[f.Key] = *x
			}
		}
	case b.Extension != nil && b.Extension.Baseline != nil:
		ref := b.Extension.Baseline
		v.Baseline, base = ref.Source, ref.Metrics
		switch ref.Design {
		case artifact.DesignHistory:
			v.Baseline = fmt.Sprintf("the latest level of a history of %d runs, %s", len(ref.History), ref.Source)
		case artifact.DesignInterleaved:
			v.Baseline = "the baseline build run interleaved with it, " + ref.Source
		}
	}
	by := gate.DefaultSpec().By
	if b.Extension != nil && b.Extension.Baseline != nil && b.Extension.Baseline.GateBy > 0 {
		by = b.Extension.Baseline.GateBy
	}
	v.Figures = figures(b, base, by/2)
	v.Budgets = budgetViews(b)
	v.MissedTimings = missedTimings(b)
	phasesBase := cmp.Or(baseline, partner)
	if v.Phases = phaseViews(b, phasesBase); len(v.Phases) > 0 {
		v.PhasesSource = b.Extension.Phases.Source
		if phasesBase != nil {
			v.PhasesBaseline = "the baseline"
			if partner != nil && baseline == nil {
				v.PhasesBaseline = "the baseline build run interleaved with it"
			}
		}
	}
	for i, f := range b.Failures {
		if i == maxFailuresHTML {
			v.FailuresMore = len(b.Failures) - i
			break
		}
		fv := failureView{Index: f.RequestIndex, Type: f.ErrorType, Class: f.FailureClass, Message: f.ErrorMessage, Truncated: f.ErrorMessageTruncated}
		if f.ElapsedMs != nil {
			fv.Elapsed = fmtMs(float64(*f.ElapsedMs))
		}
		v.Failures = append(v.Failures, fv)
	}
	return v
}

// clampOf is how the served window cut the run's planned contexts, nil when it cut none.
func clampOf(b *artifact.Benchmark) *artifact.ContextClamp {
	if b.Extension == nil || b.Extension.ContextClamp == nil || b.Extension.ContextClamp.Requests == 0 {
		return nil
	}
	return b.Extension.ContextClamp
}

// plannedContext is the context the run was planned to send: context_tokens, else the
// mean planned context of the successful rows, else of the context distribution; exact is
// false for a mean of differing sizes. A run the window clamped sent its rows' plans, not
// context_tokens (the size asked for): a 64k ladder step run at 15k is no 64k point.
// plannedRange is the least and the largest context the rows planned, as sent (clamped to
// the window); 0, 0 without rows.
func plannedRange(b *artifact.Benchmark) (lo, hi int) {
	clamp := clampOf(b)
	for i, row := range b.RequestTimings {
		c := row.PlannedContextTokens
		if clamp != nil {
			c = min(c, clamp.MaxPromptTokens)
		}
		if i == 0 || c < lo {
			lo = c
		}
		hi = max(hi, c)
	}
	return lo, hi
}

func plannedContext(b *artifact.Benchmark) (tokens float64, exact bool) {
	clamp := clampOf(b)
	// A clamped request's plan was the smaller of its size and what the window left.
	sent := func(planned int) int {
		if clamp != nil {
			return min(planned, clamp.MaxPromptTokens)
		}
		return planned
	}
	if b.ContextTokens != nil && *b.ContextTokens > 0 && (clamp == nil || len(b.RequestTimings) == 0) {
		return float64(sent(*b.ContextTokens)), true
	}
	sum, n, same := 0.0, 0, true
	for _, row := range b.RequestTimings {
		sum += float64(row.PlannedContextTokens)
		same = same && row.PlannedContextTokens == b.RequestTimings[0].PlannedContextTokens
		n++
	}
	if n == 0 {
		same = len(b.ContextDistribution) == 1
		for k, c := range b.ContextDistribution {
			if v, err := strconv.Atoi(k); err == nil && c > 0 {
				sum += float64(sent(v)) * float64(c)
				n += c
			}
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), same
}

// timeline draws the run's requests on its clock, in index order.
func timeline(v *runView) (string, string) {
	x := v.B.Extension
	if x == nil || len(x.Timeline) == 0 {
		return "", "No request timeline: the artifact has no anvilbench block (an artifact of the original tool, or a run that sent nothing)."
	}
	spans := x.Timeline
	t := chart.Timeline{ID: "timeline-" + v.ID, Title: "Request timeline: " + v.Name}
	if len(spans) > maxTimelineRequests {
		t.Note = fmt.Sprintf("the first %s of %s requests", fmtInt(maxTimelineRequests), fmtInt(len(spans)))
		spans = spans[:maxTimelineRequests]
	}
	elapsed := map[int]float64{}
	for _, f := range v.B.Failures {
		if f.ElapsedMs != nil {
			elapsed[f.RequestIndex] = float64(*f.ElapsedMs)
		}
	}
	failed, unsent := 0, 0
	for _, s := range spans {
		sp := chart.Span{Start: math.NaN(), FirstToken: math.NaN(), End: math.NaN(), Reasoning: math.NaN(),
			Failed: s.Outcome != "ok" && s.Outcome != artifact.OutcomeAbandoned}
		label := fmt.Sprintf("request %d: %s", s.RequestIndex, s.Outcome)
		if s.StartOffsetMs == nil {
			unsent++
			label += ", never sent"
		} else {
			sp.Start = float64(*s.StartOffsetMs)
			label += ", sent at " + fmtMs(sp.Start)
			if s.TTFTMs != nil {
				sp.FirstToken = sp.Start + float64(*s.TTFTMs)
				label += ", first token after " + fmtMs(float64(*s.TTFTMs))
				if r := s.ReasoningToAnswerMs; r != nil {
					sp.Reasoning = sp.FirstToken - float64(*r)
					label += fmt.Sprintf(" (reasoning from %s)", fmtMs(sp.Reasoning-sp.Start))
				}
				if s.ReasoningTokens != nil {
					label += fmt.Sprintf(", %d reasoning tokens", *s.ReasoningTokens)
				}
			}
			if s.E2EMs != nil {
				sp.End = sp.Start + float64(*s.E2EMs)
			} else if e, ok := elapsed[s.RequestIndex]; ok {
				sp.End = sp.Start + e
			}
			if isFinite(sp.End) {
				label += ", ended after " + fmtMs(sp.End-sp.Start)
			}
		}
		if sp.Failed {
			failed++
		}
		sp.Label = label
		t.Spans = append(t.Spans, sp)
	}
	if unsent > 0 {
		t.Note = strings.TrimPrefix(t.Note+fmt.Sprintf("; %d never sent", unsent), "; ")
	}
	t.Desc = fmt.Sprintf("%d requests of %s in index order, %d failed", len(spans), v.Name, failed)
	var buf bytes.Buffer
	if err := t.Write(&buf); err != nil {
		return "", "No request timeline: " + err.Error()
	}
	return buf.String(), ""
}

// Details are the run's identity and workload.
func (v *runView) Details() []fieldView {
	b := v.B
	optInt := func(p *int) string {
		if p == nil {
			return "—"
		}
		return fmtInt(*p)
	}
	items := []fieldView{
		{"scenario", v.Name}, {"artifact", v.Path},
		{"endpoint", orDash(b.BaseURL)}, {"model", orDash(b.Model)}, {"engine", orDash(deref(b.Engine))}, {"gpu", orDash(deref(b.GPU))},
		{"run", orDash(b.Run())}, {"started", orDash(b.StartedAt)}, {"finished", orDash(b.FinishedAt)},
		{"wall clock", fmtMs(float64(b.WallClockMs))},
		{"requests / concurrency", fmtInt(b.Requests) + " / " + fmtInt(b.Concurrency)},
		{"completed / failed", fmtInt(b.Completed) + " / " + fmtInt(b.Failed)},
		{"context_tokens", optInt(b.ContextTokens)}, {"max_tokens", fmtInt(b.MaxTokens)},
		{"response_words", fmtInt(b.ResponseWords)}, {"controlled_output_policy", orDash(b.ControlledOutputPolicy)},
		{"measurement_protocol", orDash(b.MeasurementProtocol)}, {"prompt_cache_mode", orDash(b.PromptCacheMode)},
		{"performance_eligible", strconv.FormatBool(b.PerformanceEligible)},
	}
	if v.Baseline != "" {
		items = append(items, fieldView{"baseline", v.Baseline})
	}
	if a := answersField(b); a != "" {
		items = append(items, fieldView{"answers", a})
	}
	if cl := clampOf(b); cl != nil {
		items = append(items, fieldView{"context clamp", cl.Note})
	}
	if x := b.Extension; x != nil {
		items = append(items, contextFields(x)...)
		items = append(items, chunkFields(x.ITL)...)
		if len(x.ServedModels) > 1 || (len(x.ServedModels) == 1 && x.ServedModels[b.Model] == 0) {
			items = append(items, fieldView{"served model", servedModels(x.ServedModels) + " (as the responses named it)"})
		}
		if hit := b.Metrics.PrefixCacheHitAvg; hit != nil {
			items = append(items, fieldView{"prefix cache", fmt.Sprintf("%s%% of prompt tokens served from the engine's cache on average (%s prompts, nonce %s)",
				fmtNumber(100*float64(*hit), 1), orDash(b.PromptCacheMode), orDash(x.PromptNonce))})
		}
		items = append(items, engineMetricFields(b, x.EngineMetrics)...)
		items = append(items, phaseFields(x)...)
		if c := x.Cancellation; c != nil {
			stopped := "whether the engine stopped them: unknown (" + c.StopSource + ")"
			if c.EngineStopped != nil && *c.EngineStopped {
				stopped = "the engine stopped them (" + c.StopSource + ")"
			} else if c.EngineStopped != nil {
				stopped = "the engine did not stop them (" + c.StopSource + ")"
			}
			items = append(items, fieldView{"requests left", fmt.Sprintf("%s of %s planned (%s of the requests) left after %s tokens, in no latency figure; %s",
				fmtInt(c.Abandoned), fmtInt(c.Planned), fmtNumber(100*c.Rate, 0)+"%", fmtInt(c.AfterTokens), stopped)})
		}
		items = append(items, trafficFields(x)...)
		items = append(items, capacityFields(b)...)
	}
	if v.Interrupted {
		items = append(items, fieldView{"complete", "false: the run was interrupted" + cutInFlight(b)})
	}
	return items
}
