package anvil

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/config"
	"github.com/anvilbench/anvilbench/harness/workload"
	"github.com/anvilbench/anvilbench/matchers"
	"github.com/anvilbench/anvilbench/reporters"
)

// Labels the toolkit puts on specs. The gate summary (gate.json, `anvilbench gate-status`)
// judges the specs labelled LabelGate by their kind label; the report keeps specs labelled
// LabelSelfTest apart from the engine's results.
const (
	// LabelGate marks a spec that gates an engine merge.
	LabelGate = reporters.LabelGate
	// LabelSelfTest marks a proof of the harness itself against private engines; against
	// an engine under test it is skipped unless asked (Env.RunsSelfTest).
	LabelSelfTest = "selftest"
	// LabelConfigured marks the specs of the scenario the ANVIL_* variables describe.
	LabelConfigured = "configured"
	// LabelScenarioPrefix, followed by its name, marks the specs of a file scenario.
	LabelScenarioPrefix = "scenario:"

	// The kind labels of gate specs: what each checks, which decides the gate outcome its
	// failure leads to.
	LabelKindRequests   = reporters.KindLabelPrefix + reporters.KindRequests
	LabelKindOutput     = reporters.KindLabelPrefix + reporters.KindOutput
	LabelKindContext    = reporters.KindLabelPrefix + reporters.KindContext
	LabelKindBudget     = reporters.KindLabelPrefix + reporters.KindBudget
	LabelKindComparable = reporters.KindLabelPrefix + reporters.KindComparable
	LabelKindRegression = reporters.KindLabelPrefix + reporters.KindRegression
)

// ScenariosDir is the directory under ANVIL_OUT_DIR of the file scenarios' artifacts.
const ScenariosDir = "scenarios"

// SelfTest decorates a container or spec as a self-test of the harness.
var SelfTest = Label(LabelSelfTest)

// DescribeConfigured registers the gate of the scenario the ANVIL_* variables describe:
// a container "configured scenario" labelled configured and gate whose artifact is
// $ANVIL_OUT_DIR/<suite>/configured.json (see DescribeGated for its specs).
func DescribeConfigured() bool {
	g, err := treeConfig().Configured()
	if err != nil {
		// BeforeSuite reports the configuration's problems; the container still runs the
		// scenario spec so the failure has a place.
		g = config.GatedScenario{Name: config.ConfiguredName}
	}
	return describeGated("configured scenario", "", g, LabelConfigured)
}

// DescribeScenarios registers one gated container per scenario of ANVIL_SCENARIOS_FILE,
// "scenario <name>", labelled gate, scenario:<name> and the scenario's own labels, each
// writing $ANVIL_OUT_DIR/scenarios/<name>.json (see DescribeGated for its specs). Without
// a file it registers nothing.
func DescribeScenarios() bool {
	for _, g := range treeConfig().Scenarios() {
		labels := append([]string{LabelScenarioPrefix + g.Name}, g.Labels...)
		describeGated("scenario "+g.Name, ScenariosDir, g, labels...)
	}
	return true
}

// DescribeGated registers the gate of one scenario built in code, as an Ordered container
// named after it and labelled gate plus labels: the scenario runs once against the
// endpoint under test (its artifact written to $ANVIL_OUT_DIR/<suite>/<name>.json), then
// one spec per check, so JUnit names the one that broke:
//
//   - every request completed (kind:requests);
//   - every response was exactly the requested words, under the strict policy (kind:output);
//   - the engine counted each request's planned prompt tokens within the context
//     tolerance (kind:context): a truncated prompt is named as such;
//   - one spec per budget (kind:budget);
//   - with a baseline, that it ran the same workload (kind:comparable) and one spec per
//     gated metric that it did not regress (kind:regression).
func DescribeGated(g config.GatedScenario, labels ...string) bool {
	return describeGated("scenario "+g.Name, "", g, labels...)
}

func describeGated(title, dir string, g config.GatedScenario, labels ...string) bool {
	return Describe(title, Serial, Ordered, ContinueOnFailure, Label(append([]string{LabelGate}, labels...)...), func() {
		var run *artifact.Benchmark

		BeforeAll(func(ctx SpecContext) {
			env := Current()
			into := dir
			if into == "" {
				into = env.Suite
			}
			run = runIn(ctx, into, g.Name, env.Target(), env.named(g.Scenario), func(run *artifact.Benchmark) {
				if g.Baseline != nil && run.Extension != nil {
					run.Extension.Baseline = artifact.NewBaselineRef(g.BaselinePath, g.Baseline)
				}
			})
		}, NodeTimeout(time.Hour))

		It("completes every request", Label(LabelKindRequests), func() {
			Expect(run).To(matchers.HaveNoFailedRequests())
		})

		It("answers with exactly the requested words", Label(LabelKindOutput), func() {
			if run.ControlledOutputPolicy != string(workload.PolicyStrict) {
				Skip("the controlled-output policy is observe: adherence is recorded, not gated")
			}
			Expect(run).To(matchers.AdhereToControlledOutput())
		})

		It(fmt.Sprintf("is served the planned context within %.1f%%", 100*g.ContextTolerance), Label(LabelKindContext), func() {
			if run.Extension != nil && run.Extension.ContextAccuracy.Samples == 0 {
				Skip("the engine reported no usage.prompt_tokens: what context it saw cannot be checked")
			}
			Expect(run).To(matchers.HitPlannedContext(g.ContextTolerance))
		})

		for _, b := range g.Budgets {
			It("meets the budget "+b.String(), Label(LabelKindBudget), func() {
				Expect(run).To(matchers.MeetBudget(b))
			})
		}

		if g.BaselinePath == "" {
			return
		}
		It("runs the baseline's workload", Label(LabelKindComparable), func() {
			if g.AllowMismatch {
				Skip("mismatched workloads are allowed (allow_mismatch)")
			}
			Expect(run).To(matchers.RunTheWorkloadOf(g.Baseline), "baseline %s", g.BaselinePath)
		})
		for _, metric := range g.GateMetrics {
			It(fmt.Sprintf("does not regress %s by %.0f%% from the baseline", metric, 100*g.GateBy), Label(LabelKindRegression), func() {
				m := matchers.NotRegressFrom(g.Baseline).On(metric).By(g.GateBy)
				if g.AllowMismatch {
					m = m.AllowMismatch()
				}
				Expect(run).To(m)
			})
		}
	})
}
