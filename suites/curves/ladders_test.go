package curves_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	. "github.com/anvilbench/anvilbench/matchers"
)

// rung is one scenario of a ladder: a fixed workload of controlled output, strict unless
// ANVIL_CONTROLLED_OUTPUT_POLICY says observe (WithIdentity fills the policy it leaves open),
// so a model that misses a word now and then is still measured. Each rung warms the engine
// with one wave at its own concurrency: the engine is warm from the rungs before, and a
// wave serves the batch size the rung is about to measure.
func rung(requests, concurrency, context int) capacity.Scenario {
	return capacity.Scenario{Requests: requests, Concurrency: concurrency, ContextTokens: context, MaxTokens: 64, ResponseWords: 32,
		WarmupRequests: concurrency}
}

// expectAdherence holds a strict run to exactly the requested words; an observed run's
// adherence is in its artifact, not gated.
func expectAdherence(run *artifact.Benchmark) {
	if run.ControlledOutputPolicy == string(capacity.PolicyStrict) {
		Expect(run).To(AdhereToControlledOutput())
	}
}

// Each rung is its own spec and artifact; pick rungs with e.g.
// --label-filter='concurrency: containsAny {8,16}' or --label-filter='ctx: containsAny {32k}'.
var _ = Describe("concurrency ladder", Serial, Label("ladder", "ladder:concurrency"), func() {
	DescribeTable("holds the load", ladder(
		func(ctx SpecContext, c int) {
			env := anvil.Current()
			run := anvil.Run(ctx, fmt.Sprintf("concurrency-%d", c), env.Target(), env.WithIdentity(rung(max(8, 2*c), c, 2048)))
			Expect(run).To(HaveNoFailedRequests())
			expectAdherence(run)
		},
		func(c int) string { return fmt.Sprintf("at concurrency %d with a 2k context", c) },
		[]int{1, 2, 4, 8, 16, 32, 64}, func(c int) Labels { return Label(fmt.Sprintf("concurrency:%d", c)) },
	)...)
})

var _ = Describe("context ladder", Serial, Label("ladder", "ladder:context"), func() {
	DescribeTable("serves the context", ladder(
		func(ctx SpecContext, tokens int) {
			env := anvil.Current()
			sc := rung(4, 1, tokens)
			sc.ClampToWindow = true // a rung past the served window runs at the window, said and recorded
			run := anvil.Run(ctx, fmt.Sprintf("context-%dk", tokens/1000), env.Target(), env.WithIdentity(sc))
			Expect(run).To(HaveNoFailedRequests())
			expectAdherence(run)
			// Planned sizes are clamped to the served window; say what was served.
			GinkgoWriter.Printf("planned %v, window %v\n", run.ContextDistribution, run.MaxContextTokens)
		},
		func(tokens int) string { return fmt.Sprintf("of %dk tokens at concurrency 1", tokens/1000) },
		[]int{1000, 8000, 32000, 64000}, func(t int) Labels { return Label(fmt.Sprintf("ctx:%dk", t/1000)) },
	)...)
})

// ladder is the arguments of a DescribeTable whose entries are rung values, each with its
// labels and a timeout.
func ladder(body func(SpecContext, int), describe func(int) string, values []int, labels func(int) Labels) []any {
	args := []any{body, describe}
	for _, v := range values {
		args = append(args, Entry(nil, labels(v), SpecTimeout(30*time.Minute), v))
	}
	return args
}
