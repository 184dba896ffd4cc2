package capacity_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/refengine"
	. "github.com/anvilbench/anvilbench/matchers"
	"github.com/anvilbench/anvilbench/suites/anvil"
)

// The gate's own error rates, against private engines with seeded 5% decode jitter: an
// unchanged engine must pass the baseline gate every time (a gate that flaps is worse than
// none) and a 10% slower one must fail it every time.
var _ = Describe("baseline gate self-test", Serial, Ordered, anvil.SelfTest, Label("gate-selftest"), func() {
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
