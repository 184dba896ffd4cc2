package anvil

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/config"
	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/reporters"
	"github.com/anvilbench/anvilbench/reporters/report"
)

// Env is what a spec needs of the suite's setup.
type Env struct {
	Config config.Config
	// BaseURL is the endpoint under test: ANVIL_BASE_URL, or the embedded engine's.
	BaseURL string
	// Embedded reports that BaseURL is the embedded reference engine.
	Embedded bool
	// OutDir is the resolved ANVIL_OUT_DIR.
	OutDir string
	// Suite names the suite's artifact directory.
	Suite string
}

// Target is the endpoint under test with the configured key and timeouts.
func (e *Env) Target() capacity.Target { return e.Config.Target(e.BaseURL) }

// EmbeddedEngineName labels artifacts measured against the embedded engine when
// ANVIL_ENGINE is not set.
const EmbeddedEngineName = "anvilbench-refengine"

// WithIdentity fills a scenario built in code with what the configuration says of the
// endpoint: model (empty discovers it), engine, GPU, tier, clock domain and fingerprint,
// the context window and margin, whether to calibrate prompt sizes, the progress interval,
// and the shard and start instant of a sharded run. A scenario that asks for controlled
// output without naming a policy gets the configured one (ANVIL_CONTROLLED_OUTPUT_POLICY),
// as the scenarios of a scenarios file do: observe keeps a model that misses a word
// measurable. Against the embedded engine an unnamed engine is EmbeddedEngineName.
func (e *Env) WithIdentity(sc capacity.Scenario) capacity.Scenario {
	c := e.Config
	sc.Model, sc.Engine, sc.GPU, sc.Tier = c.Model, c.Engine, c.GPU, c.Tier
	sc.ClockDomainID, sc.ConfigurationFingerprint = c.ClockDomainID, c.ConfigurationFingerprint
	sc.MaxContextTokens, sc.ContextMargin = c.MaxContextTokens, c.ContextMargin
	sc.Calibrate, sc.ProgressInterval = c.Calibrate, c.ProgressInterval
	sc.Shard, sc.StartAt = c.Sharding()
	if sc.Policy == "" && sc.ResponseWords > 0 {
		sc.Policy = c.ControlledOutputPolicy
	}
	return e.named(sc)
}

// named gives a scenario against the embedded engine the engine's name when it has none.
func (e *Env) named(sc capacity.Scenario) capacity.Scenario {
	if e.Embedded && sc.Engine == "" {
		sc.Engine = EmbeddedEngineName
	}
	return sc
}

// RunsSelfTest reports whether a spec labelled LabelSelfTest with labels runs: always on
// the embedded engine; against an engine under test only when ANVIL_SELFTEST is set or the
// label filter asks for self-tests, i.e. would not select the spec without its selftest
// label (--label-filter=selftest, 'selftest && knee').
func (e *Env) RunsSelfTest(labels []string) bool {
	if e.Embedded || e.Config.SelfTest {
		return true
	}
	filter := GinkgoLabelFilter()
	if filter == "" {
		return false
	}
	matches, err := types.ParseLabelFilter(filter)
	if err != nil {
		return false
	}
	return !matches(slices.DeleteFunc(slices.Clone(labels), func(l string) bool { return l == LabelSelfTest }))
}

var (
	current *Env
	engine  *refengine.Server
	// suiteName is the name Bootstrap was given, known while the spec tree is built.
	suiteName string
)

// Current is the suite's environment; valid inside specs.
func Current() *Env {
	if current == nil {
		Fail("anvil.Bootstrap was not called by this suite")
	}
	return current
}

// treeConfig is the configuration read while the spec tree is built, so that budgets,
// gated metrics and file scenarios become specs of their own. An invalid configuration
// builds none of them; BeforeSuite reports every problem.
var treeConfig = sync.OnceValue(func() config.Config {
	cfg, _ := config.FromEnvironment()
	return cfg
})

// EmbeddedEngine is the reference engine started when ANVIL_BASE_URL is empty: fast enough
// that `ginkgo -r ./suites` finishes in well under two minutes on two cores, with the shape
// of a real one (prefill proportional to prompt tokens, a flat 5 ms decode step).
func EmbeddedEngine() refengine.Options {
	return refengine.Options{
		MaxModelLen:     65536,
		PrefillOverhead: 15 * time.Millisecond,
		PrefillRate:     400_000,
		ITL:             5 * time.Millisecond,
		MaxBatch:        64,
		Seed:            1,
	}
}

// Bootstrap registers the suite-level nodes of an anvilbench suite: load and validate the
// configuration (every problem at once, before any request), start the embedded engine on
// process 1 when ANVIL_BASE_URL is empty and stop it at the end, skip the self-tests
// against an engine under test unless asked, and after the suite merge its specs into
// $ANVIL_OUT_DIR/junit.xml and gate.json and write the report. Call it once per suite
// package, naming the suite's artifact directory:
//
//	var _ = anvil.Bootstrap("engine")
func Bootstrap(suite string) bool {
	suiteName = suite
	SynchronizedBeforeSuite(func() []byte {
		cfg := mustConfig()
		if !cfg.UsesEmbeddedEngine() {
			return []byte(cfg.BaseURL)
		}
		var err error
		engine, err = refengine.Start(EmbeddedEngine())
		if err != nil {
			Fail(fmt.Sprintf("start the embedded reference engine: %v", err))
		}
		GinkgoWriter.Printf("ANVIL_BASE_URL is empty: measuring the embedded reference engine at %s\n", engine.BaseURL())
		return []byte(engine.BaseURL())
	}, func(baseURL []byte) {
		cfg := mustConfig()
		out, err := cfg.ResolveOutDir()
		if err != nil {
			Fail(err.Error())
		}
		current = &Env{Config: cfg, BaseURL: string(baseURL), Embedded: cfg.UsesEmbeddedEngine(), OutDir: out, Suite: suite}
	})
	SynchronizedAfterSuite(func() {}, func() {
		if engine != nil {
			engine.Close()
		}
	})
	BeforeEach(func() {
		labels := CurrentSpecReport().Labels()
		if current != nil && slices.Contains(labels, LabelSelfTest) && !current.RunsSelfTest(labels) {
			Skip("a self-test of the harness: against an engine under test it runs only with --label-filter=selftest or ANVIL_SELFTEST=true")
		}
	})
	ReportAfterSuite("junit, gate summary and report", writeRunOutputs)
	return true
}

// writeRunOutputs merges the suite into the run's JUnit file and gate summary and rewrites
// the report from every artifact of the output directory.
func writeRunOutputs(suiteReport types.Report) {
	// Loaded again: on a config error BeforeSuite failed and current is nil, yet the failure
	// still belongs in the JUnit file under ANVIL_OUT_DIR.
	cfg, _ := config.FromEnvironment()
	outDir, err := config.OutDirFromEnvironment()
	if err != nil {
		outDir = "artifacts"
	}
	dst := filepath.Join(outDir, "junit.xml")
	if err := reporters.WriteJUnit(suiteReport, dst, reporters.JUnitOptions{Redact: []string{os.Getenv(config.Prefix + "API_KEY")}}); err != nil {
		Fail(fmt.Sprintf("write %s: %v", dst, err))
	}
	if err := reporters.WriteGateSummary(suiteReport, filepath.Join(outDir, reporters.GateFileName), ""); err != nil {
		Fail(err.Error())
	}
	m, err := report.WriteDir(outDir, report.Options{Budgets: cfg.ParsedBudgets(), BaselineDir: cfg.BaselineDir, Invocation: reporters.ParentInvocation()})
	if err != nil {
		Fail(fmt.Sprintf("write the report in %s: %v", outDir, err))
	}
	for _, n := range m.Notes {
		GinkgoWriter.Println("report:", n)
	}
}

func mustConfig() config.Config {
	cfg, err := config.FromEnvironment()
	if err != nil {
		Fail(err.Error())
	}
	return cfg
}
