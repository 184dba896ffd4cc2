package anvil

import (
	"cmp"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/anvil/internal/junit"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// Labels the toolkit puts on specs. LabelGate marks the specs that gate an engine merge
// (select them with --label-filter=gate); the verdict judges every spec that ran, and the
// kind of a failure comes from the check that failed it. The report keeps specs labelled
// LabelSelfTest apart from the engine's results.
const (
	// LabelGate marks a spec that gates an engine merge.
	LabelGate = junit.LabelGate
	// LabelSelfTest marks a proof of the harness itself against private engines; against
	// an engine under test it is skipped unless asked (Env.RunsSelfTest).
	LabelSelfTest = "selftest"
	// labelConfigured marks the specs of the scenario the ANVIL_* variables describe.
	labelConfigured = "configured"
	// labelScenarioPrefix, followed by its name, marks the specs of a file scenario.
	labelScenarioPrefix = "scenario:"
	// The kind labels of gated specs, to select them by what they check. A failure no check
	// explains (a plain assertion) takes the outcome of its spec's kind label.
	labelKindRequests   = junit.KindLabelPrefix + string(gate.KindRequests)
	labelKindOutput     = junit.KindLabelPrefix + string(gate.KindOutput)
	labelKindContext    = junit.KindLabelPrefix + string(gate.KindContext)
	labelKindClient     = junit.KindLabelPrefix + string(gate.KindClient)
	labelKindEngine     = junit.KindLabelPrefix + string(gate.KindEngine)
	labelKindBudget     = junit.KindLabelPrefix + string(gate.KindBudget)
	labelKindComparable = junit.KindLabelPrefix + string(gate.KindComparable)
	labelKindRegression = junit.KindLabelPrefix + string(gate.KindRegression)
)

// scenariosDir is the directory under ANVIL_OUT_DIR of the file scenarios' artifacts.
const scenariosDir = "scenarios"

// gated is a gated container registered while the spec tree is built, for the preflight
// to check before any spec and for the variables the suite uses.
type gated struct {
	g config.GatedScenario
	// origin is configured, a file scenario, or code (DescribeGated).
	configured, file bool
	// labels are each spec's labels, the container's included.
	labels [][]string
}

var registry []gated

// selected reports whether the label filter selects any spec of the container.
func (r gated) selected() bool { return slices.ContainsFunc(r.labels, selected) }

// uses are the ANVIL_* variables this suite's selected specs use.
func uses() []string {
	configured, scenarios := false, false
	for _, r := range registry {
		if r.selected() {
			configured = configured || r.configured
			scenarios = scenarios || r.file
		}
	}
	// The conformance runs the configured scenario on each API.
	configured = configured || (conformanceSpecs && selected([]string{labelConformance}))
	return config.Uses(configured, scenarios)
}

// DescribeConfigured registers the gate of the scenario the ANVIL_* variables describe:
// a container "configured scenario" labelled configured and gate whose artifact is
// $ANVIL_OUT_DIR/<suite>/configured.json (see DescribeGated for its specs).
func DescribeConfigured() bool {
	// An invalid configuration yields the defaults here: BeforeSuite reports its problems,
	// and the container still has specs so that the filter selects it and the failure has
	// a place.
	g := treeConfig().Configured()
	return describeGated("configured scenario", "", g, gated{configured: true}, labelConfigured)
}

// DescribeScenarios registers one gated container per scenario of ANVIL_SCENARIOS_FILE,
// "scenario <name>", labelled gate, scenario:<name> and the scenario's own labels, each
// writing $ANVIL_OUT_DIR/scenarios/<name>.json (see DescribeGated for its specs). Without
// a file it registers nothing.
func DescribeScenarios() bool {
	for _, g := range treeConfig().Scenarios() {
		labels := append([]string{labelScenarioPrefix + g.Name}, g.Labels...)
		describeGated("scenario "+g.Name, scenariosDir, g, gated{file: true}, labels...)
	}
	return true
}

// DescribeGated registers the gate of one scenario built in code, as an Ordered container
// named after it and labelled gate plus labels. Gated containers run in the order they
// are registered (DescribeConfigured, DescribeScenarios and DescribeGated alike), before
// the suite's other specs, whatever Ginkgo's seed. The scenario runs once against the
// endpoint under test (its artifact written to $ANVIL_OUT_DIR/<suite>/<name>.json), then
// one spec per check of its gate.Spec, so JUnit names the one that broke:
//
//   - every request completed (kind:requests);
//   - every response was exactly the requested words, under the strict policy (kind:output);
//   - the engine counted each request's planned prompt tokens within the context
//     tolerance (kind:context): a truncated prompt is named as such;
//   - the client kept up with the workload (kind:client): if not, the run is invalid;
//   - the engine's metrics show it served the run alone (kind:engine): if not, the run is
//     invalid;
//   - a tool-call or JSON-schema scenario's responses held a valid structure (kind:output);
//   - a trace or sessions found cached what they share (kind:context);
//   - one spec per budget (kind:budget);
//   - with a baseline, that it ran the same workload (kind:comparable) and one spec per
//     gated metric that it did not regress (kind:regression), inconclusive when the
//     samples cannot tell.
//
// The preflight checks it before any request: a baseline it cannot be compared with, a
// budget it cannot judge, a fixed context the window cannot hold end the run there.
func DescribeGated(name string, sc capacity.Scenario, spec gate.Spec, labels ...string) bool {
	g := config.GatedScenario{Name: name, Scenario: sc, Spec: spec}
	return describeGated("scenario "+name, "", g, gated{}, labels...)
}

// firstPriority is the Ginkgo spec priority of the first gated container registered; each
// later one has one less, and plain specs have Ginkgo's default, 0.
const firstPriority = 1 << 20

func describeGated(title, dir string, g config.GatedScenario, reg gated, labels ...string) bool {
	container := append([]string{LabelGate}, labels...)
	checks := g.Spec.Checks()
	reg.g = g
	for _, c := range checks {
		reg.labels = append(reg.labels, append(slices.Clone(container), junit.KindLabelPrefix+string(c.Kind)))
	}
	// Ginkgo shuffles top-level containers, so which scenario met a cold engine changed
	// from run to run; a priority falling with registration keeps them in the order they
	// were written (the scenarios file's, the spec files' by name), before plain specs.
	priority := SpecPriority(firstPriority - len(registry))
	registry = append(registry, reg)
	return Describe(title, Serial, Ordered, ContinueOnFailure, priority, Label(container...), func() {
		var run *artifact.Benchmark
		judged := checks
		BeforeAll(func(ctx SpecContext) {
			env := Current()
			into := dir
			if into == "" {
				into = env.Suite
			}
			// The artifact names what its gate judged it by: the report shows each budget
			// with its figure and margin, and marks changes by the gate's own rule.
			budgets := make([]string, len(g.Spec.Budgets))
			for i, b := range g.Spec.Budgets {
				budgets[i] = b.String()
			}
			if g.Scenario.Search.On() {
				var partner *artifact.Benchmark
				run, partner = searchIn(ctx, into, g.Name, env.Target(), env.named(g.Scenario), g.Spec.Budgets, g.Interleave, func(run *artifact.Benchmark) {
					if x := run.Extension; x != nil {
						x.Budgets = budgets
						x.SLOAttainment, x.GoodputRPS = run.SLO()
					}
				})
				spec := g.Spec
				if partner != nil {
					spec.Baseline = partner
				}
				judged = spec.Checks()
				return
			}
			if g.Interleave != nil {
				var partner *artifact.Benchmark
				run, partner = runInterleavedIn(ctx, into, g.Name, env.Target(), env.named(g.Scenario), *g.Interleave, func(run *artifact.Benchmark) {
					if x := run.Extension; x != nil {
						x.Budgets = budgets
						x.SLOAttainment, x.GoodputRPS = run.SLO()
						if x.Baseline != nil {
							x.Baseline.GateBy = cmp.Or(g.Spec.By, gate.DefaultSpec().By)
						}
					}
				})
				spec := g.Spec
				spec.Baseline = partner
				judged = spec.Checks()
				return
			}
			run = runIn(ctx, into, g.Name, env.Target(), env.named(g.Scenario), func(run *artifact.Benchmark) {
				if run.Extension != nil {
					run.Extension.Baseline, run.Extension.Budgets = g.Spec.BaselineRef(), budgets
					run.Extension.SLOAttainment, run.Extension.GoodputRPS = run.SLO()
				}
			})
		}, NodeTimeout(time.Hour))
		for k, c := range checks {
			It(c.Name, Label(junit.KindLabelPrefix+string(c.Kind)), func() { expectCheck(judged[k], run) })
		}
	})
}

// expectCheck judges run with c: a check that does not apply skips the spec, a failure
// fails it with the check's message and attaches the judgement for the verdict.
func expectCheck(c gate.Check, run *artifact.Benchmark) {
	GinkgoHelper()
	r := c.Judge(run)
	if !r.Passed() || r.Noted != "" {
		AddReportEntry(junit.CheckEntry, r, ReportEntryVisibilityNever)
	}
	if r.Skipped != "" {
		Skip(r.Skipped)
	}
	if !r.Passed() {
		Fail(r.Message)
	}
}
