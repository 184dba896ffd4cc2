package capacity_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/refengine"
	. "github.com/anvilbench/anvilbench/matchers"
)

// The gate's own error rates, in the design a pull request is gated by: the build under
// test interleaved with the baseline build (ABBA blocks), against private engines with
// seeded 5% decode jitter. An unchanged build must pass every time (a gate that flaps is
// worse than none) and a 10% slower one must fail every time, where the pairs resolve.
var _ = Describe("baseline gate self-test", Serial, Label(anvil.LabelSelfTest, "gate-selftest"), func() {
	const itl = 5 * time.Millisecond
	ab := func(ctx SpecContext, name string, speed float64, seed int64) (run, baseline *artifact.Benchmark) {
		_, base := anvil.PrivateEngine(refengine.Options{PrefillOverhead: 10 * time.Millisecond, ITL: itl, ITLJitter: 0.05, Seed: seed})
		_, target := anvil.PrivateEngine(refengine.Options{PrefillOverhead: 10 * time.Millisecond, ITL: itl, ITLJitter: 0.05, Seed: seed + 1, Speed: speed})
		sc := strictWords(16, 8, 1000)
		sc.ContextSeed, sc.Repeats = 7, 4
		return anvil.RunInterleaved(ctx, name, target, sc, capacity.Interleaving{Baseline: base})
	}
	regression := func(baseline *artifact.Benchmark) *RegressionMatcher {
		return NotRegressFrom(baseline).On("tpot_p50_ms").By(0.05)
	}
	// resolved skips, saying why, a comparison the machine made inconclusive: 4 pairs of 16
	// requests resolve about 3% on a quiet machine; beside two CPU hogs one resolved 6.7%.
	// Neither verdict it is there to prove (held, regressed) was reached, and none was wrong.
	resolved := func(run, baseline *artifact.Benchmark) {
		r := gate.NoRegression(gate.Against{Baseline: baseline}, "tpot_p50_ms", gate.Comparison{By: 0.05}).Judge(run)
		if r.Outcome == gate.Inconclusive {
			Skip("this machine's noise left 4 pairs inconclusive: " + r.Message)
		}
	}

	// An unchanged build called slower is the gate's own false alarm, at most 1% of
	// comparisons: one such call is asked again on fresh engines, and the spec fails only
	// when that one is called slower too (about 1 in 10,000 of a gate that holds its level,
	// so CI's own false alarm stays far below 1 in 100 over the 5 attempts; a gate that
	// calls 30% of unchanged builds slower still fails 4 runs in 10).
	for attempt := range 5 {
		It(fmt.Sprintf("passes an unchanged build (attempt %d of 5)", attempt+1), SpecTimeout(2*time.Minute), func(ctx SpecContext) {
			run, baseline := ab(ctx, fmt.Sprintf("gate-unchanged-%d", attempt+1), 1, int64(100+2*attempt))
			if r := gate.NoRegression(gate.Against{Baseline: baseline}, "tpot_p50_ms", gate.Comparison{By: 0.05}).Judge(run); r.Outcome == gate.Regression {
				GinkgoWriter.Printf("called slower, asked again on fresh engines: %s\n", r.Message)
				run, baseline = ab(ctx, fmt.Sprintf("gate-unchanged-%d-again", attempt+1), 1, int64(1100+2*attempt))
			}
			resolved(run, baseline)
			Expect(run).To(regression(baseline))
		})
	}
	for attempt := range 2 {
		It(fmt.Sprintf("fails a build 10%% slower per token (attempt %d of 2)", attempt+1), SpecTimeout(time.Minute), func(ctx SpecContext) {
			run, baseline := ab(ctx, fmt.Sprintf("gate-slower-%d", attempt+1), 1.1, int64(200+2*attempt))
			resolved(run, baseline)
			Expect(failuresOf(func() { Expect(run).To(regression(baseline)) })).To(ConsistOf(
				MatchRegexp(`^tpot p50 regressed \d+\.\d% \(\d+\.\d\dms -> \d+\.\d\dms, .*4 interleaved pairs against the baseline build`)))
		})
	}
})

// The third outcome: interleaved over too few pairs of a noisy engine, an unchanged build
// is neither passed nor failed but inconclusive, with the change the pairs resolve and the
// pairs that would resolve the gate's (from an 80% upper bound of the spread they saw);
// over those pairs the same build holds and a 10% slower one regresses (asking again where
// the machine grew noisier between the steps). Each request's
// speed varies by 10% as a whole (RequestJitter), so three pairs of twelve requests cannot
// tell 5% apart. One run against one stored run is
// inconclusive however many requests it has: the spread between sessions is counted.
var _ = Describe("baseline gate self-test, inconclusive", Serial, Ordered, Label(anvil.LabelSelfTest, "gate-selftest"), func() {
	const metric, by, maxPairs = "ttft_p50_ms", 0.05, 100
	var needed int
	ab := func(ctx SpecContext, name string, pairs int, speed float64, seed int64) (run, baseline *artifact.Benchmark) {
		opts := refengine.Options{PrefillOverhead: 50 * time.Millisecond, ITL: time.Millisecond, RequestJitter: 0.1, Seed: seed}
		_, base := anvil.PrivateEngine(opts)
		opts.Seed, opts.Speed = seed+1, speed
		_, target := anvil.PrivateEngine(opts)
		sc := strictWords(12, 12, 1000)
		sc.ResponseWords, sc.MaxTokens, sc.ContextSeed, sc.Repeats = 8, 16, 7, pairs
		return anvil.RunInterleaved(ctx, name, target, sc, capacity.Interleaving{Baseline: base})
	}

	It("calls an unchanged build inconclusive over 3 pairs, naming the pairs that would resolve it", SpecTimeout(2*time.Minute), func(ctx SpecContext) {
		run, baseline := ab(ctx, "gate-noisy-unchanged", 3, 1, 1)
		r := gate.NoRegression(gate.Against{Baseline: baseline}, metric, gate.Comparison{By: by}).Judge(run)
		if r.Outcome == gate.Regression {
			// The gate's own false alarm (0.9% of trials here, simulated): asked again on
			// fresh engines, failing only when called slower twice.
			GinkgoWriter.Printf("called slower, asked again on fresh engines: %s\n", r.Message)
			run, baseline = ab(ctx, "gate-noisy-unchanged-again", 3, 1, 1001)
			r = gate.NoRegression(gate.Against{Baseline: baseline}, metric, gate.Comparison{By: by}).Judge(run)
		}
		if r.Outcome == gate.Pass {
			// A spread drawn small by chance resolves the gate over 3 pairs (2.4% of trials,
			// simulated): the comparison is right, and there is nothing to ask.
			Skip("3 pairs resolved the gate this time, their spread small by chance: nothing to ask; " + r.Message)
		}
		Expect(r.Outcome).To(Equal(gate.Inconclusive), r.Message)
		Expect(failuresOf(func() { Expect(run).To(NotRegressFrom(baseline).On(metric).By(by)) })).To(ConsistOf(
			MatchRegexp(`^NotRegressFrom: ttft p50 inconclusive: .*; 3 interleaved pairs against the baseline build \(.*gate_restart_cv.*\) resolves \d+\.\d% at best, not the 5\.0% gate: \d+ interleaved pairs would$`)))
		needed = r.Resolution.PairsNeeded
		Expect(needed).To(BeNumerically(">", 3))
		GinkgoWriter.Printf("detectable %.1f%%, %d pairs needed\n", 100*r.Resolution.Detectable, needed)
	})

	// The pairs were named from the spread the first 3 pairs showed (its 80% upper bound);
	// a machine busier now than then shows more, and the comparison says so by naming more
	// pairs than it ran. That is the procedure working, not failing: it runs the pairs it
	// is then told, once, within the 100 a run may repeat, and skips saying why if the
	// machine's noise outruns that. A comparison inconclusive over pairs its own spread says suffice is
	// wrong, and fails. docs/gating.md simulates this procedure, the second asking included
	// (harness/internal/compare's TestSimulationOfTheSelfTestsAdaptiveStep): an unchanged build
	// called slower in 0.3-0.9% of trials, a 10% slower one never held.
	over := func(ctx SpecContext, name string, speed float64, seed int64, want gate.Outcome) {
		pairs := needed
		if pairs == 0 {
			Skip("the first 3 pairs named no pairs to run (above)")
		}
		if pairs > maxPairs {
			Skip(fmt.Sprintf("%s: the first 3 pairs named %d pairs, more than the %d a run may repeat: this machine is too noisy now to resolve 5%% at this size", name, pairs, maxPairs))
		}
		for ask := 1; ; ask++ {
			run, baseline := ab(ctx, fmt.Sprintf("%s-%d", name, ask), pairs, speed, seed+int64(10*ask))
			r := gate.NoRegression(gate.Against{Baseline: baseline}, metric, gate.Comparison{By: by}).Judge(run)
			GinkgoWriter.Printf("%s over %d pairs: %s: %s\n", name, pairs, r.Outcome, r.Message)
			if r.Outcome == want {
				return
			}
			if want == gate.Pass && r.Outcome == gate.Regression && ask == 1 {
				// The gate's own false alarm: asked again on fresh engines, once.
				GinkgoWriter.Printf("called slower, asked again on fresh engines\n")
				continue
			}
			Expect(r.Outcome).To(Equal(gate.Inconclusive), "%s over %d pairs: %s", name, pairs, r.Message)
			Expect(r.Resolution.PairsNeeded).To(BeNumerically(">", pairs),
				"inconclusive over %d pairs, though its own spread says %d suffice: %s", pairs, r.Resolution.PairsNeeded, r.Message)
			if ask == 2 || r.Resolution.PairsNeeded > maxPairs {
				Skip(fmt.Sprintf("%s: the spread grew past what the pairs before bounded, twice (now %d pairs would): this machine's noise rose between the steps; %s",
					name, r.Resolution.PairsNeeded, r.Message))
			}
			pairs = r.Resolution.PairsNeeded
		}
	}

	It("holds the unchanged build over the pairs it named", SpecTimeout(3*time.Minute), func(ctx SpecContext) {
		over(ctx, "gate-resolved-unchanged", 1, 3, gate.Pass)
	})

	It("fails a build 10% slower over the pairs it named", SpecTimeout(3*time.Minute), func(ctx SpecContext) {
		over(ctx, "gate-resolved-slower", 1.1, 5, gate.Regression)
	})

	It("calls one run against one stored run inconclusive, naming interleaved pairs", SpecTimeout(time.Minute), func(ctx SpecContext) {
		_, target := anvil.PrivateEngine(refengine.Options{PrefillOverhead: 50 * time.Millisecond, ITL: time.Millisecond, Seed: 9})
		sc := strictWords(40, 8, 1000)
		sc.ResponseWords, sc.MaxTokens, sc.ContextSeed = 8, 16, 7
		baseline := anvil.Run(ctx, "gate-stored-baseline", target, sc)
		run := anvil.Run(ctx, "gate-stored-unchanged", target, sc)
		r := gate.NoRegression(gate.Against{Baseline: baseline}, metric, gate.Comparison{By: by}).Judge(run)
		Expect(r.Outcome).To(Equal(gate.Inconclusive), r.Message)
		Expect(r.Message).To(ContainSubstring("the spread between their sessions counted at 5.0%, gate_run_cv"))
		Expect(r.Resolution.PairsNeeded).To(BeNumerically(">=", 2))
	})
})
