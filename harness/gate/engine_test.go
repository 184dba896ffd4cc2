package gate

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// engineRun is synthetic's 8 requests with usage (1,000 prompt and 33 generated tokens
// each) and the engine's counters over the run.
func engineRun(runningAtStart, prompt, generated float64) *artifact.Benchmark {
	a := synthetic(8, 5, 0.01, 12)
	for i := range a.RequestTimings {
		a.RequestTimings[i].PromptTokens, a.RequestTimings[i].OutputTokenSource = new(1000), "usage"
	}
	a.Extension = &artifact.Extension{EngineMetrics: artifact.EngineMetrics{Scraped: true, Scrapes: 3,
		RunningAtStart: artifact.F(runningAtStart), WaitingAtStart: artifact.F(0),
		PromptTokens: artifact.F(prompt), GenerationTokens: artifact.F(generated)}}
	return a
}

func TestEngineToItself(t *testing.T) {
	t.Parallel()
	check := EngineToItself()
	// 8 × 33 = 264 generated, 8,000 prompt tokens: the bounds are 2% + 8.
	if r := check.Judge(engineRun(0, 8000, 264+13)); !r.Passed() || !r.Judged ||
		!strings.Contains(r.Message, "idle when the run began (0 running, 0 waiting)") ||
		!strings.Contains(r.Message, "generated tokens: the engine counted 277, the run's 8 responses reported 264") {
		t.Errorf("within 2%% + 1 per request: %+v", r)
	}
	r := check.Judge(engineRun(0, 8000, 264+14))
	if r.Outcome != InvalidRun || !strings.Contains(r.Message, "generated tokens: the engine counted 278, the run's 8 responses reported 264: 14 more (5.3%; bound 2% + 1 per request) were another workload's") {
		t.Errorf("one token over the bound: %+v", r)
	}
	r = check.Judge(engineRun(0, 12000, 264))
	if r.Outcome != InvalidRun || !strings.Contains(r.Message, "prompt tokens: the engine counted 12000, the run's 8 responses reported 8000: 4000 more (50.0%") {
		t.Errorf("another client's prompts: %+v", r)
	}
	r = check.Judge(engineRun(3, 8000, 264+40))
	if r.Outcome != InvalidRun || !strings.Contains(r.Message, "the engine held 3 requests when the run began (3 running, 0 waiting); generated tokens: the engine counted 304") {
		t.Errorf("an earlier run's requests still running: %+v", r)
	}
	// A busy gauge the counters do not bear out (an engine updates it when it steps, and
	// may leave it stale while idle) is reported, not failed.
	if r := check.Judge(engineRun(3, 8000, 264)); !r.Passed() || !strings.Contains(r.Message, "held 3 requests when the run began (3 running, 0 waiting), but counted no tokens beyond the run's") {
		t.Errorf("a stale gauge: %+v", r)
	}
	// Without counters the gauge decides.
	gaugeOnly := engineRun(1, 0, 0)
	gaugeOnly.Extension.EngineMetrics.PromptTokens, gaugeOnly.Extension.EngineMetrics.GenerationTokens = nil, nil
	if r := check.Judge(gaugeOnly); r.Outcome != InvalidRun || !strings.Contains(r.Message, "the engine held 1 request when the run began (1 running, 0 waiting): another client's") {
		t.Errorf("a busy gauge and no counters: %+v", r)
	}
	if worstOf(r.Outcome) != InvalidRun || KindEngine.Finding() != InvalidRun {
		t.Errorf("a shared engine is an invalid run: %s, %s", r.Outcome, KindEngine.Finding())
	}
}

// What cannot be checked is said, and does not fail the run.
func TestEngineToItselfSkipsWhatItCannotCheck(t *testing.T) {
	t.Parallel()
	check := EngineToItself()
	unscraped := engineRun(0, 8000, 264)
	unscraped.Extension.EngineMetrics = artifact.EngineMetrics{Error: "no metrics served (HTTP 404)"}
	if r := check.Judge(unscraped); !r.Passed() || !strings.Contains(r.Skipped, "not scraped (no metrics served (HTTP 404))") {
		t.Errorf("no metrics: %+v", r)
	}
	shard := engineRun(0, 16000, 528)
	shard.Extension.Shard = &artifact.Shard{Index: 0, Count: 2}
	if r := check.Judge(shard); !r.Passed() || r.Skipped == "" {
		t.Errorf("a shard sees its siblings' tokens: %+v", r)
	}
	merged := engineRun(0, 16000, 528)
	merged.Extension.MergedFrom = []artifact.MergedShard{{}, {}}
	if r := check.Judge(merged); !r.Passed() || !strings.Contains(r.Skipped, "merged from shards") {
		t.Errorf("a merged run: %+v", r)
	}
	// A request failed without a response: its tokens are unknown, the counters are not
	// compared, but an engine busy at the start is still found.
	failed := engineRun(2, 99999, 99999)
	failed.Failures = []artifact.Failure{{RequestIndex: 8, ErrorType: "timeout"}}
	r := check.Judge(failed)
	if r.Outcome != InvalidRun || strings.Contains(r.Message, "99999") || !strings.Contains(r.Message, "held 2 requests") {
		t.Errorf("a failure and a busy start: %+v", r)
	}
	failed.Extension.EngineMetrics.RunningAtStart = artifact.F(0)
	if r := check.Judge(failed); !r.Passed() || !strings.Contains(r.Message, "idle when the run began (0 running, 0 waiting); tokens not compared: 1 of 9 requests have no usage the engine reported") {
		t.Errorf("a failure, an idle start: %+v", r)
	}
}
