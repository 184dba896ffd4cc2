package capacity

import (
	"testing"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// Every API the harness speaks runs what chat runs against the reference engine, strictly:
// the configured shape, a session carrying its history, a tool call and a JSON answer
// (output_config.format on the Messages API), every figure from the engine's usage, and
// the artifact names the API.
func TestEveryAPIRunsWhatChatRuns(t *testing.T) {
	s := fastEngine(t, refengine.Options{PrefixCache: true})
	base := Scenario{Requests: 6, Concurrency: 3, ContextTokens: 1500, MaxTokens: 48, ResponseWords: 16, Policy: workload.PolicyStrict, Calibrate: true}
	for _, api := range []API{APIChat, APIResponses, APIMessages} {
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
			if ss := b.Extension.Sessions; sc.Sessions.Count > 0 && (ss == nil || ss.ByTurn[1].CacheHitRate == nil || *ss.ByTurn[1].CacheHitRate < 0.5) {
				t.Errorf("%s %s: sessions %+v", api, name, ss.ByTurn[1])
			}
			t.Logf("%s %s: ttft p50 %.1f ms, tpot p50 %.2f ms", api, name, float64(*b.Metrics.TTFT.P50), float64(*b.Metrics.TPOT.P50))
		}
	}
}
