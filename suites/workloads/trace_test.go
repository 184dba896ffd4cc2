package workloads_test

import (
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/refengine"
	. "github.com/anvilbench/anvilbench/matchers"
)

// shippedTrace is the agentic trace this repository ships: 300 requests over a minute.
var shippedTrace = filepath.Join("..", "..", "testdata", "traces", "agentic-300.jsonl")

// withCache is a reference engine with vLLM's prefix cache, quick enough for a replay of
// the whole trace at four times its speed.
func withCache(opts refengine.Options) refengine.Options {
	opts.PrefixCache, opts.PrefillOverhead, opts.PrefillRate, opts.ITL, opts.MaxBatch = true, 5*time.Millisecond, 400_000, 2*time.Millisecond, 64
	return opts
}

// failuresOf runs an assertion that is expected to fail and returns its messages.
func failuresOf(assertion func()) []string { return InterceptGomegaFailures(assertion) }

var _ = Describe("trace replay", Serial, Label(anvil.LabelSelfTest, "trace"), func() {
	replay := capacity.Scenario{Trace: capacity.Trace{File: shippedTrace, Speedup: 4}, Concurrency: 64, Calibrate: true, Policy: capacity.PolicyStrict,
		Engine: anvil.EmbeddedEngineName}

	It("replays every line once, each finding cached exactly the blocks the trace shares", SpecTimeout(2*time.Minute), func(ctx SpecContext) {
		_, target := anvil.PrivateEngine(withCache(refengine.Options{}))
		run := anvil.Run(ctx, "trace-replay", target, replay)

		Expect(run).To(HaveNoFailedRequests())
		Expect(run.Requests).To(Equal(300))
		lines := map[int]bool{}
		for _, span := range run.Extension.Timeline {
			Expect(span.TraceLine).NotTo(BeNil())
			lines[*span.TraceLine] = true
		}
		Expect(lines).To(HaveLen(300), "every line replayed once")
		tr := run.Extension.Trace
		Expect(tr.StartErrorMs).NotTo(BeNil())
		Expect(tr.BlockCharsExact).To(BeTrue(), "/tokenize fitted a block to 512 tokens")
		Expect(run).To(HaveCachedWhatItShares())
		Expect(run).To(AdhereToControlledOutput())
		GinkgoWriter.Printf("trace: 300 lines in %.1f s (schedule %.1f s), start error p50 %.2f ms p99 %.2f ms, %d lines lengthened\n",
			float64(run.WallClockMs)/1000, float64(tr.ScheduleMs)/1000, float64(tr.StartErrorMs.P50), float64(tr.StartErrorMs.P99), tr.LengthenedLines)
	})

	It("fails an engine without a prefix cache under a trace that shares", SpecTimeout(2*time.Minute), func(ctx SpecContext) {
		engine := withCache(refengine.Options{})
		engine.PrefixCache = false
		_, target := anvil.PrivateEngine(engine)
		sc := replay
		sc.Trace.Lines = 60
		run := anvil.Run(ctx, "trace-no-cache", target, sc)

		Expect(run).To(HaveNoFailedRequests())
		Expect(failuresOf(func() { Expect(run).To(HaveCachedWhatItShares()) })).To(ConsistOf(
			MatchRegexp(`^the engine's metrics count 0 prefix-cache hit tokens over the run; the workload shares \d+ to \d+ over 60 requests: the engine did not serve the shared prefixes from its cache$`)))
	})
})
