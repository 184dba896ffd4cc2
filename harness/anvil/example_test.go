package anvil_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/matchers"
)

// The suite file of an engine repository: the toolkit's nodes and a scenarios file. Run
// it with ANVIL_SCENARIOS_FILE=bench/scenarios.json ginkgo -r ./bench, and gate on
// `anvilbench gate-status` (testdata/engine-repo is this example, run by CI).
func ExampleBootstrap() {
	// In bench/engine_suite_test.go:
	//
	//	func TestEngine(t *testing.T) {
	//		RegisterFailHandler(Fail)
	//		RunSpecs(t, "engine")
	//	}
	_ = anvil.Bootstrap("engine")
	_ = anvil.DescribeScenarios()
	_ = anvil.DescribeConfigured()
}

// A spec of the engine's own: a scenario built in code against the endpoint under test,
// its artifact written before anything is asserted, then judged with the matchers.
func ExampleRun() {
	_ = It("decodes at 16 streams within 7 ms per token", Label(anvil.LabelGate), func(ctx SpecContext) {
		env := anvil.Current()
		sc := env.WithIdentity(capacity.Scenario{Requests: 16, Concurrency: 16, ContextTokens: 1000, MaxTokens: 64, ResponseWords: 32})
		run := anvil.Run(ctx, "sixteen-streams", env.Target(), sc)
		Expect(run).To(matchers.HaveNoFailedRequests())
		Expect(run).To(matchers.HaveMetricAtMost("tpot_p50_ms", 7))
	})
}

// A self-test: proof that the harness catches an engine's behaviour, against a private
// reference engine whose behaviour is known, kept out of the engine's results.
func ExamplePrivateEngine() {
	_ = It("measures a known 5 ms decode step", Label(anvil.LabelSelfTest), func(ctx SpecContext) {
		_, target := anvil.PrivateEngine(refengine.Options{ITL: 5e6})
		run := anvil.Run(ctx, "known-step", target, capacity.Scenario{Requests: 4, Concurrency: 1, ContextTokens: 1000, MaxTokens: 64, ResponseWords: 32})
		Expect(run).To(matchers.MeasureNear("tpot_p50_ms", 5, 0.05))
	})
}

// Outside Ginkgo, the same measurement is capacity.Run; EmbeddedEngine is the engine a
// suite measures when ANVIL_BASE_URL is empty.
func ExampleEmbeddedEngine() {
	engine, err := refengine.Start(anvil.EmbeddedEngine())
	if err != nil {
		panic(err)
	}
	defer engine.Close()
	run, err := capacity.Run(context.Background(), capacity.Target{BaseURL: engine.BaseURL()},
		capacity.Scenario{Requests: 4, Concurrency: 2, ContextTokens: 2000, MaxTokens: 64, ResponseWords: 32})
	if err != nil {
		panic(err)
	}
	s := anvil.Summarize(run)
	fmt.Printf("completed %d/%d, %s, policy %s\n", s.Completed, s.Requests, s.Protocol, run.ControlledOutputPolicy)
	// Output: completed 4/4, capacity-v3, policy strict
}

// A scenario gated in code, judged like a scenarios file's: one spec per check of its
// spec (every request completed, exact output, the planned context, the client, the
// engine, each budget), its artifact at $ANVIL_OUT_DIR/<suite>/<name>.json.
func ExampleDescribeGated() {
	spec := gate.DefaultSpec()
	spec.Budgets, _ = budget.Parse("tpot_p50_ms<=7, ttft_p95_ms<=500")
	_ = anvil.DescribeGated("long-prompts", capacity.Scenario{Requests: 32, Concurrency: 8, ContextTokens: 8000,
		MaxTokens: 64, ResponseWords: 32, Calibrate: true}, spec, "nightly")
}
