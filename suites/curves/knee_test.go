package curves_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// The knee search against an engine whose capacity is known: it serves 8 sequences per
// decode step and time-slices beyond, so a TPOT budget between its 8- and 16-sequence step
// times must put the knee at 8 (the acceptance allows one rung either way).
var _ = Describe("knee search", Serial, Label(anvil.LabelSelfTest, "knee"), func() {
	It("finds the highest concurrency within a TPOT budget", SpecTimeout(10*time.Minute), func(ctx SpecContext) {
		_, target := anvil.PrivateEngine(refengine.Options{
			PrefillOverhead: 2 * time.Millisecond, ITL: 2 * time.Millisecond, BatchSlowdown: 0.05,
			MaxBatch: 8, Overflow: refengine.OverflowTimeslice,
		})
		// Step time at 8 sequences 2.70 ms, at 16 (time-sliced) 5.40 ms per token.
		budgets, err := budget.Parse("tpot_p50_ms<=2.9")
		Expect(err).NotTo(HaveOccurred())
		sc := rung(0, 0, 1000)
		sc.Name, sc.Engine = "knee", anvil.EmbeddedEngineName

		curve, err := capacity.FindKnee(ctx, target, sc, capacity.KneeOptions{
			Budgets: budgets, MaxConcurrency: 64,
			Recorded: func(probe capacity.Scenario, run *artifact.Benchmark) string {
				return anvil.Record(probe.Name, run)
			},
		})
		Expect(err).NotTo(HaveOccurred())
		anvil.RecordCurve("knee", curve)
		AddReportEntry("knee", curve.Knee)

		Expect(curve.Bounded).To(BeTrue(), "a probe must fail below the search bound")
		Expect(curve.Knee).To(BeNumerically(">=", 4), "the knee is 8, one rung either way allowed")
		Expect(curve.Knee).To(BeNumerically("<=", 16), "the knee is 8, one rung either way allowed")
		GinkgoWriter.Printf("knee at concurrency %d after %d probes\n", curve.Knee, len(curve.Probes))
	})
})
