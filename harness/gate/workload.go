package gate

import (
	"fmt"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// RequestCanaries checks that every response began with its own marker and carried no
// other request's: cross-request contamination in a batching engine is a failed run. A
// run without canaries has nothing to judge.
func RequestCanaries() Check {
	return Check{Name: "passes every request canary", Kind: KindOutput, judge: func(a *artifact.Benchmark) Result {
		if !a.RequestCanaries {
			return unjudged(RunFailed, "the run had request canaries off")
		}
		var misses []string
		for _, f := range a.Failures {
			switch c := f.RequestCanary; {
			case c == nil:
				misses = append(misses, fmt.Sprintf("request %d: no response to check (%s)", f.RequestIndex, f.ErrorType))
			case !c.Passed:
				misses = append(misses, fmt.Sprintf("request %d: %s", f.RequestIndex, describeCanary(c)))
			}
		}
		for _, r := range a.RequestTimings {
			if r.RequestCanary == nil || !r.RequestCanary.Passed {
				misses = append(misses, fmt.Sprintf("request %d: canary not passed", r.RequestIndex))
			}
		}
		if len(misses) > 0 {
			return found(RunFailed, fmt.Sprintf("%d of %d responses failed their request canary (cross-request contamination):\n  %s",
				len(misses), a.Requests, listMisses(misses)))
		}
		return held(fmt.Sprintf("all %d responses passed their request canary", a.Requests))
	}}
}

func describeCanary(c *artifact.RequestCanary) string {
	var why []string
	if !c.MarkerAtStart {
		why = append(why, "does not begin with "+c.Marker)
	}
	if c.ForeignMarkerCount > 0 {
		why = append(why, fmt.Sprintf("carries %d other request marker(s)", c.ForeignMarkerCount))
	}
	if !c.CaptureComplete {
		why = append(why, "capture truncated")
	}
	return strings.Join(why, ", ")
}

// ColdPrefixCache checks that no request was served from the prefix cache, as a
// cold-cache scenario declares: a warm cache inflates TTFT and prefill figures silently,
// and the run did not measure the planned workload. An endpoint that reports no cached
// tokens cannot be verified: nothing to judge.
func ColdPrefixCache() Check {
	return Check{Name: "is served from a cold prefix cache", Kind: KindContext, judge: func(a *artifact.Benchmark) Result {
		hit := a.Metrics.PrefixCacheHitAvg
		if hit == nil {
			return unjudged(RunFailed, fmt.Sprintf("the endpoint reported no cached_tokens over %d requests, so a cold cache cannot be verified", a.Completed))
		}
		msg := fmt.Sprintf("prefix cache served %.1f%% of prompt tokens on average over %d requests of a cold-cache scenario: a warm cache inflates TTFT and prefill figures", 100*float64(*hit), a.Completed)
		if *hit == 0 {
			return held(msg)
		}
		return found(RunFailed, msg)
	}}
}

// PrefixCacheHitRate checks that the engine served at least atLeast of prompt tokens from
// its prefix cache on average (prefix_cache_hit_avg), as a shared-prefix scenario expects.
func PrefixCacheHitRate(atLeast float64) Check {
	return Check{Name: fmt.Sprintf("is served %s of its prompt tokens from the prefix cache", percent(atLeast)), Kind: KindContext, judge: func(a *artifact.Benchmark) Result {
		if a.Completed == 0 {
			return unjudged(RunFailed, fmt.Sprintf("no request succeeded (%d failed)", a.Failed))
		}
		hit := a.Metrics.PrefixCacheHitAvg
		if hit == nil {
			return found(RunFailed, fmt.Sprintf("the endpoint reported no usage.prompt_tokens_details.cached_tokens over %d requests: no prefix cache hit is visible (want at least %.1f%%)", a.Completed, 100*atLeast))
		}
		msg := fmt.Sprintf("prefix cache served %.1f%% of prompt tokens on average over %d requests (want at least %.1f%%)", 100*float64(*hit), a.Completed, 100*atLeast)
		if float64(*hit) >= atLeast {
			return held(msg)
		}
		return found(RunFailed, msg)
	}}
}

// PlannedPrefixCache checks that the engine served from its prefix cache what the workload
// shares: each request's cached tokens within its expected range (a trace's shared blocks,
// a session's earlier turns; the artifact's expected_cached_min and expected_cached_max),
// give or take the engine's cache block. A replay whose engine cached less did not run the
// trace's workload, and one that cached more shared what the trace does not. Without
// cached tokens in usage it judges the run's total from the engine's own prefix-cache
// metrics; with neither there is nothing to judge.
func PlannedPrefixCache() Check {
	return Check{Name: "serves from its prefix cache what the workload shares", Kind: KindContext, judge: func(a *artifact.Benchmark) Result {
		ext := a.Extension
		if ext == nil {
			return unjudged(RunFailed, "the artifact has no anvilbench block to read the expected sharing from")
		}
		block := max(ext.CacheBlockTokens, 1)
		var planned, reported int
		var lo, hi, prompt float64
		var misses []string
		for _, s := range ext.Timeline {
			if s.ExpectedCachedMin == nil || s.Outcome != "ok" {
				continue
			}
			planned++
			lo, hi = lo+float64(*s.ExpectedCachedMin), hi+float64(*s.ExpectedCachedMax)
			if s.PromptTokens != nil {
				prompt += float64(*s.PromptTokens)
			}
			if s.CachedTokens == nil {
				continue
			}
			reported++
			if c := *s.CachedTokens; c <= *s.ExpectedCachedMin-block || c >= *s.ExpectedCachedMax+block {
				misses = append(misses, fmt.Sprintf("%s: cached %d tokens, the workload shares %s", spanName(s), c, tokenRange(*s.ExpectedCachedMin, *s.ExpectedCachedMax)))
			}
		}
		switch {
		case planned == 0:
			return unjudged(RunFailed, "no successful request had an expected prefix-cache range")
		case reported == 0:
			return judgeCacheMetrics(ext.EngineMetrics, lo, hi, prompt, planned)
		case len(misses) > 0:
			return found(RunFailed, fmt.Sprintf("%d of %d requests found a cached prefix outside what the workload shares (within a cache block of %d tokens):\n  %s",
				len(misses), reported, block, listMisses(misses)))
		}
		return held(fmt.Sprintf("all %d requests found what the workload shares cached (within a cache block of %d tokens; %.0f to %.0f tokens in all)", reported, block, lo, hi))
	}}
}

// judgeCacheMetrics judges the run's total from the engine's prefix-cache hit rate, for an
// engine that reports no cached tokens in usage.
func judgeCacheMetrics(m artifact.EngineMetrics, lo, hi, prompt float64, planned int) Result {
	if m.PrefixCacheHitRate == nil || m.PromptTokens == nil || prompt == 0 {
		return skipped(fmt.Sprintf("the engine reported no cached_tokens and no prefix-cache metrics: the sharing of %d requests cannot be checked", planned))
	}
	hits := float64(*m.PrefixCacheHitRate) * float64(*m.PromptTokens)
	msg := fmt.Sprintf("the engine's metrics count %.0f prefix-cache hit tokens over the run; the workload shares %.0f to %.0f over %d requests", hits, lo, hi, planned)
	// The metrics cover the whole run, probes included: judge only a clear miss.
	if hits < lo/2 {
		return found(RunFailed, msg+": the engine did not serve the shared prefixes from its cache")
	}
	return held(msg)
}

// spanName names a request of the timeline for a message: its index, and its trace line.
func spanName(s artifact.RequestSpan) string {
	name := fmt.Sprintf("request %d", s.RequestIndex)
	if s.TraceLine != nil {
		name += fmt.Sprintf(" (trace line %d)", *s.TraceLine)
	}
	if s.Session != nil && s.Turn != nil {
		name += fmt.Sprintf(" (session %d, turn %d)", *s.Session, *s.Turn)
	}
	return name
}

func tokenRange(lo, hi int) string {
	if lo == hi {
		return fmt.Sprintf("%d", lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// ValidToolCalls checks that every response of a tool-call run made exactly one call of
// the offered tool with arguments that are valid JSON matching its schema; the words in
// them are ControlledOutput's to judge. A run that offered no tool has nothing to judge.
func ValidToolCalls() Check { return structured("tool_call", "made one valid call of its tool") }

// ValidJSONAnswers checks that every response of a JSON-schema run was valid JSON matching
// the schema. A run that asked for no JSON answer has nothing to judge.
func ValidJSONAnswers() Check {
	return structured("json_schema", "answers with valid JSON of its schema")
}

// structured is the check that every response of a run asking for output held a valid
// structure.
func structured(output, name string) Check {
	return Check{Name: name, Kind: KindOutput, judge: func(a *artifact.Benchmark) Result {
		var so *artifact.StructuredOutput
		if a.Extension != nil {
			so = a.Extension.StructuredOutput
		}
		if so == nil || so.Output != output {
			return unjudged(RunFailed, fmt.Sprintf("the run asked for no %s output", output))
		}
		var misses []string
		for _, f := range a.Failures {
			switch {
			case f.ErrorType == "structured_output_mismatch":
				misses = append(misses, fmt.Sprintf("request %d: %s", f.RequestIndex, strings.TrimPrefix(f.ErrorMessage, "structured output validation failed: ")))
			case !f.ResponseReceived:
				misses = append(misses, fmt.Sprintf("request %d: no response (%s)", f.RequestIndex, f.ErrorType))
			}
		}
		for _, s := range a.Extension.Timeline {
			if s.StructureProblem != nil {
				misses = append(misses, fmt.Sprintf("request %d: %s", s.RequestIndex, *s.StructureProblem))
			}
		}
		if len(misses) > 0 {
			return found(RunFailed, fmt.Sprintf("%d of %d requests did not hold a valid %s:\n  %s", len(misses), a.Requests, output, listMisses(misses)))
		}
		msg := fmt.Sprintf("all %d responses held a valid %s", so.Responses, output)
		if p := so.FirstToolCallMs; p != nil {
			msg += fmt.Sprintf("; time to the first tool call p50 %.1f ms", float64(p.P50))
		}
		return held(msg)
	}}
}
