package capacity_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/refengine"
	. "github.com/anvilbench/anvilbench/matchers"
	"github.com/anvilbench/anvilbench/suites/anvil"
)

// The gate's own error rates, against private engines with seeded 5% decode jitter: an
// unchanged engine must pass the baseline gate every time (a gate that flaps is worse than
// none) and a 10% slower one must fail it every time.
var _ = Describe("baseline gate self-test", Serial, Ordered, Label(anvil.LabelSelfTest, "gate-selftest"), func() {
	const itl = 5 * time.Millisecond
	var baseline *artifact.Benchmark

	measure := func(ctx SpecContext, name string, step time.Duration, seed int64) *artifact.Benchmark {
		_, target := anvil.PrivateEngine(refengine.Options{PrefillOverhead: 10 * time.Millisecond, ITL: step, ITLJitter: 0.05, Seed: seed})
		sc := strictWords(32, 8, 1000)
		sc.ContextSeed = 7
		return anvil.Run(ctx, name, target, sc)
	}
	gate := func() *RegressionMatcher { return NotRegressFrom(baseline).On("tpot_p50_ms").By(0.05) }

	BeforeAll(func(ctx SpecContext) {
		baseline = measure(ctx, "gate-baseline", itl, 1)
		Expect(baseline).To(HaveNoFailedRequests())
	}, NodeTimeout(time.Minute))

	for attempt := range 10 {
		It(fmt.Sprintf("passes an unchanged engine (attempt %d of 10)", attempt+1), SpecTimeout(time.Minute), func(ctx SpecContext) {
			run := measure(ctx, fmt.Sprintf("gate-unchanged-%d", attempt+1), itl, int64(100+attempt))
			Expect(run).To(gate())
		})
	}
	for attempt := range 3 {
		It(fmt.Sprintf("fails an engine 10%% slower per token (attempt %d of 3)", attempt+1), SpecTimeout(time.Minute), func(ctx SpecContext) {
			run := measure(ctx, fmt.Sprintf("gate-slower-%d", attempt+1), itl*11/10, int64(200+attempt))
			Expect(failuresOf(func() { Expect(run).To(gate()) })).To(ConsistOf(
				MatchRegexp(`^tpot p50 regressed \d+\.\d% \(\d+\.\d\dms -> \d+\.\d\dms`)))
		})
	}
})

// The third outcome: against a baseline of too few noisy requests an unchanged engine is
// neither passed nor failed but inconclusive, with the change its samples could resolve and
// the requests that would resolve the gate's; over those requests the same engine holds and
// a 10% slower one regresses. Each request's speed varies by 10% as a whole (RequestJitter),
// so a handful of requests cannot tell 5% apart. The load stays light (8 in flight, 50 ms
// to the first token), so that the client's and the in-process engine's own timing does
// not move the figures by the gate's half.
var _ = Describe("baseline gate self-test, inconclusive", Serial, Ordered, Label(anvil.LabelSelfTest, "gate-selftest"), func() {
	const metric, by = "ttft_p50_ms", 0.05
	var needed int
	measure := func(ctx SpecContext, name string, overhead time.Duration, requests int, seed int64) *artifact.Benchmark {
		_, target := anvil.PrivateEngine(refengine.Options{PrefillOverhead: overhead, ITL: time.Millisecond, RequestJitter: 0.1, Seed: seed})
		sc := strictWords(8, requests, 1000)
		sc.Requests, sc.Concurrency, sc.ContextSeed = requests, min(requests, 8), 7
		return anvil.Run(ctx, name, target, sc)
	}

	It("calls an unchanged engine inconclusive over 6 requests, naming what would resolve it", SpecTimeout(time.Minute), func(ctx SpecContext) {
		baseline := measure(ctx, "gate-noisy-baseline", 50*time.Millisecond, 6, 1)
		run := measure(ctx, "gate-noisy-unchanged", 50*time.Millisecond, 6, 2)
		r := gate.NoRegression(baseline, metric, gate.Comparison{By: by}).Judge(run)
		Expect(r.Outcome).To(Equal(gate.Inconclusive), r.Message)
		Expect(failuresOf(func() { Expect(run).To(NotRegressFrom(baseline).On(metric).By(by)) })).To(ConsistOf(
			MatchRegexp(`^NotRegressFrom: ttft p50 inconclusive: .*: these samples resolve a change of \d+\.\d% at best, not the 5\.0% gate; about \d+ requests in each run would$`)))
		needed = r.Resolution.RequestsNeeded
		Expect(needed).To(BeNumerically(">", 6))
		GinkgoWriter.Printf("detectable %.1f%%, %d requests needed\n", 100*r.Resolution.Detectable, needed)
	})

	It("holds the unchanged engine, and fails one 10% slower, over the requests it named", SpecTimeout(3*time.Minute), func(ctx SpecContext) {
		// Half as many again: six requests estimate the spread roughly.
		n := min(needed*3/2, 900)
		baseline := measure(ctx, "gate-resolved-baseline", 50*time.Millisecond, n, 3)
		Expect(measure(ctx, "gate-resolved-unchanged", 50*time.Millisecond, n, 4)).To(NotRegressFrom(baseline).On(metric).By(by))
		slower := measure(ctx, "gate-resolved-slower", 55*time.Millisecond, n, 5)
		Expect(failuresOf(func() { Expect(slower).To(NotRegressFrom(baseline).On(metric).By(by)) })).To(ConsistOf(
			MatchRegexp(`^ttft p50 regressed \d+\.\d% `)))
	})
})
