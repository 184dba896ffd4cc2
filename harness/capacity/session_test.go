package capacity

import (
	"testing"

	"github.com/anvilbench/anvilbench/harness/refengine"
)

// Sessions against an engine with a prefix cache: from the second turn on, each turn finds
// the whole previous turn cached, and the figures come by turn.
func TestSessionsFindTheirHistoryCached(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{PrefixCache: true})
	sc := Scenario{Sessions: Sessions{Count: 3, Turns: 6, TurnTokens: 200}, Concurrency: 3, ContextTokens: 2000, ResponseWords: 16, MaxTokens: 64,
		Policy: PolicyStrict, Calibrate: true}
	b := mustRun(t, target(s), sc)
	if b.Requests != 18 || b.Completed != 18 {
		t.Fatalf("requests %d completed %d failures %+v", b.Requests, b.Completed, b.Failures)
	}
	for _, span := range b.Extension.Timeline {
		if span.Session == nil || *span.Session != span.RequestIndex/6 || *span.Turn != span.RequestIndex%6+1 {
			t.Errorf("request %d: session %v turn %v", span.RequestIndex, span.Session, span.Turn)
		}
		if *span.Turn == 1 {
			if span.ExpectedCachedMin != nil || *span.CachedTokens != 0 {
				t.Errorf("request %d: a first turn expected %v, cached %d", span.RequestIndex, span.ExpectedCachedMin, *span.CachedTokens)
			}
			continue
		}
		lo, c := *span.ExpectedCachedMin, *span.CachedTokens
		if c > lo || c <= lo-16 {
			t.Errorf("request %d (turn %d): cached %d, the previous turn's prompt was %d tokens", span.RequestIndex, *span.Turn, c, lo)
		}
		if d := *span.PromptTokens - span.PlannedContextTokens; d > 40 || d < -40 {
			t.Errorf("request %d: prompt tokens %d for a plan of %d", span.RequestIndex, *span.PromptTokens, span.PlannedContextTokens)
		}
	}
	ss := b.Extension.Sessions
	if ss == nil || len(ss.ByTurn) != 6 || ss.ByTurn[0].TTFTMs == nil || *ss.ByTurn[0].CacheHitRate != 0 || *ss.ByTurn[5].CacheHitRate < 0.8 {
		t.Fatalf("sessions %+v", ss)
	}
	t.Logf("turn 1 ttft p50 %.1f ms, hit %.2f; turn 6 ttft p50 %.1f ms, hit %.2f (expected %.2f)", ss.ByTurn[0].TTFTMs.P50, *ss.ByTurn[0].CacheHitRate,
		ss.ByTurn[5].TTFTMs.P50, *ss.ByTurn[5].CacheHitRate, *ss.ByTurn[5].ExpectedHitRate)
}

// A later turn sends the earlier answers back as the client saw them: their content (each
// turn's prompt grows by the new message and the answer's words at least), not the
// reasoning a thinking engine counted in completion_tokens. The plan counts what is sent.
func TestSessionPlansCountTheAnswerAsSent(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{ThinkByDefault: true, ReasoningTokens: 48})
	sc := Scenario{Sessions: Sessions{Count: 2, Turns: 3, TurnTokens: 60}, Concurrency: 2, ContextTokens: 600, ResponseWords: 24, MaxTokens: 128,
		Policy: PolicyStrict, Calibrate: true}
	b := mustRun(t, target(s), sc)
	if b.Completed != 6 {
		t.Fatalf("completed %d: %+v", b.Completed, b.Failures)
	}
	for k, span := range b.Extension.Timeline {
		if *span.Turn > 1 {
			if grew := *span.PromptTokens - *b.Extension.Timeline[k-1].PromptTokens; grew < sc.Sessions.TurnTokens+sc.ResponseWords {
				t.Errorf("request %d (turn %d): the prompt grew by %d tokens, less than the new message and the previous answer's %d words",
					span.RequestIndex, *span.Turn, grew, sc.ResponseWords)
			}
		}
		if d := *span.PromptTokens - span.PlannedContextTokens; d > 8 || d < -8 {
			t.Errorf("request %d (turn %d): prompt tokens %d for a plan of %d", span.RequestIndex, *span.Turn, *span.PromptTokens, span.PlannedContextTokens)
		}
	}
	if e := b.Extension.ContextAccuracy.MaxAbsErrorPct; e != nil && *e > 2 {
		t.Errorf("context error %.2f%% at worst, over the 2%% tolerance", float64(*e))
	}
}
