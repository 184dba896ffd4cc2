package report

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity"
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
	}
	if v.Interrupted {
		items = append(items, fieldView{"complete", "false: the run was interrupted" + cutInFlight(b)})
	}
	return items
}

// phaseFields describe the run's phases: its warm-up, its blocks and the engine it was
// interleaved with.
func phaseFields(x *artifact.Extension) []fieldView {
	var out []fieldView
	if w := x.Warmup; w != nil && w.Requests > 0 {
		text := fmt.Sprintf("%s requests (%s failed) in %s, excluded from every figure", fmtInt(w.Requests), fmtInt(w.Failed), fmtMs(float64(w.DurationMs)))
		if w.LastTPOTP50Ms != nil {
			text += fmt.Sprintf("; its last %d: TPOT p50 %s", w.LastRequests, fmtMs(float64(*w.LastTPOTP50Ms)))
		}
		out = append(out, fieldView{"warm-up", text})
	} else if x.Blocks != nil { // written by a harness that warms up: warmup_requests was 0
		out = append(out, fieldView{"warm-up", "none (warmup_requests 0): the first requests met the engine as it was"})
	}
	if bl := x.Blocks; bl != nil && len(bl.Blocks) > 1 {
		out = append(out, fieldView{"blocks", fmt.Sprintf("%d of %s requests, each with prompts of its own", len(bl.Blocks), fmtInt(bl.RequestsPerBlock))})
	}
	if in := x.Interleaved; in != nil {
		other := "the baseline build"
		if in.Role == artifact.RoleBaseline {
			other = "the build under test"
		}
		out = append(out, fieldView{"interleaved", fmt.Sprintf("with %s at %s (model %s), blocks in the order %s (A the baseline build)",
			other, orDash(in.PartnerBaseURL), orDash(in.PartnerModel), orDash(in.Order))})
	}
	return out
}

// cutInFlight says how many requests an interrupt cut, and what that leaves on the engine.
func cutInFlight(b *artifact.Benchmark) string {
	cut := 0
	for _, s := range b.Extension.Timeline {
		if s.Outcome == artifact.OutcomeCancelled && s.StartOffsetMs != nil {
			cut++
		}
	}
	if cut == 0 {
		return ""
	}
	return fmt.Sprintf("; it cut %s in flight, which an engine that does not stop abandoned requests may go on computing: a run started before it has finished measures a busier engine",
		plural(cut, "request", "requests"))
}

// Client is what the run cost the client and how it stamped events: the figures that
// say whether the harness, not the engine, could have limited the run.
func (v *runView) Client() []fieldView {
	x := v.B.Extension
	if x == nil {
		return nil
	}
	o, c := x.ClientOverhead, x.Clock
	us := func(p *artifact.Float) string {
		return fmtPtr(p, func(f float64) string { return fmtNumber(f, 1) + " µs" })
	}
	items := []fieldView{
		{"timing clock", fmt.Sprintf("%s (%d reads kernel-stamped, %d user-space)", orDash(c.Source), c.KernelStampedReads, c.UserStampedReads)},
		{"ttft split at the request's last byte", sendSplit(x.Send)},
		{"dispatch delay p50 / max", fmtPtr(o.DispatchDelayP50Ms, fmtMs) + " / " + fmtPtr(o.DispatchDelayMaxMs, fmtMs)},
		{"event lag mean / max", us(o.EventLagMeanUs) + " / " + us(o.EventLagMaxUs)},
		{"client CPU share", fmtPtr(o.CPUSharePct, func(f float64) string { return fmtNumber(f, 1) + "%" })},
	}
	if o.GCCycles != nil {
		items = append(items, fieldView{"GC cycles in the request phase", strconv.Itoa(*o.GCCycles)})
	}
	// The gate's own words, so the report and the check "was measured by a client that
	// kept up" never disagree.
	switch kept := gate.ClientKeptUp(gate.ClientBounds{}).Judge(v.B); {
	case kept.Skipped != "":
	case kept.Passed():
		items = append(items, fieldView{"client kept up", "yes: " + kept.Message})
	default:
		items = append(items, fieldView{"client kept up", "no (" + kept.Outcome.Text() + "): " + kept.Message})
	}
	return items
}

// contextFields say what context the engine saw and where the window came from.
func contextFields(x *artifact.Extension) []fieldView {
	var items []fieldView
	if src := x.Capabilities.MaxContextSource; src != nil {
		items = append(items, fieldView{"window source", fmt.Sprintf("%s (%s tokens)", *src, fmtInt(x.Capabilities.MaxContextTokens))})
	}
	acc := x.ContextAccuracy
	switch {
	case acc.Diagnosis != "":
		items = append(items, fieldView{"context served", acc.Diagnosis})
	case acc.Samples > 0 && acc.MeanErrorPct != nil && acc.MaxAbsErrorPct != nil:
		items = append(items, fieldView{"context served", fmt.Sprintf("prompt tokens %+.2f%% of plan on average, %.2f%% off at worst, over %d requests",
			float64(*acc.MeanErrorPct), float64(*acc.MaxAbsErrorPct), acc.Samples)})
	}
	return items
}

// chunkFields say how the output arrived: tokens per chunk, the gaps between chunks, and
// how far tpot may read low when chunks carried several tokens.
func chunkFields(itl artifact.ITLSummary) []fieldView {
	if itl.Samples == 0 || itl.P50Ms == nil || itl.P99Ms == nil {
		return nil
	}
	perChunk := fmtPtr(itl.TokensPerChunk, func(f float64) string { return fmtNumber(f, 2) })
	text := fmt.Sprintf("%s tokens per chunk; gap p50 %s, p99 %s over %d gaps (%s)",
		perChunk, fmtMs(float64(*itl.P50Ms)), fmtMs(float64(*itl.P99Ms)), itl.Samples, itl.Basis)
	if itl.SharedReadGaps > 0 {
		text += fmt.Sprintf("; %s inside one read, counted as 0 (sent together, or read late)",
			plural(itl.SharedReadGaps, "chunk gap fell", "chunk gaps fell"))
	}
	items := []fieldView{{"output chunks", text}}
	if itl.Note != "" {
		items = append(items, fieldView{"tpot caveat", itl.Note})
	}
	return items
}

// engineMetricFields set the engine's own figures beside the client's.
func engineMetricFields(b *artifact.Benchmark, m artifact.EngineMetrics) []fieldView {
	if !m.Scraped {
		if m.Error == "" {
			return nil
		}
		return []fieldView{{"engine metrics", "not scraped: " + m.Error}}
	}
	items := []fieldView{{"engine metrics", fmt.Sprintf("%s, %d scrapes", m.URL, m.Scrapes)}}
	// The gate's own words on whether other work shared the engine: its counters beside
	// the run's usage, and what it held when the run began.
	switch alone := gate.EngineToItself().Judge(b); {
	case alone.Skipped != "":
		items = append(items, fieldView{"had the engine to itself", "not checked: " + alone.Skipped})
	case alone.Passed():
		items = append(items, fieldView{"had the engine to itself", "yes: " + alone.Message})
	default:
		items = append(items, fieldView{"had the engine to itself", "no (" + alone.Outcome.Text() + "): " + alone.Message})
	}
	if t := m.TTFTMs; t != nil && t.P50Ms != nil {
		bucket := ""
		if r := bucketRange(t); r != "" {
			bucket = " (bucket " + r + ")"
		}
		items = append(items, fieldView{"ttft p50, client vs server", fmt.Sprintf("%s vs %s%s over %d server samples",
			fmtPtr(b.Metrics.TTFT.P50, fmtMs), fmtMs(float64(*t.P50Ms)), bucket, t.Count)})
	}
	if t := m.InterTokenMs; t != nil && t.P50Ms != nil {
		items = append(items, fieldView{"inter-token, server histogram", serverHistogram(t)})
	}
	for _, h := range []struct {
		name string
		t    *artifact.ServerLatency
	}{{"queue time, server histogram", m.QueueMs}, {"prefill time, server histogram", m.PrefillMs}, {"decode time, server histogram", m.DecodeMs}} {
		if h.t != nil && h.t.P50Ms != nil {
			items = append(items, fieldView{h.name, serverHistogram(h.t)})
		}
	}
	for _, f := range []struct {
		name string
		v    *artifact.Float
	}{{"preemptions", m.Preemptions}, {"kv cache usage peak", m.KVCacheUsagePeak}, {"prefix cache hit rate", m.PrefixCacheHitRate}} {
		if f.v != nil {
			items = append(items, fieldView{f.name, fmtNumber(float64(*f.v), 3)})
		}
	}
	return items
}

// distRow is one row of a run's distribution table.
type distRow struct {
	Name                                   string
	Samples, Mean, P50, P90, P95, P99, Max string
}

// Distributions are the run's figure distributions over its performance-eligible requests.
func (v *runView) Distributions() []distRow {
	m := &v.B.Metrics
	tokens := func(f float64) string { return fmtTokens(f) }
	fams := []struct {
		name string
		d    *artifact.Distribution
		f    func(float64) string
	}{
		{"ttft", &m.TTFT, fmtMs}, {"time to first output", &m.TimeToFirstOutput, fmtMs},
		{"tpot", &m.TPOT, fmtMs}, {"e2e", &m.E2E, fmtMs}, {"generation", &m.Generation, fmtMs},
		{"decode", &m.DecodeTokS, fmtRate}, {"effective prefill", &m.EffectivePrefillTokS, fmtRate},
		{"prompt tokens", &m.PromptTokensDist, tokens}, {"completion tokens", &m.CompletionTokens, tokens},
	}
	rows := make([]distRow, 0, len(fams)+2)
	for _, f := range fams {
		d := f.d
		p := func(x *artifact.Float) string { return fmtPtr(x, f.f) }
		rows = append(rows, distRow{Name: f.name, Samples: fmtInt(d.Samples), Mean: p(d.Mean), P50: p(d.P50), P90: p(d.P90), P95: p(d.P95), P99: p(d.P99), Max: p(d.Max)})
		if f.name == "ttft" {
			rows = append(rows, v.sendRows()...)
		}
	}
	return rows
}

// sendRows split TTFT where each request's last byte left the client: its send, and what
// followed (network, queue, prefill). None without transmit stamps.
func (v *runView) sendRows() []distRow {
	x := v.B.Extension
	if x == nil || x.Send.ClientSendMs == nil || x.Send.ServerTTFTMs == nil {
		return nil
	}
	row := func(name string, d *artifact.Percentiles) distRow {
		p := func(f artifact.Float) string { return fmtMs(float64(f)) }
		return distRow{Name: name, Samples: fmtInt(d.Samples), Mean: "—", P50: p(d.P50), P90: "—", P95: p(d.P95), P99: p(d.P99), Max: p(d.Max)}
	}
	return []distRow{row("ttft: client send", x.Send.ClientSendMs), row("ttft: after the request left", x.Send.ServerTTFTMs)}
}

// Host is the run's endpoint as host and port.
func (v *runView) Host() string { return host(v.B.BaseURL) }

// sendSplit says how TTFT was split: by which stamp, for how many requests, or why not.
func sendSplit(s artifact.SendSplit) string {
	switch {
	case s.Source == artifact.SendKernelTransmit:
		return fmt.Sprintf("%s (%d requests stamped)", s.Source, s.Stamped)
	case s.Note != "":
		return s.Note
	}
	return "—"
}

// servedModels lists the models the responses named with their counts, most first.
func servedModels(served map[string]int) string {
	names := slices.SortedFunc(maps.Keys(served), func(x, y string) int {
		return cmp.Or(cmp.Compare(served[y], served[x]), cmp.Compare(x, y))
	})
	parts := make([]string, len(names))
	for i, m := range names {
		parts[i] = fmt.Sprintf("%s: %s", m, plural(served[m], "response", "responses"))
	}
	return strings.Join(parts, "; ")
}

// answersField says how the measured answers met the instruction: under the observe
// policy a run passes whatever the engine answered, so the report must say what that was
// (the structure a tool-call or JSON run asked for, then the words), and how many answers
// max_tokens cut. Empty when no answer was scored.
func answersField(b *artifact.Benchmark) string {
	text, _ := answers(b)
	return text
}

// answers is answersField's text, and whether an observed run's answers were not what
// the run asked for: a pass the reader must not take for one of the instruction.
func answers(b *artifact.Benchmark) (text string, strayed bool) {
	scored, exact, atLimit, requested := 0, 0, 0, 0
	for _, t := range b.RequestTimings {
		if c := t.ControlledOutput; c != nil && c.ExactAdherence != nil {
			scored++
			requested = c.RequestedWords
			if *c.ExactAdherence {
				exact++
			}
		}
		if t.OutputTokens != nil && b.MaxTokens > 0 && *t.OutputTokens >= b.MaxTokens {
			atLimit++
		}
	}
	var so *artifact.StructuredOutput
	if b.Extension != nil {
		so = b.Extension.StructuredOutput
	}
	if scored == 0 && (so == nil || so.Responses == 0) {
		return "", false
	}
	observe := b.ControlledOutputPolicy == string(capacity.PolicyObserve)
	var parts []string
	if so != nil && so.Responses > 0 {
		what := "valid JSON of the schema"
		if so.Tool != "" {
			what = "a valid call of its tool " + so.Tool
		}
		part := fmt.Sprintf("%d of %d %s", so.Valid, so.Responses, what)
		if so.Valid < so.Responses && observe {
			part += " (observe: recorded, not gated)"
			strayed = true
		}
		parts = append(parts, part)
	}
	if scored > 0 {
		part := fmt.Sprintf("%d of %d exactly the %d requested words", exact, scored, requested)
		if exact < scored && observe {
			part += " (observe: the others measured as served)"
			strayed = true
		}
		parts = append(parts, part)
	}
	if atLimit > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d stopped at max_tokens (%d)", atLimit, len(b.RequestTimings), b.MaxTokens))
	}
	return strings.Join(parts, "; "), strayed
}

// serverHistogram says what an engine's Prometheus histogram can: its mean (sum over
// count, exact) and the bucket its median falls in. A p50 interpolated inside a bucket
// that may span 100 ms to 250 ms is no measurement to set beside the client's figures.
func serverHistogram(t *artifact.ServerLatency) string {
	var parts []string
	if t.MeanMs != nil {
		parts = append(parts, "mean "+fmtMs(float64(*t.MeanMs)))
	}
	if r := bucketRange(t); r != "" {
		parts = append(parts, "median in the bucket "+r)
	} else {
		parts = append(parts, "median about "+fmtMs(float64(*t.P50Ms))+" (interpolated in its bucket)")
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(", over %d samples", t.Count)
}

// bucketRange is "100.0 ms to 250.0 ms", the histogram bucket a server figure's median
// falls in; "" when the engine's histogram gave none.
func bucketRange(t *artifact.ServerLatency) string {
	if len(t.P50BucketMs) != 2 {
		return ""
	}
	return fmtMs(float64(t.P50BucketMs[0])) + " to " + fmtMs(float64(t.P50BucketMs[1]))
}

// trafficFields say what the run sent beside text: its images and what the engine counted
// for them, and each group's (LoRA adapter's, priority class's) share and headline figures.
func trafficFields(x *artifact.Extension) []fieldView {
	var out []fieldView
	if im := x.Images; im != nil {
		text := fmt.Sprintf("%d per request of %s (%s), %s sent, %s distinct", im.PerRequest, im.Sizes, im.Format, fmtInt(im.Sent), fmtInt(im.Distinct))
		if im.Pool > 0 {
			text += fmt.Sprintf(" (drawn from a pool of %s)", fmtInt(im.Pool))
		}
		for _, size := range slices.Sorted(maps.Keys(im.EngineTokens)) {
			text += fmt.Sprintf("; the engine counts a %s image %s tokens", size, fmtInt(im.EngineTokens[size]))
			if rule, ok := im.RuleTokens[size]; ok {
				text += fmt.Sprintf(" (the rule of %d-pixel patches: %s)", im.Patch, fmtInt(rule))
			}
		}
		out = append(out, fieldView{"images", text})
	}
	for title, groups := range (&artifact.Benchmark{Extension: x}).Groups() {
		for _, g := range groups {
			out = append(out, fieldView{title + " " + g.Name, groupText(g)})
		}
	}
	return out
}

// groupText is a group's requests, their share and what became of them, and its headline
// latencies.
func groupText(g artifact.Group) string {
	text := fmt.Sprintf("%s requests (%s of them planned), %s completed, %s failed", fmtInt(g.Requests), fmtNumber(100*float64(g.Share), 0)+"%",
		fmtInt(g.Completed), fmtInt(g.Failed))
	if g.Priority != nil {
		text = fmt.Sprintf("priority %d; ", *g.Priority) + text
	}
	if g.Abandoned > 0 {
		text += fmt.Sprintf(", %s left", fmtInt(g.Abandoned))
	}
	for _, key := range []string{"ttft_p50_ms", "ttft_p95_ms", "tpot_p50_ms", "tpot_p95_ms"} {
		f, _ := artifact.LookupFigure(key)
		if v, _ := f.Of(&artifact.Benchmark{Metrics: g.Metrics}); v != nil {
			text += fmt.Sprintf("; %s %s", f.Label(), fmtMs(*v))
		}
	}
	return text
}
