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
