package capacity

import (
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// Half the requests left after 4 tokens of 200 max: against an engine that stops them the
// run counts them apart (neither completed nor failed, in no latency figure, each index in
// one place) and says the engine stopped; against one that decodes on, the check fails and
// says so. The engine's own record judges: what it generated for each request left.
func TestALeftRequestIsCountedApartAndTheEngineMustStopIt(t *testing.T) {
	t.Parallel()
	sc := Scenario{Requests: 20, Concurrency: 4, ContextTokens: 1000, MaxTokens: 200, ResponseWords: 64, Policy: PolicyStrict}
	sc.CancelRate, sc.CancelAfterTokens = 0.5, 4
	for _, decodeOn := range []bool{false, true} {
		s := fastEngine(t, refengine.Options{ITL: 2 * time.Millisecond, DecodeOnAfterCancel: decodeOn})
		b := mustRun(t, target(s), sc)
		if err := Verify(b); err != nil {
			t.Fatalf("decode on %v: %v", decodeOn, err)
		}
		c := b.Extension.Cancellation
		if c == nil || c.Planned != 10 || c.Abandoned != 10 || b.Completed != 10 || b.Failed != 0 || b.Metrics.TTFT.Samples != 10 {
			t.Fatalf("decode on %v: cancellation %+v, %d completed, %d failed, ttft over %d", decodeOn, c, b.Completed, b.Failed, b.Metrics.TTFT.Samples)
		}
		left := 0
		for _, sp := range b.Extension.Timeline {
			if sp.Outcome == artifact.OutcomeAbandoned {
				left++
			}
		}
		// The engine's record: the requests left were cancelled by the client, having
		// generated what it sent before the client left, or all of their answer.
		generated := 0
		for _, tr := range measuredTraces(s) {
			if tr.Cancelled {
				generated += tr.CompletionTokens
			}
		}
		if left != 10 || c.TokensPerLeft == nil || float64(*c.TokensPerLeft) != float64(generated)/10 {
			t.Errorf("decode on %v: %d spans left; %v tokens per request left against the engine's %d in all", decodeOn, left, c.TokensPerLeft, generated)
		}
		r := checkNamed(t, "stops the requests its clients leave").Judge(b)
		switch {
		case !decodeOn && (c.EngineStopped == nil || !*c.EngineStopped || r.Outcome != gate.Pass):
			t.Errorf("an engine that stops: %+v; check %s: %s", c, r.Outcome, r.Message)
		case decodeOn && (c.EngineStopped == nil || *c.EngineStopped || r.Outcome != gate.RunFailed || !strings.Contains(r.Message, "went on decoding")):
			t.Errorf("an engine that decodes on: %+v; check %s: %s", c, r.Outcome, r.Message)
		}
		t.Logf("decode on %v: %s", decodeOn, r.Message)
	}
}

// An engine that exports no metrics, of one slot (Ollama's OLLAMA_NUM_PARALLEL=1): a probe
// tells whether it stopped a request left, by how long a single token asked right after
// waits; the engine's record says what it did.
func TestAProbeTellsWhetherAOneSlotEngineStopped(t *testing.T) {
	t.Parallel()
	sc := Scenario{Requests: 6, Concurrency: 1, ContextTokens: 1000, MaxTokens: 200, ResponseWords: 64, Policy: PolicyStrict}
	sc.CancelRate, sc.CancelAfterTokens = 0.5, 4
	for _, decodeOn := range []bool{false, true} {
		s := fastEngine(t, refengine.Options{ITL: 3 * time.Millisecond, MaxBatch: 1, DecodeOnAfterCancel: decodeOn})
		tg := target(s)
		tg.MetricsURL = metricsOff
		b := mustRun(t, tg, sc)
		c := b.Extension.Cancellation
		if c == nil || c.Abandoned != 3 || c.EngineStopped == nil || *c.EngineStopped == decodeOn || !strings.Contains(c.StopSource, "a probe") {
			t.Errorf("decode on %v: %+v", decodeOn, c)
			continue
		}
		t.Logf("decode on %v: %s", decodeOn, c.StopSource)
	}
}

// An engine that exports its running gauge alone and decodes on after its client left,
// finishing what it was left before the run's last request ends: the gauge reads none at
// the run's end, which says nothing of requests left earlier. Asked (one request left on
// the idle engine after the run), it shows the request running on, and the check fails; an
// engine that stops, with the same gauge alone, passes. The engine's record judges: when
// it finished each request left, and when the run's last one ended.
func TestWhetherTheEngineStoppedIsAskedNotInferredFromTheEnd(t *testing.T) {
	t.Parallel()
	// Seed 12 leaves requests 10 and before: 13 requests start after the last one left.
	sc := Scenario{Requests: 24, Concurrency: 2, ContextTokens: 1000, MaxTokens: 96, ResponseWords: 48, Policy: PolicyStrict,
		WarmupRequests: 2, ContextSeed: 12}
	sc.CancelRate, sc.CancelAfterTokens = 0.25, 4
	for _, decodeOn := range []bool{false, true} {
		s := fastEngine(t, refengine.Options{ITL: 2 * time.Millisecond, DecodeOnAfterCancel: decodeOn, NoTokenCounters: true})
		b := mustRun(t, target(s), sc)
		c := b.Extension.Cancellation
		r := checkNamed(t, "stops the requests its clients leave").Judge(b)
		if decodeOn {
			// The engine's record: every request left was decoded to its end before the
			// run's last request ended, so the gauge at the end read none.
			var lastLeft, lastEnd time.Time
			for _, tr := range measuredTraces(s) {
				if tr.Cancelled && tr.Finished.After(lastLeft) {
					lastLeft = tr.Finished
				} else if !tr.Cancelled && tr.Finished.After(lastEnd) {
					lastEnd = tr.Finished
				}
			}
			if !lastLeft.Before(lastEnd) {
				t.Errorf("a request left ran past the run's end (%v after): the case of a gauge read at the end is not made", lastLeft.Sub(lastEnd))
			}
		}
		switch {
		case c == nil || c.Abandoned != 6 || c.TokensPerLeft != nil:
			t.Errorf("decode on %v: %+v (no counter: no tokens per request left)", decodeOn, c)
		case !decodeOn && (c.EngineStopped == nil || !*c.EngineStopped || r.Outcome != gate.Pass || !strings.Contains(c.StopSource, "a request left on the idle engine after the run, after 4 tokens")):
			t.Errorf("an engine that stops: %+v; check %s: %s", c, r.Outcome, r.Message)
		case decodeOn && (c.EngineStopped == nil || *c.EngineStopped || r.Outcome != gate.RunFailed || !strings.Contains(r.Message, "went on decoding") || !strings.Contains(c.StopSource, "its running gauge read none")):
			t.Errorf("an engine that decodes on: %+v; check %s: %s", c, r.Outcome, r.Message)
		}
		t.Logf("decode on %v: %s", decodeOn, r.Message)
	}
}
