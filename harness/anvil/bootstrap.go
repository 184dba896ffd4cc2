package anvil

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// Env is what a spec needs of the suite's setup.
type Env struct {
	cfg config.Config
	// BaseURL is the endpoint under test: ANVIL_BASE_URL, or the embedded engine's.
	BaseURL string
	// Embedded reports that BaseURL is the embedded reference engine.
	Embedded bool
	// OutDir is the resolved ANVIL_OUT_DIR.
	OutDir string
	// Suite names the suite's artifact directory.
	Suite string
	// RunID names the run every artifact of it carries (config.Run).
	RunID string
}

// Target is the endpoint under test with the configured key and timeouts.
func (e *Env) Target() capacity.Target { return e.cfg.Target(e.BaseURL) }

// Configured is the scenario the ANVIL_* variables describe (capacity.Defaults where they
// are unset), with the configuration's identity: what the configured scenario runs.
func (e *Env) Configured() capacity.Scenario { return e.named(e.cfg.Configured().Scenario) }

// Gate is how the configuration judges a scenario (gate.Spec: the gated metrics and their
// comparison, the context tolerance, the client's bounds), without the configured
// scenario's budgets and baseline.
func (e *Env) Gate() gate.Spec { return e.cfg.Gate }

// EmbeddedEngineName labels artifacts measured against the embedded engine when
// ANVIL_ENGINE is not set.
const EmbeddedEngineName = "anvilbench-refengine"

// WithIdentity fills a scenario built in code with what the configuration says of the
// endpoint: model (empty discovers it), engine, GPU, tier, clock domain and fingerprint,
// the context window and margin, whether to calibrate prompt sizes, the progress interval,
// and the shard and start instant of a sharded run. A scenario that asks for controlled
// output without naming a policy gets the configured one (ANVIL_CONTROLLED_OUTPUT_POLICY),
// as the scenarios of a scenarios file do: observe keeps a model that misses a word
// measurable; one that sends no warm-up, or leaves its repeats open, gets the configured
// ones (ANVIL_WARMUP_REQUESTS, ANVIL_REPEATS). Against the embedded engine an unnamed
// engine is EmbeddedEngineName.
func (e *Env) WithIdentity(sc capacity.Scenario) capacity.Scenario {
	c := e.cfg.Configured().Scenario
	sc.Model, sc.Engine, sc.GPU, sc.Tier = c.Model, c.Engine, c.GPU, c.Tier
	sc.ClockDomainID, sc.ConfigurationFingerprint = c.ClockDomainID, c.ConfigurationFingerprint
	sc.MaxContextTokens, sc.ContextMargin = c.MaxContextTokens, c.ContextMargin
	sc.Calibrate, sc.ProgressInterval = c.Calibrate, c.ProgressInterval
	sc.Shard, sc.StartAt = c.Shard, c.StartAt
	if sc.Policy == "" && sc.ResponseWords > 0 {
		sc.Policy = c.Policy
	}
	if sc.WarmupRequests == 0 {
		sc.WarmupRequests = c.WarmupRequests
	}
	if sc.Repeats == 0 {
		sc.Repeats = c.Repeats
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
	if e.Embedded || e.cfg.SelfTest {
		return true
	}
	if GinkgoLabelFilter() == "" {
		return false
	}
	return !selected(slices.DeleteFunc(slices.Clone(labels), func(l string) bool { return l == LabelSelfTest }))
}

// selected reports whether the label filter selects a spec with labels; every spec
// without a filter, and when the filter cannot be read (Ginkgo reports it).
func selected(labels []string) bool {
	filter := GinkgoLabelFilter()
	if filter == "" {
		return true
	}
	matches, err := types.ParseLabelFilter(filter)
	if err != nil {
		return true
	}
	return matches(labels)
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

// loaded is the process's configuration, read once: the spec tree, the set-up, each
// suite's record, its JUnit file and its report all take it from here. An invalid one
// builds no budget, gated metric or file scenario into the tree (BeforeSuite reports every
// problem), and still names the run and where it writes (config.Run).
var loaded = sync.OnceValues(config.FromEnvironment)

// treeConfig is the configuration the spec tree is built from, so that budgets, gated
// metrics and file scenarios become specs of their own: empty when it is invalid.
func treeConfig() config.Config {
	cfg, _ := loaded()
	return cfg
}

// runOf is the run this suite process belongs to and where it writes.
func runOf() config.Run { return treeConfig().Run() }

// EmbeddedEngine is the reference engine started when ANVIL_BASE_URL is empty: fast enough
// that `ginkgo -r ./suites` finishes in well under two minutes on two cores, with the shape
// of a real one (prefill proportional to prompt tokens, a flat 5 ms decode step, and a
// prefix cache on, as in vLLM and SGLang), a vision model (an image is Qwen2.5-VL's 28-pixel
// patches) serving two LoRA adapters, lora-a at its speed and lora-b 1.5 times slower, so
// images_per_request and adapters can be tried on a fresh clone.
func EmbeddedEngine() refengine.Options {
	return refengine.Options{
		MaxModelLen:     65536,
		PrefillOverhead: 15 * time.Millisecond,
		PrefillRate:     400_000,
		ITL:             5 * time.Millisecond,
		MaxBatch:        64,
		PrefixCache:     true,
		Seed:            1,
		ImagePatch:      28,
		Adapters:        map[string]float64{"lora-a": 1, "lora-b": 1.5},
	}
}

// Bootstrap registers the suite-level nodes of an anvilbench suite, and returns true so a
// suite can call it from a package-level var. Before any spec, on process 1:
//
//   - the suite joins its run (config.Run) in $ANVIL_OUT_DIR: run.json names the run and
//     gate.json records the suite as running, so a run that ends here is a failed run;
//   - the configuration is loaded and validated, every problem at once;
//   - the embedded engine starts when ANVIL_BASE_URL is empty (stopped at the end);
//   - the preflight, once per run: endpoint reachable, key accepted, model served, window,
//     and every gated scenario of the suite able to run (its baseline comparable, its
//     budgets judgeable, its fixed context inside the window). A failure ends the suite
//     with one message and no spec reports a symptom of it; later suites of the run skip.
//
// Self-tests are skipped against an engine under test unless asked. After each spec a
// failure is classified by the check that failed it. After the suite its specs are merged
// into $ANVIL_OUT_DIR/junit.xml, its verdict into gate.json, and the report is rewritten.
// Call it once per suite package, naming the suite's artifact directory:
//
//	var _ = anvil.Bootstrap("engine")
func Bootstrap(suite string) bool {
	suiteName = suite
	SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
		joinRun(suite)
		cfg := mustConfig()
		waitForBuilds(ctx)
		baseURL := cfg.BaseURL
		if cfg.UsesEmbeddedEngine() {
			var err error
			engine, err = refengine.Start(EmbeddedEngine())
			if err != nil {
				Fail(fmt.Sprintf("start the embedded reference engine: %v", err))
			}
			baseURL = engine.BaseURL()
			fmt.Fprintf(os.Stdout, "ANVIL_BASE_URL is empty: measuring the embedded reference engine at %s\n", baseURL)
		}
		preflight(ctx, cfg, baseURL)
		return []byte(baseURL)
	}, func(baseURL []byte) {
		cfg := mustConfig()
		r := runOf()
		current = &Env{cfg: cfg, BaseURL: string(baseURL), Embedded: cfg.UsesEmbeddedEngine(), OutDir: r.OutDir, Suite: suiteName, RunID: r.ID}
	}, NodeTimeout(30*time.Minute))
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
	AfterEach(classifyFailure)
	ReportAfterSuite("junit, gate verdict and report", finishRun)
	return true
}

// buildWaitLimit bounds how long a suite waits for ginkgo's builds of the others.
const buildWaitLimit = 3 * time.Minute

// waitForBuilds holds the suite until the ginkgo CLI that started it has finished building
// the other suites. `ginkgo -r` compiles them while this one runs, and a link takes a core
// for seconds: on a two-core machine the client and the embedded engine would be measured
// on what the linker left them, and a baseline comparison would find a regression in it.
func waitForBuilds(ctx context.Context) {
	n := siblingBuilds()
	if n == 0 {
		return
	}
	began := time.Now()
	builds := "builds"
	if n == 1 {
		builds = "build"
	}
	fmt.Fprintf(os.Stdout, "waiting for ginkgo to finish building the other suites (%d %s running) before measuring\n", n, builds)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	// Two quiet looks in a row: one build's end and the next one's start are microseconds apart.
	for quiet := 0; quiet < 2; {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if time.Since(began) > buildWaitLimit {
			fmt.Fprintf(os.Stdout, "ginkgo is still building after %s: measuring beside it\n", buildWaitLimit)
			return
		}
		if siblingBuilds() == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
	fmt.Fprintf(os.Stdout, "ginkgo's builds ended after %s\n", time.Since(began).Round(time.Millisecond))
}

// mustConfig loads the configuration or fails the suite. On process 1 a problem is the
// run's: it is recorded as its failed preflight, so the run's later suites skip instead of
// saying it again.
func mustConfig() config.Config {
	cfg, err := loaded()
	if err == nil {
		return cfg
	}
	if GinkgoParallelProcess() == 1 {
		r := runOf()
		_, _ = gate.UpdateSummary(r.OutDir, r.ID, func(s *gate.Summary) { configurationFailed(s, suiteName, err) })
	}
	Fail(err.Error())
	return cfg
}
