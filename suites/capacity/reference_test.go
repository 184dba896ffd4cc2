package capacity_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil"
	"github.com/anvilbench/anvilbench/harness/capacity"
	. "github.com/anvilbench/anvilbench/matchers"
)

// The scenario of ../shared/reference/benchmark-v1-example.json: one stream at a time, a
// 64k planned context, 32 controlled words under the strict policy.
var _ = Describe("capacity", Serial, Label("capacity"), func() {
	It("reference scenario: 6 requests, concurrency 1, 64k context, 32 strict words", Label("reference"), SpecTimeout(15*time.Minute), func(ctx SpecContext) {
		env := anvil.Current()
		sc := env.WithIdentity(capacity.Scenario{
			Requests:      6,
			Concurrency:   1,
			ContextTokens: 64000,
			ContextSeed:   44,
			MaxTokens:     512,
			ResponseWords: 32,
			Policy:        capacity.PolicyStrict,
			// The reference workload is fixed; on a smaller window it runs at the window, said
			// and recorded, and the context spec holds the engine to that plan.
			ClampToWindow: true,
		})
		run := anvil.Run(ctx, "reference", env.Target(), sc)

		var strictAnyway []any
		if env.Configured().Policy != capacity.PolicyStrict {
			strictAnyway = append(strictAnyway, "the reference workload is strict whatever ANVIL_CONTROLLED_OUTPUT_POLICY says; leave it out with --label-filter='!reference'")
		}
		Expect(run).To(HaveNoFailedRequests(), strictAnyway...)
		Expect(run).To(AdhereToControlledOutput())
		Expect(run).To(HitPlannedContext(env.Gate().ContextTolerance), "the engine must see the planned (window-clamped) context")
	})
})
