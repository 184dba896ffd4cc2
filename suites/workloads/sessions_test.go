package workloads_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/refengine"
	. "github.com/anvilbench/anvilbench/matchers"
)

var _ = Describe("sessions", Serial, Label(anvil.LabelSelfTest, "sessions"), func() {
	sessions := capacity.Scenario{Sessions: capacity.Sessions{Count: 8, Turns: 6, TurnTokens: 300, ThinkTime: 20 * time.Millisecond, ThinkDistribution: capacity.ThinkExponential},
		Concurrency: 4, ContextTokens: 4000, ResponseWords: 24, MaxTokens: 64, Calibrate: true,
		Policy: capacity.PolicyStrict, Engine: anvil.EmbeddedEngineName}

	It("finds each turn's history cached from the second turn on, with TTFT by turn", SpecTimeout(time.Minute), func(ctx SpecContext) {
		_, target := anvil.PrivateEngine(withCache(refengine.Options{PrefillRate: 100_000}))
		run := anvil.Run(ctx, "sessions", target, sessions)

		Expect(run).To(HaveNoFailedRequests())
		Expect(run).To(HaveCachedWhatItShares())
		Expect(run).To(HitPlannedContext(0.02))
		turns := run.Extension.Sessions.ByTurn
		Expect(turns).To(HaveLen(6))
		Expect(*turns[0].CacheHitRate).To(BeZero())
		for _, t := range turns[1:] {
			Expect(*t.CacheHitRate).To(BeNumerically(">", 0.7), "turn %d", t.Turn)
		}
		// Turn 6 holds some 6,000 tokens, turn 1 4,300; with the history cached, turn 6
		// prefills only its new ~330 tokens.
		Expect(float64(turns[5].TTFTMs.P50)).To(BeNumerically("<", float64(turns[0].TTFTMs.P50)))
		GinkgoWriter.Printf("sessions: ttft p50 by turn:")
		for _, t := range turns {
			GinkgoWriter.Printf(" %.1f ms (%.0f%% cached)", float64(t.TTFTMs.P50), 100*float64(*t.CacheHitRate))
		}
		GinkgoWriter.Println()
	})

	It("fails an engine that drops a conversation's earlier turns", SpecTimeout(time.Minute), func(ctx SpecContext) {
		_, target := anvil.PrivateEngine(withCache(refengine.Options{Faults: refengine.Faults{DropHistory: true}}))
		sc := sessions
		sc.Sessions.Count, sc.Sessions.Turns = 2, 3
		run := anvil.Run(ctx, "sessions-dropped-history", target, sc)

		Expect(failuresOf(func() { Expect(run).To(HaveCachedWhatItShares()) })).To(ConsistOf(And(
			HavePrefix("4 of 4 requests found a cached prefix outside what the workload shares"),
			MatchRegexp(`request 1 \(session 0, turn 2\): cached 0 tokens, the workload shares \d+ to \d+`))))
		Expect(failuresOf(func() { Expect(run).To(HitPlannedContext(0.02)) })).NotTo(BeEmpty(), "the engine saw a fraction of each later turn")
	})
})
