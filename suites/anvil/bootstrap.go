// Package bench is the wiring every suite shares: configuration, the embedded reference
// engine when no endpoint is configured, running a scenario and writing its artifact, and
// the run's JUnit file. Specs stay a catalogue of scenarios and assertions.
package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/config"
	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/reporters"
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
func (e *Env) Target() capacity.Target { return capacity.TargetFromConfig(e.Config, e.BaseURL) }

// EmbeddedEngineName labels artifacts measured against the embedded engine when
// ANVIL_ENGINE is not set.
const EmbeddedEngineName = "anvilbench-refengine"

// WithIdentity fills the scenario's identity from the configuration: model (empty
// discovers it), engine, GPU, tier, clock domain and fingerprint, the context window and
// margin, and whether to calibrate prompt sizes.
func (e *Env) WithIdentity(sc capacity.Scenario) capacity.Scenario {
	c := e.Config
	sc.Model, sc.Engine, sc.GPU, sc.Tier = c.Model, c.Engine, c.GPU, c.Tier
	sc.ClockDomainID, sc.ConfigurationFingerprint = c.ClockDomainID, c.ConfigurationFingerprint
	sc.MaxContextTokens, sc.ContextMargin = c.MaxContextTokens, c.ContextMargin
	sc.Calibrate = c.Calibrate
	if e.Embedded && sc.Engine == "" {
		sc.Engine = EmbeddedEngineName
	}
	return sc
}

var (
	current *Env
	engine  *refengine.Server
)

// Current is the suite's environment; valid inside specs.
func Current() *Env {
	if current == nil {
		Fail("bench.Bootstrap was not called by this suite")
	}
	return current
}

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

// Bootstrap registers the suite-level nodes: load and validate the configuration (all
// problems at once, before any request), start the embedded engine on process 1 when no
// endpoint is configured, stop it at the end, and merge this suite into
// $ANVIL_OUT_DIR/junit.xml. Call it once per suite: var _ = bench.Bootstrap("capacity").
func Bootstrap(suite string) bool {
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
	ReportAfterSuite("junit, gate summary and report", func(report types.Report) {
		// Loaded again: on a config error BeforeSuite failed and current is nil, yet the
		// failure still belongs in the JUnit file.
		cfg, cfgErr := config.FromEnvironment()
		outDir := filepath.Join("artifacts")
		if cfgErr == nil {
			if resolved, err := cfg.ResolveOutDir(); err == nil {
				outDir = resolved
			}
		} else if root, err := config.ModuleRoot(); err == nil {
			outDir = filepath.Join(root, "artifacts")
		}
		dst := filepath.Join(outDir, "junit.xml")
		if err := reporters.WriteJUnit(report, dst, reporters.JUnitOptions{Redact: []string{cfg.APIKey.Reveal()}}); err != nil {
			Fail(fmt.Sprintf("write %s: %v", dst, err))
		}
		if err := reporters.WriteGateSummary(report, filepath.Join(outDir, reporters.GateFileName)); err != nil {
			Fail(err.Error())
		}
		var budgets []reporters.ReportBudget
		for _, b := range cfg.ParsedBudgets() {
			budgets = append(budgets, reporters.ReportBudget{Metric: b.Metric, Op: b.Op, Limit: b.Limit})
		}
		curve, err := reporters.LoadCurve(outDir)
		if err != nil {
			GinkgoWriter.Println("report:", err)
		}
		notes, err := reporters.ReportDir(outDir, reporters.ReportOptions{Budgets: budgets, Curve: curve})
		if err != nil {
			Fail(fmt.Sprintf("write the report in %s: %v", outDir, err))
		}
		for _, n := range notes {
			GinkgoWriter.Println("report:", n)
		}
	})
	return true
}

func mustConfig() config.Config {
	cfg, err := config.FromEnvironment()
	if err != nil {
		Fail(err.Error())
	}
	return cfg
}

// Run executes a scenario against the suite's endpoint, writes its artifact to
// $ANVIL_OUT_DIR/<suite>/<spec>.json before anything is asserted, checks the artifact's
// invariants (capacity.Verify), and returns it. A run that cannot start fails the spec
// with the reason.
func Run(ctx context.Context, spec string, target capacity.Target, sc capacity.Scenario) *artifact.Benchmark {
	GinkgoHelper()
	env := Current()
	sc.Name = spec
	if sc.Progress == nil {
		sc.Progress, sc.ProgressInterval = GinkgoWriter, env.Config.ProgressInterval
	}
	run, err := capacity.Run(ctx, target, sc)
	if err != nil {
		Fail(fmt.Sprintf("scenario %s did not start: %v", spec, err))
	}
	Record(spec, run)
	AddReportEntry("summary", Summarize(run))
	return run
}

// Record writes a run's artifact to $ANVIL_OUT_DIR/<suite>/<spec>.json, checks its
// invariants (capacity.Verify: a violation is a harness bug, not an engine result) and
// returns the path relative to the output directory.
func Record(spec string, run *artifact.Benchmark) string {
	GinkgoHelper()
	env := Current()
	path, err := reporters.ArtifactPath(env.OutDir, env.Suite, spec)
	if err != nil {
		Fail(err.Error())
	}
	if err := artifact.Write(path, run); err != nil {
		Fail(err.Error())
	}
	if err := capacity.Verify(run); err != nil {
		Fail(fmt.Sprintf("artifact %s is inconsistent: %v", path, err))
	}
	AddReportEntry("artifact", path, ReportEntryVisibilityNever)
	rel, err := filepath.Rel(env.OutDir, path)
	if err != nil {
		return path
	}
	return rel
}

// PrivateEngine starts a reference engine for the current spec only, stopped when the
// spec ends, and returns it with a target pointing at it. Specs that prove the harness
// catches an engine's behaviour use one, whatever ANVIL_BASE_URL says.
func PrivateEngine(opts refengine.Options) (*refengine.Server, capacity.Target) {
	GinkgoHelper()
	s, err := refengine.Start(opts)
	if err != nil {
		Fail(fmt.Sprintf("start a private reference engine: %v", err))
	}
	DeferCleanup(s.Close)
	return s, capacity.Target{BaseURL: s.BaseURL(), Timeout: time.Minute, StallTimeout: 10 * time.Second}
}
