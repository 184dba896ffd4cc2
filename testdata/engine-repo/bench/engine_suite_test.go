// The capacity gate of an engine repository, written against anvilbench's public toolkit.
package bench_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/matchers"
)

func TestEngine(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "engine")
}

// Configuration, the embedded engine when ANVIL_BASE_URL is empty, JUnit, gate and report.
var _ = anvil.Bootstrap("engine")

// One gated container per scenario of ANVIL_SCENARIOS_FILE (bench/scenarios.json here).
var _ = anvil.DescribeScenarios()

// A scenario of our own, written in code: 16 requests at 16 in flight must decode fast.
var _ = It("decodes at 16 streams within 7 ms per token", Label(anvil.LabelGate), func(ctx SpecContext) {
	env := anvil.Current()
	sc := env.WithIdentity(capacity.Scenario{Requests: 16, Concurrency: 16, ContextTokens: 1000, MaxTokens: 64, ResponseWords: 32})
	run := anvil.Run(ctx, "sixteen-streams", env.Target(), sc)
	Expect(run).To(matchers.HaveNoFailedRequests())
	Expect(run).To(matchers.HaveMetricAtMost("tpot_p50_ms", 7))
})
