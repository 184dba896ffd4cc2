package capacity

import (
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// A thinking reply's reasoning tokens come from the usage of each API that reports them
// (chat's completion_tokens_details, the Responses API's output_tokens_details); the
// Messages API reports none, and says so by leaving the split out. The answer's own time
// per output token is gated by a budget: a loose one holds, a tight one breaks.
func TestReasoningTokensFromUsageOnEveryAPI(t *testing.T) {
	const thought = 24
	s := fastEngine(t, refengine.Options{ThinkByDefault: true, ReasoningTokens: thought, ITL: 2 * time.Millisecond})
	for _, api := range []API{APIChat, APIResponses, APIMessages} {
		sc := Scenario{API: api, Requests: 8, Concurrency: 4, ContextTokens: 1000, MaxTokens: 96, ResponseWords: 16,
			Policy: workload.PolicyStrict, Calibrate: true}
		b := mustRun(t, target(s), sc)
		if b.Failed != 0 {
			t.Fatalf("%s: %d failed: %+v", api, b.Failed, b.Failures[0])
		}
		r := b.Extension.Reasoning
		if r == nil || r.ReasoningToAnswerMs == nil || r.ReasoningToAnswerMs.Samples != 8 {
			t.Fatalf("%s: reasoning %+v", api, r)
		}
		// 24 reasoning tokens at 2 ms a token lie between the first thought and the answer.
		if got := float64(r.ReasoningToAnswerMs.P50); got < 40 || got > 200 {
			t.Errorf("%s: reasoning to answer p50 %.1f ms, want about 48", api, got)
		}
		if api == APIMessages {
			if r.Requests != 0 || r.AnswerTPOTMs != nil {
				t.Errorf("messages: the Messages API reports no reasoning tokens, yet %d requests split them", r.Requests)
			}
			continue
		}
		if r.Requests != 8 || float64(r.ReasoningTokens.P50) != thought || r.AnswerTPOTMs == nil {
			t.Fatalf("%s: reasoning %+v", api, r)
		}
		for _, span := range b.Extension.Timeline {
			if *span.ReasoningTokens+*span.AnswerTokens != *b.RequestTimings[0].OutputTokens {
				t.Errorf("%s: request %d: %d reasoning + %d answer tokens", api, span.RequestIndex, *span.ReasoningTokens, *span.AnswerTokens)
			}
		}
		answer := float64(r.AnswerTPOTMs.P50)
		if answer < 1.5 || answer > 6 {
			t.Errorf("%s: answer tpot p50 %.2f ms, want about the 2 ms step", api, answer)
		}
		for limit, pass := range map[string]bool{"answer_tpot_p50_ms<=20": true, "answer_tpot_p50_ms<=0.5": false} {
			bs, err := budget.Parse(limit + "@min=8")
			if err != nil {
				t.Fatal(err)
			}
			v := budget.Judge(bs[0], b)
			if v.Err != nil || v.Pass != pass || v.Samples != 8 {
				t.Errorf("%s: %s: pass %v, samples %d, err %v (answer tpot p50 %.2f ms)", api, limit, v.Pass, v.Samples, v.Err, answer)
			}
		}
		t.Logf("%s: %d reasoning tokens, reasoning to answer p50 %.1f ms, answer tpot p50 %.2f ms, tpot p50 %.2f ms",
			api, thought, float64(r.ReasoningToAnswerMs.P50), answer, float64(*b.Metrics.TPOT.P50))
	}
}
