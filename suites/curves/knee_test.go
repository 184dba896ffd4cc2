package curves_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	. "github.com/anvilbench/anvilbench/matchers"

	"github.com/anvilbench/anvilbench/harness/anvil"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// The capacity search against an engine whose capacity is known: it serves 8 sequences
// per decode step and time-slices beyond, so a TPOT budget between its 8- and 16-sequence
// step times must put the capacity at 8 (the acceptance allows one rung either way).
var _ = Describe("capacity search", Serial, Label(anvil.LabelSelfTest, "knee"), func() {
	It("finds the highest concurrency within a TPOT budget", SpecTimeout(10*time.Minute), func(ctx SpecContext) {
		_, target := anvil.PrivateEngine(refengine.Options{
			PrefillOverhead: 2 * time.Millisecond, ITL: 2 * time.Millisecond, BatchSlowdown: 0.05,
			MaxBatch: 8, Overflow: refengine.OverflowTimeslice,
		})
		// Step time at 8 sequences 2.70 ms, at 16 (time-sliced) 5.40 ms per token.
		budgets, err := budget.Parse("tpot_p50_ms<=2.9")
		Expect(err).NotTo(HaveOccurred())
		sc := rung(8, 1, 1000)
		sc.Engine, sc.Search = anvil.EmbeddedEngineName, capacity.Search{Over: "concurrency", Max: 64}

		run, _, err := capacity.SearchCapacity(ctx, target, sc, sc.Search, budgets, nil)
		Expect(err).NotTo(HaveOccurred())
		anvil.Record("knee", run)
		found := run.Extension.Search
		AddReportEntry("capacity", float64(found.Capacity))

		Expect(found.Broke).NotTo(BeNil(), "a probe must break below the search bound")
		Expect(float64(found.Capacity)).To(BeNumerically(">=", 4), "the capacity is 8, one rung either way allowed")
		Expect(float64(found.Capacity)).To(BeNumerically("<=", 16), "the capacity is 8, one rung either way allowed")
		holds, err := budget.Parse("capacity_concurrency>=4")
		Expect(err).NotTo(HaveOccurred())
		Expect(run).To(MeetBudget(holds[0]))
		GinkgoWriter.Printf("capacity concurrency %g after %d probes\n", float64(found.Capacity), len(found.Probes))
	})
})
