package report

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
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
	v := newRunView(Run{Path: "capacity/configured.json", Benchmark: b}, nil, nil)
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

// The conformance table of a run's verdict is drawn in both files: a row per item, a cell
// per API with its status and what was seen; a cell never filled says so.
func TestTheReportDrawsTheConformanceTable(t *testing.T) {
	c := &gate.Conformance{Endpoint: "http://127.0.0.1:11434/v1", Model: "tiny"}
	c.Set("chat", "reports usage", gate.ConformanceCell{Status: gate.Honoured, Detail: "on 4 of 4 responses"})
	c.Set("chat", "calls the tool", gate.ConformanceCell{Status: gate.NotHonoured, Detail: "in 0 of 2 answers"})
	c.Set("completions", "reports usage", gate.ConformanceCell{Status: gate.NotHonoured, Detail: "on 0 of 4 responses"})
	m, err := Build(Input{Gate: &gate.Summary{RunID: "r", Conformance: c}, RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	var md, html strings.Builder
	if err := m.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## What the engine honoured (conformance of tiny)",
		"| asked | chat | completions |",
		"| reports usage | ✅ yes: on 4 of 4 responses | ❌ no: on 0 of 4 responses |",
		"| calls the tool | ❌ no: in 0 of 2 answers | ➖ not asked |",
		"- **endpoint**: http://127.0.0.1:11434/v1", "No scenario ran: the conformance below asked the endpoint what it honours.",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{`<td class="conf-no"><b>no</b> on 0 of 4 responses</td>`, `<th>completions</th>`} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// A thinking run's reasoning split is a table of its own in report.md; without a split
// from the engine's usage, the report says the token figures are of the whole completion.
func TestTheReportDrawsTheReasoningSplit(t *testing.T) {
	b := synth(synthSpec{name: "configured", conc: 4, ctx: 1000, n: 8, ttftMs: 50, tpotMs: 5})
	p := func(v float64) *artifact.Percentiles {
		return &artifact.Percentiles{Samples: 8, P50: artifact.Float(v), P95: artifact.Float(v), P99: artifact.Float(v), Max: artifact.Float(v)}
	}
	b.Extension.Reasoning = &artifact.Reasoning{Requests: 8, ReasoningTokens: p(24), AnswerTokens: p(17), ReasoningToAnswerMs: p(48), AnswerTPOTMs: p(2)}
	var md strings.Builder
	m, err := Build(Input{Runs: []Run{{Path: "capacity/configured.json", Benchmark: b}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### configured: reasoning", "| reasoning tokens | 24 tok | 24 tok | 24 tok | 8 |", "| answer tpot | 2.00 ms |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md.String())
		}
	}
	// report.html draws each request's reasoning in its timeline bar, between its wait and
	// its answer.
	for i := range b.Extension.Timeline {
		b.Extension.Timeline[i].ReasoningToAnswerMs, b.Extension.Timeline[i].ReasoningTokens = artifact.F(30), new(24)
	}
	if m, err = Build(Input{Runs: []Run{{Path: "capacity/configured.json", Benchmark: b}}}); err != nil {
		t.Fatal(err)
	}
	var page strings.Builder
	if err := m.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">reasoning</text>", "(reasoning from 20.00 ms), 24 reasoning tokens", `fill="#E69F00"`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	b.Extension.Reasoning = &artifact.Reasoning{ReasoningToAnswerMs: p(48)}
	md.Reset()
	if err := m.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "did not split reasoning from answer tokens") {
		t.Errorf("report.md does not say the split is missing:\n%s", md.String())
	}
}

// The GPUs a run sampled are a table of their own in report.md: the clocks' range over the
// measured phase, the peaks of power and temperature, the clock events the driver named.
func TestTheReportDrawsTheGPUs(t *testing.T) {
	b := synth(synthSpec{name: "configured", conc: 4, ctx: 1000, n: 8, ttftMs: 50, tpotMs: 5})
	mask := uint64(0x40)
	sample := func(offset, clock, temp float64, during bool, reasons *uint64) artifact.GPUSample {
		s := artifact.GPUSample{OffsetMs: artifact.Float(offset), During: during, SMClockMHz: artifact.F(clock), MemClockMHz: artifact.F(2619),
			PowerW: artifact.F(600), TemperatureC: artifact.F(temp), UtilizationPct: artifact.F(97)}
		if reasons != nil {
			s.Reasons, s.ReasonNames = reasons, artifact.GPUReasonNames(*reasons)
		}
		return s
	}
	b.Extension.GPU = &artifact.GPUTelemetry{Source: "dcgm http://h:9400/metrics", Samples: 4, GPUs: []artifact.GPUState{{GPU: "0", Model: "NVIDIA H100 80GB HBM3",
		Series: []artifact.GPUSample{sample(-500, 345, 40, false, nil), sample(500, 1980, 70, true, nil), sample(1000, 1410, 88, true, &mask), sample(2500, 1980, 60, false, nil)}}}}
	m, err := Build(Input{Runs: []Run{{Path: "capacity/configured.json", Benchmark: b}}})
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := m.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### configured: GPUs (dcgm http://h:9400/metrics)", "| 0 | NVIDIA H100 80GB HBM3 | 1410–1980 | 2619 | 600 | 88 | HW thermal slowdown |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md.String())
		}
	}
	// report.html draws the clocks through the run, the throttle marked and named.
	var page strings.Builder
	if err := m.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="chart-gpu-`, "GPU 0 throttled 1.0 s in (HW thermal slowdown).", "GPU 0 at 1.0 s: 1410 MHz, 600 W, 88 °C (HW thermal slowdown)"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// A server histogram's median is shown as the bucket it falls in, beside its exact mean:
// an interpolated p50 read as a measurement next to the client's TTFT.
func TestAServerHistogramShowsItsBucket(t *testing.T) {
	t.Parallel()
	h := &artifact.ServerLatency{Count: 40, MeanMs: artifact.F(31.5), P50Ms: artifact.F(150), P50BucketMs: []artifact.Float{100, 250}}
	if got, want := serverHistogram(h), "mean 31.50 ms, median in the bucket 100.0 ms to 250.0 ms, over 40 samples"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	h.P50BucketMs, h.MeanMs = nil, nil
	if got := serverHistogram(h); !strings.Contains(got, "median about 150.0 ms (interpolated in its bucket)") {
		t.Errorf("without a bucket: %q", got)
	}
}
