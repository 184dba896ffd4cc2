package capacity

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
)

// assemble builds the artifact from the outcomes, in request-index order.
func (r *run) assemble(target Target, started, finished time.Time) *artifact.Benchmark {
	clock := r.clock()
	wall := r.busy().Seconds()
	b := r.workload(target, started, finished, clock)
	caps := r.collect(b)
	b.PerformanceEligible = b.Completed+r.abandoned() == b.Requests && b.Failed == 0
	// A shard cannot know the run's throughput alone: its wall clock is not the run's.
	b.Metrics = buildMetrics(b.RequestTimings, r.cachedRatios(), wall, b.PerformanceEligible && !r.sc.Shard.sharded())
	if b.Metrics.ReasoningChunks > 0 {
		b.MeasurementProtocol = artifact.ProtocolReasoning
	}
	b.MetricPopulation = population(b)
	timeline := r.timeline(started)
	b.Extension = &artifact.Extension{
		Version:  artifact.ExtensionVersion,
		Scenario: r.sc.Name,
		API:      r.sc.API.Name(),
		Complete: true,
		Timeline: timeline,
		Calibration: artifact.Calibration{
			Method:         r.calibration.Method,
			CharsPerToken:  artifact.Float(r.calibration.CharsPerToken),
			OverheadTokens: artifact.Float(r.calibration.OverheadTokens),
			FittedSizes:    len(r.calibration.Fitted),
			Note:           r.calibration.Note,
		},
		ContextAccuracy:  contextAccuracy(timeline, r.calibration.Method != calibrationNone),
		CacheIntent:      string(r.sc.CacheIntent),
		PromptNonce:      r.prompts.Nonce,
		Capabilities:     caps,
		ITL:              r.itl(),
		Arrival:          r.arrival(wall),
		Clock:            clock,
		ServedModels:     r.servedModels(),
		Shard:            r.shard(started),
		StructuredOutput: r.structuredSummary(timeline),
		Reasoning:        reasoningSummary(timeline),
		Phases:           phasesSummary(timeline),
		Send:             sendSplit(timeline),
		CacheBlockTokens: r.sc.CacheBlockTokens,
	}
	r.kind.record(r, b)
	return b
}

// workload is the artifact's identity, workload and timing keys, before any outcome.
func (r *run) workload(target Target, started, finished time.Time, clock artifact.Clock) *artifact.Benchmark {
	sc := r.sc
	b := &artifact.Benchmark{
		BaseURL:                  recordedURL(target.BaseURL),
		ClockDomainID:            optional(sc.ClockDomainID),
		Concurrency:              r.concurrency,
		ConfigurationFingerprint: optional(sc.ConfigurationFingerprint),
		ContextDistribution:      map[string]int{},
		ContextSeed:              sc.ContextSeed,
		ControlledOutputPolicy:   string(sc.Policy),
		Engine:                   optional(sc.Engine),
		Failures:                 []artifact.Failure{},
		FinishedAt:               isoSecond(finished.UnixNano()),
		FinishedAtUnixNs:         finished.UnixNano(),
		GPU:                      optional(sc.GPU),
		MeasurementProtocol:      artifact.ProtocolV3,
		Model:                    sc.Model,
		PromptCacheMode:          string(sc.PromptCacheMode),
		RequestCanaries:          sc.RequestCanaries,
		RequestTimings:           []artifact.RequestTiming{},
		Requests:                 len(r.indices),
		RunID:                    "benchmark-" + time.Unix(started.UnixNano()/1e9, 0).UTC().Format("20060102T150405") + "Z",
		Sampling:                 sampling(sc),
		Schema:                   artifact.Schema,
		ServeFlags:               serveFlags(sc),
		StartedAt:                isoSecond(started.UnixNano()),
		StartedAtUnixNs:          started.UnixNano(),
		Tier:                     optional(sc.Tier),
		TimestampPrecision:       timestampPrecision,
		TimingMethodology:        methodology(clock.Source),
		WallClockMs:              artifact.Float(r.busy().Seconds() * 1000),
	}
	if sc.ContextTokens > 0 {
		b.ContextTokens = new(sc.ContextTokens)
	}
	// Where requests have their own (a trace's lines), the largest asked, in every shard.
	for _, p := range r.plan {
		b.MaxTokens, b.ResponseWords = max(b.MaxTokens, p.maxTokens), max(b.ResponseWords, p.words)
	}
	if sc.shared() {
		b.SharedPrefixTokens = sc.SharedPrefixTokens
	}
	if sc.MaxContextTokens > 0 {
		b.MaxContextTokens = new(sc.MaxContextTokens)
	}
	for _, i := range r.indices {
		b.ContextDistribution[strconv.Itoa(r.plan[i].context)]++
	}
	return b
}

// collect puts each outcome in request_timings or failures and counts the responses, and
// returns the capabilities with what the responses showed of the endpoint.
func (r *run) collect(b *artifact.Benchmark) artifact.Capabilities {
	caps := r.caps
	var usage, cachedTokens, reasoning bool
	for _, o := range r.outcomes {
		usage = usage || o.usage
		cachedTokens = cachedTokens || o.cachedTokens != nil
		reasoning = reasoning || o.reasoning
		switch {
		case o.row != nil:
			b.RequestTimings = append(b.RequestTimings, *o.row)
		case o.failure != nil:
			b.Failures = append(b.Failures, *o.failure)
			if o.failure.ResponseReceived {
				b.ResponsesReceived++
			}
		}
	}
	b.Completed, b.Failed = len(b.RequestTimings), len(b.Failures)
	b.ResponsesReceived += b.Completed
	if b.ResponsesReceived > 0 {
		caps.StreamUsage, caps.CachedTokensReported, caps.ReasoningStream = new(usage), new(cachedTokens), new(reasoning)
	}
	return caps
}

// cachedRatios are what prefix_cache_hit_avg needs of each success, in the rows' order.
func (r *run) cachedRatios() []cachedRatio {
	var out []cachedRatio
	for _, o := range r.outcomes {
		if o.row != nil {
			out = append(out, cachedRatio{cached: o.cachedTokens, prompt: o.row.PromptTokens})
		}
	}
	return out
}

// shard describes the segment a sharded run holds; nil for a whole run.
func (r *run) shard(started time.Time) *artifact.Shard {
	sh := r.sc.Shard
	if !sh.sharded() {
		return nil
	}
	out := &artifact.Shard{Index: sh.Index, Count: sh.Count, TotalRequests: len(r.plan),
		TotalConcurrency: r.sc.Concurrency, Indices: r.indices}
	if at := r.sc.StartAt; !at.IsZero() {
		out.StartAt = new(at.UTC().Format(startAtLayout))
		out.StartSkewMs = artifact.F(started.Sub(at).Seconds() * 1000)
	}
	return out
}

// startAtLayout is how a shared start instant is written: RFC 3339 with milliseconds.
const startAtLayout = "2006-01-02T15:04:05.000Z07:00"

// clock says how the run's events were stamped, from the reads of every response.
func (r *run) clock() artifact.Clock {
	var c artifact.Clock
	for _, o := range r.outcomes {
		c.KernelStampedReads += o.kernelReads
		c.UserStampedReads += o.userReads
	}
	return withSource(c)
}

// servedModels counts the responses by the model their chunks named.
func (r *run) servedModels() map[string]int {
	served := map[string]int{}
	for _, o := range r.outcomes {
		if o.model != "" {
			served[o.model]++
		}
	}
	return served
}

// withSource sets the clock's source from its counts of kernel- and user-stamped reads.
func withSource(c artifact.Clock) artifact.Clock {
	switch {
	case c.UserStampedReads == 0 && c.KernelStampedReads > 0:
		c.Source = clockSourceKernel
	case c.KernelStampedReads == 0:
		c.Source = clockSourceUserSpace
	default:
		c.Source = clockSourceMixed
	}
	return c
}

// Context shortfalls: a request counted more than truncationShortfall below its plan is
// well short of it; when all such requests were counted at one size, the engine cut them
// there.
const truncationShortfall = 0.05

// contextAccuracy compares the prompt tokens the engine counted with the planned sizes,
// over every response that reported them, and names what it sees when requests fall well
// short. All short requests counted at one size is a truncation when that cannot be an
// estimate's error: prompts were sized from a measurement (calibrated), or different
// plans were counted the same.
func contextAccuracy(spans []artifact.RequestSpan, calibrated bool) artifact.ContextAccuracy {
	var acc artifact.ContextAccuracy
	var errs []float64
	worst, worstIndex := 0.0, -1
	var short []artifact.RequestSpan
	for _, s := range spans {
		if s.PromptTokens == nil || s.PlannedContextTokens <= 0 {
			continue
		}
		e := float64(textTokens(s)-s.PlannedContextTokens) / float64(s.PlannedContextTokens)
		errs = append(errs, 100*e)
		if math.Abs(e) > worst || worstIndex < 0 {
			worst, worstIndex = math.Abs(e), s.RequestIndex
		}
		if e < -truncationShortfall {
			short = append(short, s)
		}
	}
	if len(errs) == 0 {
		return acc
	}
	acc.Samples, acc.WorstRequest = len(errs), new(worstIndex)
	acc.MeanErrorPct, acc.MaxAbsErrorPct = artifact.F(stats.FMean(errs)), artifact.F(100*worst)
	if len(short) == 0 {
		return acc
	}
	counted, planned := textTokens(short[0]), short[0].PlannedContextTokens
	oneCount, onePlan := true, true
	for _, s := range short[1:] {
		oneCount = oneCount && textTokens(s) == counted
		onePlan = onePlan && s.PlannedContextTokens == planned
	}
	which := "on every request"
	if len(short) < len(errs) {
		which = fmt.Sprintf("on %d of %d requests", len(short), len(errs))
	}
	plan := fmt.Sprintf("a %d-token plan", planned)
	if !onePlan {
		plan = fmt.Sprintf("plans of up to %d tokens", maxPlanned(short))
	}
	switch {
	case oneCount && (calibrated || !onePlan):
		acc.TruncatedAt, acc.Truncated = new(counted), len(short)
		acc.Diagnosis = fmt.Sprintf("the engine counted %d prompt tokens for %s %s: it truncated the prompt; its window is probably %d", counted, plan, which, counted)
	case !calibrated:
		acc.Diagnosis = fmt.Sprintf("the engine counted %d prompt tokens for %s %s: prompts were sized from an estimate of characters per token, not a measurement (calibration off or failed)", counted, plan, which)
	default:
		acc.Diagnosis = fmt.Sprintf("the engine counted %d prompt tokens for %s, more than %.0f%% short, %s: it did not see the planned prompts", counted, plan, 100*truncationShortfall, which)
	}
	return acc
}

// textTokens are the prompt tokens the engine counted for a request's text (its spans in
// contextAccuracy all report them).
func textTokens(s artifact.RequestSpan) int {
	n, _ := s.TextTokens()
	return n
}

func maxPlanned(spans []artifact.RequestSpan) int {
	m := 0
	for _, s := range spans {
		m = max(m, s.PlannedContextTokens)
	}
	return m
}

// sampling records what was configured and what each request carried.
func sampling(sc Scenario) artifact.Sampling {
	temperature := defaultTemperature
	if sc.Temperature != nil {
		temperature = *sc.Temperature
	}
	s := artifact.Sampling{
		Temperature: artifact.SamplingParam{EffectiveRequest: artifact.F(temperature), Sent: true},
	}
	if sc.Temperature != nil {
		s.Temperature.Requested = artifact.F(*sc.Temperature)
	}
	if sc.TopP != nil {
		s.TopP = artifact.SamplingParam{Requested: artifact.F(*sc.TopP), EffectiveRequest: artifact.F(*sc.TopP), Sent: true}
	}
	return s
}

// serveFlags records the thinking controls and the burst.
func serveFlags(sc Scenario) artifact.ServeFlags {
	f := artifact.ServeFlags{
		NoThinking:        sc.ThinkingMode == ThinkingDisabled,
		ReasoningEffort:   optional(string(sc.ReasoningEffort)),
		SharedPrefixBurst: sc.Burst > 0 && sc.shared(),
		ThinkingMode:      string(sc.ThinkingMode),
	}
	if f.ThinkingMode == "" {
		f.ThinkingMode = string(ThinkingDefault)
	}
	return f
}

// timeline places every request on the run's clock, failures included.
func (r *run) timeline(started time.Time) []artifact.RequestSpan {
	spans := make([]artifact.RequestSpan, len(r.outcomes))
	for k, o := range r.outcomes {
		i := r.indices[k]
		s := artifact.RequestSpan{RequestIndex: i, Outcome: "ok", FirstChunkTokens: o.firstChunkTokens,
			PlannedContextTokens: r.plan[i].context, PromptTokens: o.promptTokens, CachedTokens: o.cachedTokens}
		if !o.sent.IsZero() {
			s.StartOffsetMs = artifact.F(o.sent.Sub(started).Seconds() * 1000)
		}
		if !o.due.IsZero() {
			s.IntendedStartOffsetMs = artifact.F(o.due.Sub(started).Seconds() * 1000)
		}
		row := o.row
		switch {
		case o.failure != nil:
			s.Outcome = o.failure.ErrorType
			row = o.failure.ResponseTiming.Row
		case o.abandoned:
			s.Outcome = artifact.OutcomeAbandoned
			if !o.firstOutput.IsZero() {
				s.TTFTMs = artifact.F(o.firstOutput.Sub(o.sent).Seconds() * 1000)
			}
		}
		if row != nil {
			s.TTFTMs, s.E2EMs = artifact.F(float64(row.TTFTMs)), artifact.F(float64(row.E2EMs))
		}
		if !o.firstToolCall.IsZero() {
			s.FirstToolCallMs = artifact.F(o.firstToolCall.Sub(o.sent).Seconds() * 1000)
		}
		if !o.transmitted.IsZero() {
			s.SentMs = artifact.F(o.transmitted.Sub(o.sent).Seconds() * 1000)
		}
		if o.structureProblem != "" {
			s.StructureProblem = new(o.structureProblem)
		}
		if s.EnginePhases = o.phases; o.phases != nil && row != nil {
			o.phases.BeyondEngineMs = beyondEngine(float64(row.TTFTMs), o.phases)
		}
		s.TraceID = r.traceID(i)
		for _, f := range r.features {
			f.span(r, i, &o, &s)
		}
		if o.row != nil {
			reasoningSplit(&s, o.row, o.reasoningTokens)
		}
		if e := r.expectedAt(i); e != nil {
			s.ExpectedCachedMin, s.ExpectedCachedMax = new(e.Min), new(e.Max)
		}
		spans[k] = s
	}
	return spans
}

// cachedRatio carries what prefix_cache_hit_avg needs of one success.
type cachedRatio struct{ cached, prompt *int }

// buildMetrics computes the metrics block from the successful rows only.
func buildMetrics(rows []artifact.RequestTiming, cached []cachedRatio, wallSeconds float64, eligible bool) artifact.Metrics {
	m := artifact.Metrics{OutputTokenSources: map[string]int{}}
	var ttfo, ttft, gen, e2e, prefill, decode, tpot, prompt, completion []float64
	exactTokens := true
	outputTokens, promptTokens := 0, 0
	for i := range rows {
		row := &rows[i]
		ttfo = append(ttfo, float64(row.TimeToFirstOutputMs))
		ttft = append(ttft, float64(row.TTFTMs))
		gen = append(gen, float64(row.GenerationMs))
		e2e = append(e2e, float64(row.E2EMs))
		prefill = appendNullable(prefill, row.EffectivePrefillTokS)
		decode = appendNullable(decode, row.DecodeTokS)
		tpot = appendNullable(tpot, row.MeanInterTokenLatencyMs)
		if row.PromptTokens != nil {
			prompt = append(prompt, float64(*row.PromptTokens))
			promptTokens += *row.PromptTokens
		}
		if row.OutputTokens != nil {
			completion = append(completion, float64(*row.OutputTokens))
			outputTokens += *row.OutputTokens
		}
		if row.OutputTokenSource != sourceUsage {
			exactTokens = false
		}
		countAnswer(&m, row)
	}
	m.TimeToFirstOutput = distribution(ttfo)
	m.TTFT = distribution(ttft)
	m.Generation = distribution(gen)
	m.E2E = distribution(e2e)
	m.EffectivePrefillTokS = distribution(prefill)
	m.DecodeTokS = distribution(decode)
	// Three names of one figure (the v1 keys keep all three): summarized once.
	tpotDist := distribution(tpot)
	m.MeanInterTokenLatency, m.MeanTimePerOutputToken, m.TPOT = tpotDist, tpotDist, tpotDist
	m.PromptTokensDist = distribution(prompt)
	m.CompletionTokens = distribution(completion)

	m.PromptTokenSamples = len(prompt)
	if len(prompt) > 0 {
		m.PromptTokens = new(promptTokens)
	}
	if exactTokens {
		m.OutputTokens = new(outputTokens)
	} else if wallSeconds > 0 {
		m.ContentChunksS = artifact.F(float64(m.ContentChunks) / wallSeconds)
	}
	if observed := m.ControlledOutputSamples - m.ControlledOutputUnobservable; observed > 0 {
		m.ControlledOutputExactAdherenceRate = artifact.F(float64(m.ControlledOutputExactAdherence) / float64(observed))
	}
	m.PrefixCacheHitAvg = prefixCacheHit(cached)
	m.ThroughputPerformanceEligible = eligible && m.OutputTokens != nil && wallSeconds > 0
	if m.ThroughputPerformanceEligible {
		m.ThroughputTokS = artifact.F(float64(*m.OutputTokens) / wallSeconds)
	}
	return m
}

// countAnswer counts a row's chunks, its token source, and how its answer held to the
// controlled output and its canary.
func countAnswer(m *artifact.Metrics, row *artifact.RequestTiming) {
	m.OutputTokenSources[row.OutputTokenSource]++
	m.ContentChunks += row.ContentChunks
	m.ReasoningChunks += row.ReasoningChunks
	if co := row.ControlledOutput; co != nil {
		m.ControlledOutputSamples++
		switch {
		case co.ExactAdherence == nil:
			m.ControlledOutputUnobservable++
		case *co.ExactAdherence:
			m.ControlledOutputExactAdherence++
		}
	}
	if c := row.RequestCanary; c != nil {
		m.RequestCanarySamples++
		if c.Passed {
			m.RequestCanaryPassed++
		}
	}
}

// prefixCacheHit is the mean share of each prompt the engine served from its cache, over
// the successes that report it; nil when none does.
func prefixCacheHit(cached []cachedRatio) *artifact.Float {
	var ratios []float64
	for _, c := range cached {
		if c.cached != nil && c.prompt != nil && *c.prompt > 0 {
			ratios = append(ratios, float64(*c.cached)/float64(*c.prompt))
		}
	}
	if len(ratios) == 0 {
		return nil
	}
	return artifact.F(stats.ExactMean(ratios))
}

func appendNullable(values []float64, v *artifact.Float) []float64 {
	if v == nil {
		return values
	}
	return append(values, float64(*v))
}

// distribution converts a summary into the artifact's family; no samples, all null.
func distribution(values []float64) artifact.Distribution {
	s, ok := stats.Summarize(values)
	if !ok {
		return artifact.Distribution{}
	}
	return artifact.Distribution{
		Samples: s.N, Mean: artifact.F(s.Mean), StdDev: artifact.F(s.StdDev),
		MeanCI95Low: artifact.F(s.MeanCI95Low), MeanCI95High: artifact.F(s.MeanCI95High),
		Min: artifact.F(s.Min), P25: artifact.F(s.P25), P50: artifact.F(s.P50), P75: artifact.F(s.P75),
		P90: artifact.F(s.P90), P95: artifact.F(s.P95), P99: artifact.F(s.P99), Max: artifact.F(s.Max),
	}
}

// population describes which requests the metrics stand on.
func population(b *artifact.Benchmark) artifact.MetricPopulation {
	p := artifact.MetricPopulation{
		AggregateThroughputEligible:  b.Metrics.ThroughputPerformanceEligible,
		AttemptedRequests:            b.Requests,
		ExcludedRequests:             b.Failed,
		FailurePolicy:                failurePolicy,
		P99Interpretation:            p99Interpretation(b.Completed),
		P99InterpretationByMetric:    map[string]string{},
		P99MinimumRecommendedSamples: artifact.P99MinimumSamples,
		P99SamplesByMetric:           map[string]int{},
		PerformanceEligibleRequests:  b.Completed,
		SuccessfulRequests:           b.Completed,
	}
	for _, name := range p99Families {
		d, _ := b.Metrics.Family(name)
		p.P99SamplesByMetric[name] = d.Samples
		p.P99InterpretationByMetric[name] = p99Interpretation(d.Samples)
	}
	return p
}

func p99Interpretation(samples int) string {
	if samples >= artifact.P99MinimumSamples {
		return p99TailEstimate
	}
	return p99Descriptive
}

// isoSecond renders Unix nanoseconds as UTC ISO 8601 whole seconds (floor).
func isoSecond(ns int64) string {
	sec := ns / 1e9
	if ns < 0 && ns%1e9 != 0 {
		sec--
	}
	return time.Unix(sec, 0).UTC().Format("2006-01-02T15:04:05Z")
}

// recordedURL is the base URL without credentials, as recorded in the artifact.
func recordedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "[unparseable base URL]"
	}
	u.User = nil
	return u.String()
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Constant strings of metric_population, verbatim from the reference.
const (
	failurePolicy      = "failed or contract-invalid responses retain sanitized timing and metadata but are excluded from performance distributions"
	p99Descriptive     = "descriptive-nearest-rank-only"
	p99TailEstimate    = "tail-estimate"
	timestampPrecision = "nanosecond-unix-fields; ISO labels are second precision"
)

// p99Families are the metric families listed in metric_population's p99 maps.
var p99Families = []string{"decode_tok_s", "e2e", "effective_prefill_tok_s", "tpot", "ttft"}

// abandoned counts the requests the client left as planned.
func (r *run) abandoned() int {
	n := 0
	for _, o := range r.outcomes {
		if o.abandoned {
			n++
		}
	}
	return n
}
