package capacity

import (
	"math"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/internal/busy"
)

// A thinking reply's reasoning tokens come from the usage of each API that reports them
// (chat's completion_tokens_details, the Responses API's output_tokens_details); the
// Messages API reports none, and says so by leaving the split out. The time from the first
// thought to the first answer, and the answer's own time per output token, are what the
// engine's flush stamps say of each request (within what a read may trail a flush on this
// machine), and the answer's is gated by a budget: a loose one holds, a tight one breaks.
func TestReasoningTokensFromUsageOnEveryAPI(t *testing.T) {
	const thought = 24
	machine := busy.Now()
	for _, api := range []API{APIChat, APIResponses, APIMessages} {
		s := fastEngine(t, refengine.Options{ThinkByDefault: true, ReasoningTokens: thought, ITL: 2 * time.Millisecond})
		sc := Scenario{API: api, Requests: 8, Concurrency: 4, ContextTokens: 1000, MaxTokens: 96, ResponseWords: 16,
			Policy: PolicyStrict, Calibrate: true}
		b := mustRun(t, target(s), sc)
		if b.Failed != 0 {
			t.Fatalf("%s: %d failed: %+v", api, b.Failed, b.Failures[0])
		}
		r := b.Extension.Reasoning
		if r == nil || r.ReasoningToAnswerMs == nil || r.ReasoningToAnswerMs.Samples != 8 {
			t.Fatalf("%s: reasoning %+v", api, r)
		}
		// 24 reasoning tokens lie between the first thought and the answer: the engine's
		// stamps of the two, as the client read them.
		traces := measuredTraces(s)
		slack := float64(machine.Slack()) / 1e6
		for _, span := range b.Extension.Timeline {
			tr, ok := traces[span.RequestIndex]
			if !ok || len(tr.ChunkTimes) <= thought || span.ReasoningToAnswerMs == nil {
				t.Fatalf("%s: request %d: no engine record or no reasoning span", api, span.RequestIndex)
			}
			engine := float64(tr.ChunkTimes[thought].Sub(tr.ChunkTimes[0])) / 1e6
			if got := float64(*span.ReasoningToAnswerMs); math.Abs(got-engine) > slack {
				t.Errorf("%s: request %d: reasoning to answer %.2f ms; the engine flushed the first answer %.2f ms after the first thought (machine %s)",
					api, span.RequestIndex, got, engine, machine)
			}
			if api == APIMessages {
				continue
			}
			last := len(tr.ChunkTimes) - 1
			answers := *span.AnswerTokens
			engineTPOT := float64(tr.ChunkTimes[last].Sub(tr.ChunkTimes[thought])) / 1e6 / float64(answers-1)
			if got := float64(*span.AnswerTPOTMs); math.Abs(got-engineTPOT) > slack/float64(answers-1)+0.02*engineTPOT {
				t.Errorf("%s: request %d: answer tpot %.3f ms; the engine's stamps give %.3f ms", api, span.RequestIndex, got, engineTPOT)
			}
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
