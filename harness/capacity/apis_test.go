package capacity

import (
	"fmt"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// Every API the harness speaks runs what chat runs against the reference engine, strictly:
// the configured shape, a session carrying its history, a tool call and a JSON answer
// (output_config.format on the Messages API), every figure from the engine's usage, and
// the artifact names the API.
func TestEveryAPIRunsWhatChatRuns(t *testing.T) {
	s := fastEngine(t, refengine.Options{PrefixCache: true})
	base := Scenario{Requests: 6, Concurrency: 3, ContextTokens: 1500, MaxTokens: 48, ResponseWords: 16, Policy: PolicyStrict, Calibrate: true}
	for _, api := range []API{APIChat, APIResponses, APIMessages, APIOllama} {
		sessions := base
		sessions.Sessions = Sessions{Count: 2, Turns: 3, TurnTokens: 200}
		tool, answer := base, base
		tool.Output, answer.Output = OutputTool, OutputJSON
		for name, sc := range map[string]Scenario{"configured": base, "sessions": sessions, "tool": tool, "json": answer} {
			sc.API = api
			b := mustRun(t, target(s), sc)
			if b.Failed != 0 {
				t.Errorf("%s %s: %d of %d failed: %+v", api, name, b.Failed, b.Requests, b.Failures[0])
				continue
			}
			if b.Extension.API != api.Name() {
				t.Errorf("%s %s: the artifact records API %q", api, name, b.Extension.API)
			}
			phases := 0
			for _, s := range b.Extension.Timeline {
				if p := s.EnginePhases; p != nil && p.PromptEvalMs != nil && p.EvalMs != nil && p.TotalMs != nil {
					phases++
					// The engine's phases lie within its whole, and its whole (arrival to its
					// last line) within what the client timed from before the send to that
					// line's arrival.
					if s.E2EMs == nil || *p.PromptEvalMs+*p.EvalMs > *p.TotalMs || *p.TotalMs > *s.E2EMs {
						t.Errorf("%s %s: request %d (%s): phases %+v against e2e %v ms", api, name, s.RequestIndex, s.Outcome, *p, s.E2EMs)
					}
				}
			}
			// Chat asks for vLLM's metrics (include_metrics); Ollama's native API states its
			// durations unasked; the reference engine does neither on the other two.
			if want := map[bool]int{true: b.Completed}[api == APIOllama || api == APIChat]; phases != want {
				t.Errorf("%s %s: the engine's phases on %d of %d requests, want %d", api, name, phases, b.Completed, want)
			}
			usage := 0
			for _, r := range b.RequestTimings {
				if r.OutputTokenSource == "usage" && r.PromptTokens != nil {
					usage++
				}
			}
			if usage != b.Completed || *b.Extension.ContextAccuracy.MaxAbsErrorPct > 2 {
				t.Errorf("%s %s: usage on %d of %d, context %v%% off", api, name, usage, b.Completed, *b.Extension.ContextAccuracy.MaxAbsErrorPct)
			}
			if so := b.Extension.StructuredOutput; sc.Output != "" && (so == nil || so.Valid != b.Requests) {
				t.Errorf("%s %s: structured output %+v", api, name, so)
			}
			// Ollama's native API reports no cached tokens: its hit rate is unknown, not low.
			if ss := b.Extension.Sessions; sc.Sessions.Count > 0 && (ss == nil || (api == APIOllama) != (ss.ByTurn[1].CacheHitRate == nil) ||
				(api != APIOllama && *ss.ByTurn[1].CacheHitRate < 0.5)) {
				t.Errorf("%s %s: sessions %+v", api, name, ss.ByTurn[1])
			}
			// Ollama sends a tool call whole, in one line: its requests have no TPOT.
			tpot := "none"
			if p := b.Metrics.TPOT.P50; p != nil {
				tpot = fmt.Sprintf("%.2f ms", float64(*p))
			}
			t.Logf("%s %s: ttft p50 %.1f ms, tpot p50 %s", api, name, float64(*b.Metrics.TTFT.P50), tpot)
		}
	}
}

// A request the interruption ended is recorded with the outcome the artifact names.
func TestTheClientsCancelledIsTheArtifactsOutcome(t *testing.T) {
	if stream.KindCancelled != artifact.OutcomeCancelled {
		t.Errorf("the client's %q, the artifact's %q", stream.KindCancelled, artifact.OutcomeCancelled)
	}
}
