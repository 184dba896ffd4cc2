package report

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// The engine's own figures say, in the gate's words, whether other work shared the engine.
func TestEngineFieldsSayWhetherTheRunHadTheEngineToItself(t *testing.T) {
	b := synth(synthSpec{name: "configured", conc: 4, ctx: 1000, n: 8, ttftMs: 50, tpotMs: 5})
	generated := 0
	for i := range b.RequestTimings {
		b.RequestTimings[i].PromptTokens, b.RequestTimings[i].OutputTokenSource = new(1000), "usage"
		generated += *b.RequestTimings[i].OutputTokens
	}
	alone := func() string {
		for _, f := range engineMetricFields(b, b.Extension.EngineMetrics) {
			if f.Label == "had the engine to itself" {
				return f.Value
			}
		}
		return ""
	}
	b.Extension.EngineMetrics = artifact.EngineMetrics{URL: "http://engine/metrics", Scraped: true, Scrapes: 3,
		RunningAtStart: artifact.F(0), WaitingAtStart: artifact.F(0), PromptTokens: artifact.F(8000), GenerationTokens: artifact.F(float64(generated))}
	if got := alone(); !strings.HasPrefix(got, "yes: the engine served the run alone: idle when the run began (0 running, 0 waiting); prompt tokens: the engine counted 8000") {
		t.Errorf("alone: %q", got)
	}
	b.Extension.EngineMetrics.GenerationTokens = artifact.F(float64(2*generated + 100))
	if got := alone(); !strings.HasPrefix(got, "no (invalid run): generated tokens: the engine counted") {
		t.Errorf("shared: %q", got)
	}
	b.Extension.Shard = &artifact.Shard{Index: 1, Count: 2}
	if got := alone(); got != "not checked: a shard shares the engine with the run's other shards" {
		t.Errorf("a shard: %q", got)
	}
}

// An interrupted run says how many requests it cut in flight: those the engine had begun.
func TestAnInterruptedRunSaysWhatItCutInFlight(t *testing.T) {
	b := synth(synthSpec{name: "configured", conc: 4, ctx: 1000, n: 4, ttftMs: 50, tpotMs: 5})
	b.Extension.Complete = false
	for i := 4; i < 9; i++ {
		b.Failures = append(b.Failures, artifact.Failure{RequestIndex: i, ErrorType: "cancelled"})
		span := artifact.RequestSpan{RequestIndex: i, Outcome: "cancelled"}
		if i < 6 {
			span.StartOffsetMs = artifact.F(10) // sent, then cut
		}
		b.Extension.Timeline = append(b.Extension.Timeline, span)
	}
	v := newRunView(Run{Path: "capacity/configured.json", Benchmark: b}, nil)
	var complete string
	for _, f := range v.Details() {
		if f.Label == "complete" {
			complete = f.Value
		}
	}
	if !strings.HasPrefix(complete, "false: the run was interrupted; it cut 2 requests in flight, which an engine that does not stop abandoned requests may go on computing") {
		t.Errorf("complete: %q", complete)
	}
}
