package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
)

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
