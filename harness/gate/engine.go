package gate

import (
	"fmt"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// foreignTokenTolerance is how many more tokens than the run's own responses reported the
// engine may count over the run before the excess is another workload's (EngineToItself):
// 2% of the run's, plus one per request for an engine that counts a token (an end of
// sequence) its usage leaves out.
const foreignTokenTolerance = 0.02

// EngineToItself checks, from the engine's own metrics, that the run had the engine to
// itself: no more prompt or generated tokens counted over it than its responses reported
// (foreignTokenTolerance), and, where those counters cannot be compared, no request
// running or waiting when it began. Another client, or the requests an interrupted run
// left behind, make an invalid run: the figures measured a busier engine than the workload
// planned. It is skipped when the engine serves no metrics, and for a shard or a run merged
// from shards, whose shards share the engine.
func EngineToItself() Check {
	return Check{Name: "had the engine to itself", Kind: KindEngine, judge: func(a *artifact.Benchmark) Result {
		if a.Extension == nil {
			return skipped("the artifact records no engine metrics (not written by anvilbench)")
		}
		if a.Extension.Shard != nil && a.Extension.Shard.Count > 1 {
			return skipped("a shard shares the engine with the run's other shards")
		}
		if len(a.Extension.MergedFrom) > 0 {
			return skipped("a run merged from shards: each counted the others' tokens in its window")
		}
		m := a.Extension.EngineMetrics
		if !m.Scraped {
			return skipped(fmt.Sprintf("the engine's metrics were not scraped (%s): whether it served other work cannot be checked", m.Error))
		}
		// What the engine held at the start is a gauge, which an engine may leave stale
		// while idle (it updates it when it steps); its token counters, where they can be
		// set against the run's usage, show whether other work actually ran, so they judge.
		var extra, seen []string
		start := ""
		if m.RunningAtStart != nil || m.WaitingAtStart != nil {
			running, waiting := value(m.RunningAtStart), value(m.WaitingAtStart)
			at := fmt.Sprintf("%.0f running, %.0f waiting", running, waiting)
			if running+waiting > 0 {
				n := fmt.Sprintf("%s requests", trim(running+waiting))
				if running+waiting == 1 {
					n = "1 request"
				}
				start = fmt.Sprintf("the engine held %s when the run began (%s)", n, at)
			} else {
				seen = append(seen, "idle when the run began ("+at+")")
			}
		}
		own, why := ownTokens(a)
		requests := len(a.RequestTimings) + len(a.Failures)
		if w := a.Extension.Warmup; w != nil {
			requests += w.Requests
		}
		compared := false
		if why != "" && (m.PromptTokens != nil || m.GenerationTokens != nil) {
			seen = append(seen, "tokens not compared: "+why)
		}
		for _, c := range []struct {
			name   string
			engine *artifact.Float
			own    int
		}{{"prompt", m.PromptTokens, own.prompt}, {"generated", m.GenerationTokens, own.generated}} {
			if c.engine == nil || why != "" {
				continue
			}
			compared = true
			counted := float64(*c.engine)
			excess := counted - float64(c.own)
			allowed := foreignTokenTolerance*float64(c.own) + float64(requests)
			line := fmt.Sprintf("%s tokens: the engine counted %.0f, the run's %d responses reported %d", c.name, counted, requests, c.own)
			if w := a.Extension.Warmup; w != nil {
				line += fmt.Sprintf(" (%d of them its warm-up's)", w.Requests)
			}
			if excess > allowed {
				extra = append(extra, fmt.Sprintf("%s: %.0f more (%.1f%%; bound %s%% + 1 per request) were another workload's", line, excess, 100*excess/max(float64(c.own), 1), trim(100*foreignTokenTolerance)))
			} else {
				seen = append(seen, line)
			}
		}
		switch {
		case len(extra) > 0:
			if start != "" {
				extra = append([]string{start}, extra...)
			}
			return found(InvalidRun, strings.Join(extra, "; ")+": the figures measured a busier engine than the workload planned")
		case start != "" && !compared:
			return found(InvalidRun, start+": another client's, or an earlier run's it still computes; the figures measured a busier engine than the workload planned")
		case start != "":
			seen = append([]string{start + ", but counted no tokens beyond the run's: work that ended as it began, or a gauge not yet updated"}, seen...)
		case len(seen) == 0:
			return skipped("the engine exports neither its running requests nor its token counters")
		}
		return held("the engine served the run alone: " + strings.Join(seen, "; "))
	}}
}

// tokens are usage totals.
type tokens struct{ prompt, generated int }

// ownTokens sums the usage the run's responses reported, its warm-up's included
// (artifact.Benchmark.ReportedUsage); why is set when some request's usage is unknown (a
// failure without a response, an engine that reports none, a request the client left), so
// that the engine's counters cannot be set against the run's.
func ownTokens(a *artifact.Benchmark) (sum tokens, why string) {
	prompt, generated, unknown, all := a.ReportedUsage()
	if c := a.Extension.Cancellation; c != nil { // left before the engine's usage came
		unknown, all = unknown+c.Abandoned, all+c.Abandoned
	}
	if unknown > 0 {
		return tokens{prompt, generated}, fmt.Sprintf("%d of %d requests have no usage the engine reported", unknown, all)
	}
	return tokens{prompt, generated}, ""
}

// stoppedWhatWasLeft checks that the engine stopped the requests the client left as
// planned (cancel_rate), by what the run asked of it and what it counted
// (artifact.Cancellation): a request left on the idle engine after the run, whose running
// gauge must read none well before its answer would have ended and whose generated tokens
// must stay near those read before leaving; the generated-tokens counter over the run; no
// request still running well after the run. An engine that went on decoding for them
// (vLLM #54947, SGLang #36552) fails the run, saying for how long; it is skipped when
// nothing could tell, and for a run that left none.
func stoppedWhatWasLeft() Check {
	return Check{Name: "stops the requests its clients leave", Kind: KindEngine, judge: func(a *artifact.Benchmark) Result {
		var c *artifact.Cancellation
		if a.Extension != nil {
			c = a.Extension.Cancellation
		}
		switch {
		case c == nil:
			return skipped("the run left no request (cancel_rate 0)")
		case c.Abandoned == 0 || c.EngineStopped == nil:
			return skipped(fmt.Sprintf("%d of %d requests left: %s", c.Abandoned, c.Planned, c.StopSource))
		case !*c.EngineStopped:
			how := ""
			if c.TokensPerLeft != nil && a.Metrics.TPOT.P50 != nil {
				more := float64(*c.TokensPerLeft) - float64(c.AfterTokens)
				how = fmt.Sprintf(" for about %.0f tokens more each, %.2f s at the run's TPOT p50 (%.2f ms);", more, more*float64(*a.Metrics.TPOT.P50)/1000, float64(*a.Metrics.TPOT.P50))
			}
			return found(RunFailed, fmt.Sprintf("the engine went on decoding the %d requests the client left after %d tokens:%s by %s",
				c.Abandoned, c.AfterTokens, how, c.StopSource))
		}
		return held(fmt.Sprintf("the engine stopped the %d requests left after %d tokens, by %s", c.Abandoned, c.AfterTokens, c.StopSource))
	}}
}
