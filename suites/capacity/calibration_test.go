package capacity_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/refengine"
	. "github.com/anvilbench/anvilbench/matchers"
)

// The harness checks its own clock: against a private reference engine with a known
// 200 ms time to first token and 5 ms between tokens, the measured p50s must be within 5%.
var _ = Describe("calibration", Serial, Label(anvil.LabelSelfTest, "calibration"), func() {
	const ttft, itl = 200 * time.Millisecond, 5 * time.Millisecond

	It("measures a known 200 ms TTFT and 5 ms TPOT within 5%", SpecTimeout(5*time.Minute), func(ctx SpecContext) {
		_, target := anvil.PrivateEngine(refengine.Options{PrefillOverhead: ttft, ITL: itl, MaxModelLen: 65536})
		env := anvil.Current()
		run := anvil.Run(ctx, "calibration", target, capacity.Scenario{
			Requests:      6,
			Concurrency:   1,
			ContextTokens: 1024,
			ContextMargin: 1024,
			MaxTokens:     64,
			ResponseWords: 32,
			Policy:        capacity.PolicyStrict,
			Engine:        anvil.EmbeddedEngineName,
			ClockDomainID: env.Configured().ClockDomainID,
		})

		Expect(run).To(HaveNoFailedRequests())
		Expect(run).To(MeasureNear("ttft_p50_ms", 200, 0.05))
		Expect(run).To(MeasureNear("time_to_first_output_p50_ms", 200, 0.05))
		Expect(run).To(MeasureNear("tpot_p50_ms", 5, 0.05))
	})
})
