package capacity

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// NamedArtifact is an artifact with the name (a file) it came from, for messages.
type NamedArtifact struct {
	Name string
	*artifact.Benchmark
}

// Merge recomputes the artifact of a sharded run from the artifacts of all its shards:
// every figure from the merged per-request rows (never an average of the shards'
// percentiles), the wall clock from the earliest start to the latest end (the shards share
// a clock domain), the timeline on that clock. It refuses shards of different runs or
// workloads, a shard given twice, a missing shard and overlapping request indices, naming
// the shard and the field; every problem is reported at once.
func Merge(shards []NamedArtifact) (*artifact.Benchmark, error) {
	if len(shards) == 0 {
		return nil, errors.New("no shard artifacts to merge")
	}
	if err := checkShards(shards); err != nil {
		return nil, err
	}
	slices.SortFunc(shards, func(a, b NamedArtifact) int { return cmp.Compare(a.Extension.Shard.Index, b.Extension.Shard.Index) })
	first := shards[0].Benchmark
	shard := first.Extension.Shard
	b := *first // identity and workload keys, the same in every shard
	b.Requests, b.Concurrency = shard.TotalRequests, shard.TotalConcurrency
	b.RequestTimings, b.Failures = []artifact.RequestTiming{}, []artifact.Failure{}
	b.ContextDistribution = map[string]int{}
	b.Completed, b.Failed, b.ResponsesReceived = 0, 0, 0
	for _, s := range shards {
		b.StartedAtUnixNs = min(b.StartedAtUnixNs, s.StartedAtUnixNs)
		b.FinishedAtUnixNs = max(b.FinishedAtUnixNs, s.FinishedAtUnixNs)
	}
	ext := &artifact.Extension{Version: artifact.ExtensionVersion, Scenario: first.Extension.Scenario, API: first.Extension.API, Complete: true,
		Calibration: first.Extension.Calibration, CacheIntent: first.Extension.CacheIntent, Capabilities: first.Extension.Capabilities,
		PromptNonce: first.Extension.PromptNonce, SelfTest: first.Extension.SelfTest, Baseline: first.Extension.Baseline,
		RunID: first.Extension.RunID, ContextClamp: mergedClamp(shards), ServedModels: map[string]int{},
		EngineMetrics: artifact.EngineMetrics{Error: fmt.Sprintf("merged from %d shards: each shard's artifact holds the engine's metrics over its own window", len(shards))}}
	spans, clock := gather(&b, ext, shards)
	wall := refigure(&b, ext, spans, clock)
	ext.Arrival = mergedArrival(first.Extension.Arrival, spans, b.RequestTimings, b.Concurrency, wall)
	mergeKinds(ext, shards, spans)
	b.Extension = ext
	ext.Steady = steadyState(&b, b.Concurrency, ext.Arrival.RatePerSec == nil)
	mergeFeatures(shards, spans, &b)
	return &b, nil
}

// gather adds every shard's rows, failures, planned contexts and extension counts to the
// merged b and ext, and returns the timeline on the merged run's clock, in request-index
// order, with the reads' counts.
func gather(b *artifact.Benchmark, ext *artifact.Extension, shards []NamedArtifact) ([]artifact.RequestSpan, artifact.Clock) {
	var spans []artifact.RequestSpan
	var clock artifact.Clock
	for _, s := range shards {
		x := s.Extension
		b.RequestTimings = append(b.RequestTimings, s.RequestTimings...)
		b.Failures = append(b.Failures, s.Failures...)
		b.ResponsesReceived += s.ResponsesReceived
		for planned, n := range s.ContextDistribution {
			b.ContextDistribution[planned] += n
		}
		// Each shard's offsets are from its own start: placed on the merged run's clock.
		shift := float64(s.StartedAtUnixNs-b.StartedAtUnixNs) / 1e6
		for _, sp := range x.Timeline {
			if sp.StartOffsetMs != nil {
				sp.StartOffsetMs = artifact.F(float64(*sp.StartOffsetMs) + shift)
			}
			if sp.IntendedStartOffsetMs != nil {
				sp.IntendedStartOffsetMs = artifact.F(float64(*sp.IntendedStartOffsetMs) + shift)
			}
			spans = append(spans, sp)
		}
		ext.Complete = ext.Complete && x.Complete
		ext.Capabilities = mergeCapabilities(ext.Capabilities, x.Capabilities)
		ext.ClientOverhead = worseOverhead(ext.ClientOverhead, x.ClientOverhead, x.Shard.Index)
		clock.KernelStampedReads += x.Clock.KernelStampedReads
		clock.UserStampedReads += x.Clock.UserStampedReads
		for m, n := range x.ServedModels {
			ext.ServedModels[m] += n
		}
		ext.MergedFrom = append(ext.MergedFrom, artifact.MergedShard{Index: x.Shard.Index, Requests: s.Requests,
			Concurrency: s.Concurrency, RunID: s.RunID, StartSkewMs: x.Shard.StartSkewMs, Complete: x.Complete})
	}
	slices.SortFunc(b.RequestTimings, func(x, y artifact.RequestTiming) int { return cmp.Compare(x.RequestIndex, y.RequestIndex) })
	slices.SortFunc(b.Failures, func(x, y artifact.Failure) int { return cmp.Compare(x.RequestIndex, y.RequestIndex) })
	slices.SortFunc(spans, func(x, y artifact.RequestSpan) int { return cmp.Compare(x.RequestIndex, y.RequestIndex) })
	return spans, clock
}

// refigure recomputes the merged run's times, counts and every figure from its merged
// rows and timeline, and returns its wall clock in seconds.
func refigure(b *artifact.Benchmark, ext *artifact.Extension, spans []artifact.RequestSpan, clock artifact.Clock) (wall float64) {
	started, finished := time.Unix(0, b.StartedAtUnixNs), time.Unix(0, b.FinishedAtUnixNs)
	wall = finished.Sub(started).Seconds()
	b.StartedAt, b.FinishedAt = isoSecond(b.StartedAtUnixNs), isoSecond(b.FinishedAtUnixNs)
	b.RunID = "benchmark-" + time.Unix(b.StartedAtUnixNs/1e9, 0).UTC().Format("20060102T150405") + "Z"
	b.WallClockMs = artifact.Float(wall * 1000)
	b.Completed, b.Failed = len(b.RequestTimings), len(b.Failures)
	abandoned := 0
	for _, sp := range spans {
		if sp.Outcome == artifact.OutcomeAbandoned {
			abandoned++
		}
	}
	b.PerformanceEligible = b.Completed+abandoned == b.Requests && b.Failed == 0
	cachedOf := map[int]*int{}
	for _, sp := range spans {
		cachedOf[sp.RequestIndex] = sp.CachedTokens
	}
	var cached []cachedRatio
	for _, r := range b.RequestTimings {
		cached = append(cached, cachedRatio{cached: cachedOf[r.RequestIndex], prompt: r.PromptTokens})
	}
	b.Metrics = buildMetrics(b.RequestTimings, cached, wall, b.PerformanceEligible)
	b.MeasurementProtocol = artifact.ProtocolV3
	if b.Metrics.ReasoningChunks > 0 {
		b.MeasurementProtocol = artifact.ProtocolReasoning
	}
	b.MetricPopulation = population(b)
	clock = withSource(clock)
	b.TimingMethodology = methodology(clock.Source)
	ext.Clock = clock
	ext.Timeline = spans
	ext.ContextAccuracy = contextAccuracy(spans, ext.Calibration.Method != calibrationNone)
	ext.ITL = mergedChunking(b.RequestTimings, spans)
	return wall
}

// mergeKinds gives the merged artifact the workload kind's block, its figures recomputed
// from the merged timeline: a trace's start errors, sessions' figures by turn, the time to
// the first tool call. Each shard's expected cache ranges stand: a shard of a trace counts
// every other shard's lines as sent when they were due.
func mergeKinds(ext *artifact.Extension, shards []NamedArtifact, spans []artifact.RequestSpan) {
	first := shards[0].Extension
	ext.CacheBlockTokens = first.CacheBlockTokens
	ext.Send = sendSplit(spans)
	ext.Reasoning = reasoningSummary(spans)
	ext.Phases = phasesSummary(spans)
	if t := first.Trace; t != nil {
		merged := *t
		merged.StartErrorMs = startErrors(spans)
		ext.Trace = &merged
	}
	if s := first.Sessions; s != nil {
		merged := *s
		merged.Sessions = 0
		for _, sh := range shards {
			merged.Sessions += sh.Extension.Sessions.Sessions
		}
		merged.ByTurn = turnFigures(spans, s.Turns)
		ext.Sessions = &merged
	}
	if so := first.StructuredOutput; so != nil {
		merged := *so
		merged.Responses, merged.Valid = 0, 0
		for _, sh := range shards {
			merged.Responses += sh.Extension.StructuredOutput.Responses
			merged.Valid += sh.Extension.StructuredOutput.Valid
		}
		if so.FirstToolCallMs != nil {
			merged.FirstToolCallMs = firstToolCalls(spans)
		}
		ext.StructuredOutput = &merged
	}
}

// itlMerged is the basis of a merged artifact's pooled ITL: the chunk gaps it pools stay in
// the shards' streams, so the merged artifact has none.
const itlMerged = "unavailable-merged"

// mergedChunking is what the merged rows say of chunking: no gaps, but tokens per chunk,
// and with it how far tpot may read low, follow from the rows' counts as they do in a run.
func mergedChunking(rows []artifact.RequestTiming, spans []artifact.RequestSpan) artifact.ITLSummary {
	out := artifact.ITLSummary{Basis: itlMerged}
	perToken := true
	for _, sp := range spans {
		if sp.Outcome == "ok" {
			perToken = perToken && sp.FirstChunkTokens != nil
		}
	}
	chunks, tokens := 0, 0
	for _, r := range rows {
		chunks += r.ContentChunks + r.ReasoningChunks
		if r.OutputTokens != nil {
			tokens += *r.OutputTokens
		}
	}
	out.TokensPerChunk, out.Note = chunking(chunks, tokens, len(rows), perToken)
	return out
}

// checkShards refuses shards that are not one run's, each problem with its shard and
// field.
func checkShards(shards []NamedArtifact) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	label := func(s NamedArtifact) string {
		if s.Extension == nil || s.Extension.Shard == nil {
			return s.Name
		}
		return fmt.Sprintf("shard %d (%s)", s.Extension.Shard.Index, s.Name)
	}
	var valid []NamedArtifact
	for _, s := range shards {
		if s.Benchmark == nil || s.Extension == nil || s.Extension.Shard == nil {
			bad("%s is not a shard artifact: it has no anvilbench.shard", s.Name)
			continue
		}
		valid = append(valid, s)
	}
	if len(valid) == 0 {
		return errors.Join(errs...)
	}
	ref := valid[0]
	for _, s := range valid[1:] {
		for _, d := range runDifferences(ref.Benchmark, s.Benchmark) {
			bad("%s: %s, against %s", label(s), d, label(ref))
		}
	}
	count := ref.Extension.Shard.Count
	byIndex := map[int]NamedArtifact{}
	owner := map[int]NamedArtifact{}
	for _, s := range valid {
		sh := s.Extension.Shard
		if other, dup := byIndex[sh.Index]; dup {
			bad("shard %d is given twice: %s and %s", sh.Index, other.Name, s.Name)
			continue
		}
		byIndex[sh.Index] = s
		errs = append(errs, shardIndices(s, owner, label)...)
	}
	var missing []string
	for i := range count {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		bad("shard %s of %d missing: the run is incomplete without it", strings.Join(missing, ", "), count)
	}
	if len(missing) == 0 && len(owner) != ref.Extension.Shard.TotalRequests {
		bad("the shards ran %d of the run's %d requests", len(owner), ref.Extension.Shard.TotalRequests)
	}
	return errors.Join(errs...)
}

// shardIndices checks that a shard recorded one outcome for each of its indices and that
// no other shard, of those in owner, holds one of them; it adds the shard's to owner.
func shardIndices(s NamedArtifact, owner map[int]NamedArtifact, label func(NamedArtifact) string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	sh := s.Extension.Shard
	ran := map[int]bool{}
	for _, r := range s.RequestTimings {
		ran[r.RequestIndex] = true
	}
	for _, f := range s.Failures {
		ran[f.RequestIndex] = true
	}
	if len(ran) != len(sh.Indices) || len(sh.Indices) != s.Requests {
		bad("%s: %d requests recorded for the %d indices it was given", label(s), len(ran), len(sh.Indices))
	}
	for _, i := range sh.Indices {
		if !ran[i] {
			bad("%s: request %d of its indices has no outcome", label(s), i)
		}
		if other, taken := owner[i]; taken {
			bad("request %d is in %s and in %s: the shards overlap", i, label(other), label(s))
		}
		owner[i] = s
	}
	return errs
}

// runDifferences names the fields in which two shards are not parts of one run of one
// workload.
func runDifferences(a, b *artifact.Benchmark) []string {
	var out []string
	differ := func(field string, x, y any) {
		if !reflect.DeepEqual(x, y) {
			out = append(out, fmt.Sprintf("%s %s vs %s", field, show(y), show(x)))
		}
	}
	sa, sb := a.Extension.Shard, b.Extension.Shard
	differ("shard count", sa.Count, sb.Count)
	differ("total requests", sa.TotalRequests, sb.TotalRequests)
	differ("total concurrency", sa.TotalConcurrency, sb.TotalConcurrency)
	differ("start_at", sa.StartAt, sb.StartAt)
	differ("scenario", a.Extension.Scenario, b.Extension.Scenario)
	differ("api", a.Extension.API, b.Extension.API)
	differ("prompt_nonce", a.Extension.PromptNonce, b.Extension.PromptNonce)
	differ("run_id", a.Extension.RunID, b.Extension.RunID)
	differ("clock_domain_id", a.ClockDomainID, b.ClockDomainID)
	differ("schema", a.Schema, b.Schema)
	differ("model", a.Model, b.Model)
	differ("engine", a.Engine, b.Engine)
	differ("gpu", a.GPU, b.GPU)
	differ("tier", a.Tier, b.Tier)
	differ("base_url", a.BaseURL, b.BaseURL)
	differ("configuration_fingerprint", a.ConfigurationFingerprint, b.ConfigurationFingerprint)
	differ("context_seed", a.ContextSeed, b.ContextSeed)
	differ("context_tokens", a.ContextTokens, b.ContextTokens)
	differ("max_context_tokens", a.MaxContextTokens, b.MaxContextTokens)
	differ("max_tokens", a.MaxTokens, b.MaxTokens)
	differ("response_words", a.ResponseWords, b.ResponseWords)
	differ("controlled_output_policy", a.ControlledOutputPolicy, b.ControlledOutputPolicy)
	differ("prompt_cache_mode", a.PromptCacheMode, b.PromptCacheMode)
	differ("shared_prefix_tokens", a.SharedPrefixTokens, b.SharedPrefixTokens)
	differ("request_canaries", a.RequestCanaries, b.RequestCanaries)
	differ("sampling", a.Sampling, b.Sampling)
	differ("serve_flags", a.ServeFlags, b.ServeFlags)
	differ("arrival model", a.Extension.Arrival.Model, b.Extension.Arrival.Model)
	return out
}

func show(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return "null"
		}
		v = rv.Elem().Interface()
	}
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%v", v)
}

// mergeCapabilities keeps what any shard saw of the endpoint.
func mergeCapabilities(a, b artifact.Capabilities) artifact.Capabilities {
	or := func(x, y *bool) *bool {
		switch {
		case x == nil:
			return y
		case y == nil:
			return x
		}
		return new(*x || *y)
	}
	a.StreamUsage = or(a.StreamUsage, b.StreamUsage)
	a.ReasoningStream = or(a.ReasoningStream, b.ReasoningStream)
	a.CachedTokensReported = or(a.CachedTokensReported, b.CachedTokensReported)
	return a
}

// worseOverhead keeps the worse of two shards' client overheads, figure by figure: each
// client bounds the figures on its own.
func worseOverhead(a, b artifact.ClientOverhead, shard int) artifact.ClientOverhead {
	maxF := func(x, y *artifact.Float) *artifact.Float {
		if x == nil || (y != nil && *y > *x) {
			return y
		}
		return x
	}
	a.DispatchDelayP50Ms, a.DispatchDelayMaxMs = maxF(a.DispatchDelayP50Ms, b.DispatchDelayP50Ms), maxF(a.DispatchDelayMaxMs, b.DispatchDelayMaxMs)
	a.EventLagMeanUs, a.EventLagMaxUs = maxF(a.EventLagMeanUs, b.EventLagMeanUs), maxF(a.EventLagMaxUs, b.EventLagMaxUs)
	a.CPUSharePct, a.CPUWaitPct = maxF(a.CPUSharePct, b.CPUSharePct), maxF(a.CPUWaitPct, b.CPUWaitPct)
	a.StartLagP99Ms, a.StartLagMaxMs = maxF(a.StartLagP99Ms, b.StartLagP99Ms), maxF(a.StartLagMaxMs, b.StartLagMaxMs)
	a.StartLagSharePct = maxF(a.StartLagSharePct, b.StartLagSharePct)
	a.StartLagSamples += b.StartLagSamples
	a.Cores = max(a.Cores, b.Cores)
	if b.GCCycles != nil {
		a.GCCycles = new(*b.GCCycles + derefInt(a.GCCycles))
	}
	if b.Bottleneck {
		a.Bottleneck = true
		a.Reason = joinReason(a.Reason, fmt.Sprintf("shard %d: %s", shard, b.Reason))
	}
	return a
}

// mergedClamp is the shards' clamp of one plan: the requests clamped in all of them.
func mergedClamp(shards []NamedArtifact) *artifact.ContextClamp {
	var out *artifact.ContextClamp
	for _, s := range shards {
		c := s.Extension.ContextClamp
		if c == nil {
			continue
		}
		if out == nil {
			copied := *c
			out = &copied
			continue
		}
		out.Requests += c.Requests
		out.LargestPlanned = max(out.LargestPlanned, c.LargestPlanned)
	}
	return out
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// mergedArrival recomputes the arrival summary from the merged timeline.
func mergedArrival(first artifact.Arrival, spans []artifact.RequestSpan, rows []artifact.RequestTiming, concurrency int, wall float64) artifact.Arrival {
	a := artifact.Arrival{Model: first.Model, RatePerSec: first.RatePerSec, Seed: first.Seed, MaxInFlight: concurrency}
	sent := 0
	ttftOf := map[int]artifact.RequestTiming{}
	for _, r := range rows {
		ttftOf[r.RequestIndex] = r
	}
	var lag, ttft, e2e, service []float64
	for _, s := range spans {
		if s.StartOffsetMs == nil {
			continue
		}
		sent++
		if s.IntendedStartOffsetMs == nil {
			continue
		}
		late := float64(*s.StartOffsetMs - *s.IntendedStartOffsetMs)
		lag = append(lag, late)
		if r, ok := ttftOf[s.RequestIndex]; ok {
			ttft, e2e = append(ttft, late+float64(r.TTFTMs)), append(e2e, late+float64(r.E2EMs))
			service = append(service, float64(r.TTFTMs))
		}
	}
	if wall > 0 {
		a.AchievedRateSec = artifact.F(float64(sent) / wall)
	}
	if first.RatePerSec != nil {
		a.ScheduleLagMs, a.IntendedTTFTMs, a.IntendedE2EMs, a.ServiceTTFTMs = percentiles(lag), percentiles(ttft), percentiles(e2e), percentiles(service)
	}
	return a
}
