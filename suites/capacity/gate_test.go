package capacity_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/config"
	. "github.com/anvilbench/anvilbench/matchers"
	"github.com/anvilbench/anvilbench/suites/internal/bench"
)

// gateConfig is read while the spec tree is built, so that each budget and each gated
// metric becomes its own spec (JUnit then names the one that broke). An invalid
// configuration builds no gate specs here; BeforeSuite reports every problem.
var gateConfig, _ = config.FromEnvironment()

// The configured scenario is the merge gate: exactly what the ANVIL_* variables describe,
// run once, then judged spec by spec: requests, controlled output, every ANVIL_BUDGETS
// budget, and, with ANVIL_BASELINE, comparability and every ANVIL_GATE_METRICS metric.
var _ = Describe("configured scenario", Serial, Ordered, ContinueOnFailure, Label("configured", "gate"), func() {
	var run, baseline *artifact.Benchmark

	BeforeAll(func(ctx SpecContext) {
		env := bench.Current()
		sc, err := capacity.ScenarioFromConfig(env.Config)
		Expect(err).NotTo(HaveOccurred())
		run = bench.Run(ctx, "configured", env.Target(), env.WithIdentity(sc))
		baseline = env.Config.BaselineArtifact()
	}, NodeTimeout(time.Hour))

	It("completes every request", Label("kind:requests"), func() {
		Expect(run).To(HaveNoFailedRequests())
	})

	It("answers with exactly the requested words", Label("kind:output"), func() {
		if run.ControlledOutputPolicy != config.PolicyStrict {
			Skip("ANVIL_CONTROLLED_OUTPUT_POLICY is observe: adherence is recorded, not gated")
		}
		Expect(run).To(AdhereToControlledOutput())
	})

	for _, b := range gateConfig.ParsedBudgets() {
		It("meets the budget "+b.String(), Label("kind:budget"), func() {
			Expect(run).To(MeetBudget(b))
		})
	}

	if gateConfig.Baseline != "" {
		It("runs the baseline's workload", Label("kind:comparable"), func() {
			if gateConfig.AllowMismatch {
				Skip("ANVIL_ALLOW_MISMATCH is set")
			}
			Expect(run).To(RunTheWorkloadOf(baseline), "baseline %s", gateConfig.Baseline)
		})
		for _, metric := range gateConfig.ParsedGateMetrics() {
			It(fmt.Sprintf("does not regress %s by %.0f%% from the baseline", metric, 100*gateConfig.GateBy), Label("kind:regression"), func() {
				m := NotRegressFrom(baseline).On(metric).By(gateConfig.GateBy)
				if gateConfig.AllowMismatch {
					m = m.AllowMismatch()
				}
				Expect(run).To(m)
			})
		}
	}
})
