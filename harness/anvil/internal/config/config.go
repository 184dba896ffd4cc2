// Package config loads anvilbench's configuration from ANVIL_* environment variables, once,
// and validates it as a whole so that every problem is reported together, before any
// request is sent.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/secret"
	"github.com/anvilbench/anvilbench/internal/fields"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

// Prefix is the prefix of every variable.
const Prefix = "ANVIL_"

// Config is the whole configuration. Each field documents its variable, default and unit.
type Config struct {
	// BaseURL (ANVIL_BASE_URL) is the OpenAI-compatible endpoint including /v1, e.g.
	// http://127.0.0.1:8080/v1. Empty starts the embedded reference engine.
	BaseURL string `env:"BASE_URL"`
	// Model (ANVIL_MODEL) is the served model id; empty takes the one id GET /v1/models lists
	// (several are refused: engines need not keep their order).
	Model string `env:"MODEL"`
	// APIKey (ANVIL_API_KEY) is sent as a bearer token. It is redacted everywhere.
	APIKey secret.Secret `env:"API_KEY"`
	// Engine, GPU and Tier (ANVIL_ENGINE, ANVIL_GPU, ANVIL_TIER) label the artifact.
	Engine string `env:"ENGINE"`
	GPU    string `env:"GPU"`
	Tier   string `env:"TIER"`
	// OutDir (ANVIL_OUT_DIR) receives artifacts and junit.xml; default "artifacts" at the
	// module root. A relative path is taken from the module root, not from the suite's
	// package directory where Ginkgo runs the test binary.
	OutDir string `env:"OUT_DIR" envDefault:"artifacts"`

	// Scenario is the configured scenario's workload: each of capacity.Scenario's keyed
	// fields is a variable, ANVIL_ and its key upper-cased (ANVIL_REQUESTS), at its default
	// (capacity.Defaults) when unset. A scenarios file's entries start from it.
	Scenario capacity.Scenario `env:"-"`
	// Gate is how the configured scenario (and, by default, each of a scenarios file) is
	// judged: each of gate.Spec's keyed fields is a variable alike (ANVIL_GATE_BY).
	Gate gate.Spec `env:"-"`

	// MetricsURL (ANVIL_METRICS_URL) is where the engine serves Prometheus metrics, scraped
	// around each scenario; empty means /metrics at the root of the endpoint, "off" none.
	MetricsURL string `env:"METRICS_URL"`
	// GPUMetricsURL (ANVIL_GPU_METRICS_URL) is a DCGM exporter's /metrics for the engine's
	// GPUs, sampled around each scenario; empty reads nvidia-smi, else amd-smi, when it is
	// on this host, "off" none.
	GPUMetricsURL string `env:"GPU_METRICS_URL"`
	// GPUPricePerHour (ANVIL_GPU_PRICE_PER_HOUR) is what the engine's GPUs cost an hour, all
	// of them, e.g. 2.5: each artifact then states the cost of a million output tokens.
	GPUPricePerHour float64 `env:"GPU_PRICE_PER_HOUR" envDefault:"0"`

	// KernelTimestamps (ANVIL_KERNEL_TIMESTAMPS) stamps each event with the kernel's receive
	// timestamp of its bytes where the platform has one (Linux), else when the read returns.
	KernelTimestamps bool `env:"KERNEL_TIMESTAMPS" envDefault:"true"`
	// TransmitStamps (ANVIL_TRANSMIT_STAMPS) splits TTFT at the kernel's transmit stamp of
	// each request's last byte (with kernel timestamps, on Linux).
	TransmitStamps bool `env:"TRANSMIT_STAMPS" envDefault:"true"`

	// ProgressInterval (ANVIL_PROGRESS_INTERVAL) is how often a running scenario prints its
	// progress.
	ProgressInterval time.Duration `env:"PROGRESS_INTERVAL" envDefault:"10s"`
	// Timeout (ANVIL_TIMEOUT) bounds each request from start to end, (0, 1h].
	Timeout time.Duration `env:"TIMEOUT" envDefault:"15m"`
	// StallTimeout (ANVIL_STALL_TIMEOUT) bounds the silence between two reads once the first
	// streamed event has arrived, (0, Timeout]. Waiting for the first event (queueing and
	// prefill, possibly without response headers) is bounded by Timeout only.
	StallTimeout time.Duration `env:"STALL_TIMEOUT" envDefault:"60s"`
	// ProbeTimeout (ANVIL_PROBE_TIMEOUT) bounds each step of the run's preflight, once per
	// run: GET /models answered, and a one-token request's token; (0, 1h]. An engine that
	// takes connections and never answers fails the run within it.
	ProbeTimeout time.Duration `env:"PROBE_TIMEOUT" envDefault:"30s"`

	// Budgets (ANVIL_BUDGETS) are the gates of the configured scenario, e.g.
	// "tpot_p50_ms<=6, ttft_p95_ms<=12500, decode_tok_s_p50>=150"; see package budget.
	Budgets string `env:"BUDGETS" use:"configured"`
	// BudgetsFile (ANVIL_BUDGETS_FILE) is a JSON file of more budgets,
	// {"budgets": ["tpot_p50_ms<=6"]} (budget.ReadFile); a relative path is taken from the
	// module root.
	BudgetsFile string `env:"BUDGETS_FILE" use:"configured"`
	// fileBudgets are BudgetsFile's budgets, read once by Load.
	fileBudgets []budget.Budget
	// Baseline (ANVIL_BASELINE) is what the gated scenarios must not regress from: a v1
	// artifact (ours or the original tool's), the configured scenario's and that of the
	// scenario that wrote it, or a directory or glob of earlier runs' artifacts, each
	// scenario's history its own runs there, whose spread the comparison measures; a
	// scenario of ANVIL_SCENARIOS_FILE that names a baseline of its own keeps it. A relative
	// path is taken from the module root.
	Baseline string `env:"BASELINE" use:"gated"`
	// baselines are what Baseline holds, read once by Load.
	baselines baselines
	// BaselineURL (ANVIL_BASELINE_URL) is a baseline build's endpoint, including /v1: every
	// gated scenario then runs interleaved with it (capacity.RunInterleaved), its blocks in
	// ABBA order, and is judged against it. BaselineModel (ANVIL_BASELINE_MODEL) is its
	// model, empty the scenario's; BaselineAPIKey (ANVIL_BASELINE_API_KEY) its key, empty
	// ANVIL_API_KEY.
	BaselineURL    string        `env:"BASELINE_URL" use:"gated"`
	BaselineModel  string        `env:"BASELINE_MODEL" use:"gated"`
	BaselineAPIKey secret.Secret `env:"BASELINE_API_KEY" use:"gated"`
	// GateStarts (ANVIL_GATE_STARTS) is a directory of interleaved runs of main's build
	// against a second start of it (A/A; anvilbench baseline -starts records them): what
	// their two starts differed by is the spread between starts an interleaved comparison
	// of each scenario counts, when larger than gate_restart_cv. A relative path is taken
	// from the module root.
	GateStarts string `env:"GATE_STARTS" use:"gated"`
	// starts are the spreads GateStarts measured, by scenario, read once by Load.
	starts map[string]startSpread
	// BaselineDir (ANVIL_BASELINE_DIR) is the ANVIL_OUT_DIR of an earlier run: the report
	// gives each scenario its change from the artifact at the same path there and draws
	// that run's ladders beside this run's; a relative path is taken from the module root.
	BaselineDir string `env:"BASELINE_DIR"`

	// ScenariosFile (ANVIL_SCENARIOS_FILE) is a JSON file of named scenarios, each gated like
	// the configured one (see ReadScenarios); a relative path is taken from the module root.
	ScenariosFile string `env:"SCENARIOS_FILE" use:"scenarios"`
	// scenarios are ScenariosFile's, read and validated once by Load.
	scenarios []GatedScenario

	// SelfTest (ANVIL_SELFTEST) runs the harness's own proofs (specs labelled selftest)
	// against private engines even when ANVIL_BASE_URL names an engine under test.
	SelfTest bool `env:"SELFTEST" envDefault:"false"`

	// Shard (ANVIL_SHARD) runs segment i of N of every scenario against the endpoint under
	// test ("i/N", 0 <= i < N): the requests whose index modulo N is i, with 1/N of the
	// concurrency; Shards (ANVIL_SHARDS) is N when the index comes from JOB_COMPLETION_INDEX,
	// which a Kubernetes Indexed Job sets. Sharding needs ANVIL_CLOCK_DOMAIN_ID.
	Shard  string `env:"SHARD"`
	Shards int    `env:"SHARDS" envDefault:"0"`
	// shard is Shard or Shards parsed by Load.
	shard capacity.Shard
	// StartAt (ANVIL_START_AT) makes every scenario's request phase wait for that instant,
	// RFC 3339 with milliseconds, e.g. 2026-12-03T10:00:00.000Z: shards on several hosts then
	// start together.
	StartAt string `env:"START_AT"`
	// startAt is StartAt parsed by Load.
	startAt time.Time

	// ClockDomainID (ANVIL_CLOCK_DOMAIN_ID) declares that artifacts carrying the same id share
	// one host clock; [A-Za-z0-9._-]{1,64}.
	ClockDomainID string `env:"CLOCK_DOMAIN_ID"`
	// ConfigurationFingerprint (ANVIL_CONFIGURATION_FINGERPRINT) is an operator-declared
	// sha256:<64 hex> of the serving configuration.
	ConfigurationFingerprint string `env:"CONFIGURATION_FINGERPRINT"`

	// RunName (ANVIL_RUN_ID) names the run, [A-Za-z0-9._-]{1,64}; empty derives the name
	// from the process that launched the suites, or for shards from ANVIL_START_AT and the
	// shard count (runrecord.ID). Every artifact, junit.xml and gate.json of the run
	// carries it (Run).
	RunName string `env:"RUN_ID"`
	// run is the run's record as Load resolved it.
	run Run
}

// Run is what the run's record needs of the configuration: the run this process belongs
// to and where it writes. Load resolves it even from an invalid configuration, so that
// such a run still writes its verdict where it was asked to, and never as another run's.
type Run struct {
	// OutDir is ANVIL_OUT_DIR resolved (ResolveOutDir): a shard's own directory below it.
	OutDir string
	// ID names the run (runrecord.ID).
	ID string
}

// Run is the run this process belongs to and where it writes.
func (c Config) Run() Run { return c.run }

// loads counts the configurations this process loaded from its environment.
var loads atomic.Int64

// Loads is how many times this process loaded its configuration from the environment: a
// suite process loads it once, and every part of the suite reads that one.
func Loads() int64 { return loads.Load() }

// FromEnvironment loads the configuration from the process environment.
func FromEnvironment() (Config, error) {
	loads.Add(1)
	return Load(env.ToMap(os.Environ()))
}

// Load parses environ (variable name to value) and validates the result. The error lists
// every problem, each naming its ANVIL_* variable; an ANVIL_* variable anvilbench does not
// know is one, with the known one it was probably meant to be. With an error, the Config
// holds only what the run's record needs: its Run and the API key, which every file the run
// writes redacts.
func Load(environ map[string]string) (Config, error) {
	problems := unknownVariables(environ)
	cfg, err := env.ParseAsWithOptions[Config](env.Options{Prefix: Prefix, Environment: environ})
	unparsable := map[string]bool{}
	if err != nil {
		var more problemList
		more, unparsable = describeParseError(err, environ)
		problems = append(problems, more...)
		// Validate the rest too, with the unparsable variables at their defaults, so that
		// one run reports every problem.
		rest := map[string]string{}
		for k, v := range environ {
			if !unparsable[k] {
				rest[k] = v
			}
		}
		cfg, _ = env.ParseAsWithOptions[Config](env.Options{Prefix: Prefix, Environment: rest})
	}
	cfg.Scenario, cfg.Gate = capacity.Defaults(), gate.DefaultSpec()
	problems = append(problems, decodeVariables(&cfg.Scenario, environ)...)
	problems = append(problems, decodeVariables(&cfg.Gate, environ)...)
	var more problemList
	if err := cfg.complete(environ); errors.As(err, &more) {
		problems = append(problems, more...)
	} else if err != nil {
		problems = append(problems, err.Error())
	}
	cfg.run = cfg.resolveRun()
	if len(problems) > 0 {
		return Config{run: cfg.run, APIKey: cfg.APIKey}, problems
	}
	return cfg, nil
}

// resolveRun names the run and resolves where it writes, from what parsed: an out
// directory that cannot be resolved (no module root) stays as written.
func (c Config) resolveRun() Run {
	out, err := c.ResolveOutDir()
	if err != nil {
		out = c.OutDir
	}
	startAt := ""
	if c.shard.Count > 1 {
		startAt = c.StartAt
	}
	return Run{OutDir: out, ID: runrecord.ID(c.RunName, c.shard.Count, startAt)}
}

// decodeVariables sets each keyed field of the struct ptr points to from its variable in
// environ, when set to a value: the text a scenarios file would hold, read the same way
// (fields.Field.SetText).
func decodeVariables(ptr any, environ map[string]string) problemList {
	var p problemList
	for _, f := range fields.Of(reflect.TypeOf(ptr).Elem()) {
		name := Prefix + f.Variable
		text := environ[name]
		if text == "" {
			continue
		}
		if err := f.SetText(ptr, text); err != nil {
			p = append(p, fmt.Sprintf("%s=%q: %s", name, text, decodeProblem(f, err)))
		}
	}
	return p
}

// decodeProblem says why a value did not decode into f: "not an integer (want 1..10000)".
func decodeProblem(f fields.Field, err error) string {
	msg := err.Error()
	if want, ok := strings.CutPrefix(msg, "want "); ok {
		msg = "not " + want
		if f.Range != nil {
			msg += " (want " + f.Range.String() + ")"
		}
	}
	return msg
}

// problemList is the error of a configuration that failed to load: one line per problem.
type problemList []string

// Error says the first problem on its first line, so that a one-line verdict names it,
// then lists every problem.
func (p problemList) Error() string {
	if len(p) == 0 {
		return "invalid anvilbench configuration"
	}
	first := "invalid anvilbench configuration: " + p[0]
	if len(p) == 1 {
		return first
	}
	return fmt.Sprintf("%s (and %d more)\n  %s", first, len(p)-1, strings.Join(p, "\n  "))
}

// UsesEmbeddedEngine reports whether no endpoint was configured.
func (c Config) UsesEmbeddedEngine() bool { return c.BaseURL == "" }

// complete resolves the input files, reads each once (so what is judged is what was
// validated, whatever happens to the files later) and validates the whole.
func (c *Config) complete(environ map[string]string) error {
	c.resolveInputs()
	var p problemList
	var err error
	p = append(p, c.parseSharding(environ)...)
	if err := c.APIKey.Validate(); err != nil {
		p = append(p, fmt.Sprintf("%sAPI_KEY: %v", Prefix, err))
	}
	if c.BudgetsFile != "" {
		if c.fileBudgets, err = budget.ReadFile(c.BudgetsFile); err != nil {
			p = append(p, fmt.Sprintf("%sBUDGETS_FILE=%q: %v", Prefix, c.BudgetsFile, err))
		}
	}
	if c.Baseline != "" {
		c.baselines, err = readBaselines(c.Baseline)
		switch {
		case c.Gate.OnMain && (errors.Is(err, fs.ErrNotExist) || err == nil && c.baselines.history()):
			// Main's first run starts its history: an empty or missing directory is a
			// history of no runs yet, each scenario run unjudged and noted.
			c.baselines, err = baselines{runs: c.baselines.runs}, nil
		case err != nil:
			p = append(p, fmt.Sprintf("%sBASELINE=%q: %v", Prefix, c.Baseline, err))
		case c.baselines.history() && len(c.baselines.runs) == 0:
			p = append(p, fmt.Sprintf("%sBASELINE=%q: no artifact there (a history is the artifacts earlier runs wrote)", Prefix, c.Baseline))
		}
		if c.BaselineURL != "" {
			p = append(p, fmt.Sprintf("%sBASELINE and %sBASELINE_URL: %v", Prefix, Prefix, errBaselineAndURL))
		}
	}
	if c.GateStarts != "" {
		if c.starts, err = readStarts(c.GateStarts, c.Gate.Metrics); err != nil {
			p = append(p, fmt.Sprintf("%sGATE_STARTS=%q: %v", Prefix, c.GateStarts, err))
		}
	}
	if err := c.BaselineAPIKey.Validate(); err != nil {
		p = append(p, fmt.Sprintf("%sBASELINE_API_KEY: %v", Prefix, err))
	}
	if c.BaselineDir != "" {
		if info, err := os.Stat(c.BaselineDir); err != nil {
			p = append(p, fmt.Sprintf("%sBASELINE_DIR=%q: %v", Prefix, c.BaselineDir, err))
		} else if !info.IsDir() {
			p = append(p, fmt.Sprintf("%sBASELINE_DIR=%q: not a directory (the output directory of an earlier run)", Prefix, c.BaselineDir))
		}
	}
	var more problemList
	if errors.As(c.Validate(), &more) {
		p = append(p, more...)
	}
	if err := c.Scenario.Trace.Check(); err != nil {
		p = append(p, fmt.Sprintf("%sTRACE_FILE=%q: %v", Prefix, c.Scenario.Trace.File, err))
	}
	// A scenarios file is read only over a valid environment: its unset keys take the
	// environment's values.
	if c.ScenariosFile != "" && len(p) == 0 {
		c.scenarios, err = readScenarios(c.ScenariosFile, *c)
		var inFile problemList
		switch {
		case errors.As(err, &inFile):
			for _, problem := range inFile {
				p = append(p, fmt.Sprintf("%sSCENARIOS_FILE: %s", Prefix, problem))
			}
		case err != nil:
			p = append(p, fmt.Sprintf("%sSCENARIOS_FILE=%q: %v", Prefix, c.ScenariosFile, err))
		}
	}
	if len(p) > 0 {
		return p
	}
	return nil
}

// resolveInputs makes the input files (ANVIL_BASELINE, ANVIL_BASELINE_DIR,
// ANVIL_BUDGETS_FILE, ANVIL_SCENARIOS_FILE, ANVIL_TRACE_FILE) absolute: a
// relative path is taken from the module root, like ANVIL_OUT_DIR, because each suite runs
// in its own package directory while users name files from where they run ginkgo. Without
// a module root a path stays relative to the working directory.
func (c *Config) resolveInputs() {
	for _, p := range []*string{&c.Baseline, &c.BaselineDir, &c.GateStarts, &c.BudgetsFile, &c.ScenariosFile, &c.Scenario.Trace.File} {
		if *p == "" {
			continue
		}
		if abs, err := fromModuleRoot(*p); err == nil {
			*p = abs
		}
	}
}

// ResolveOutDir returns OutDir as an absolute path: a relative OutDir is taken from the
// module root found by walking up from the working directory to go.mod. A shard writes
// into its own directory below it, shard-<i>-of-<N>, so the shards of a run can share one
// volume.
func (c Config) ResolveOutDir() (string, error) {
	dir, err := fromModuleRoot(c.OutDir)
	if err != nil {
		return "", fmt.Errorf("resolve %sOUT_DIR %q: %w", Prefix, c.OutDir, err)
	}
	if c.shard.Count > 1 {
		dir = filepath.Join(dir, ShardDir(c.shard))
	}
	return dir, nil
}

// ShardDir is the directory below ANVIL_OUT_DIR a shard writes into.
func ShardDir(s capacity.Shard) string { return fmt.Sprintf("shard-%d-of-%d", s.Index, s.Count) }

// jobCompletionIndex is the variable a Kubernetes Indexed Job sets to each pod's index.
const jobCompletionIndex = "JOB_COMPLETION_INDEX"

// parseSharding reads ANVIL_SHARD or ANVIL_SHARDS with JOB_COMPLETION_INDEX, and
// ANVIL_START_AT. The shard's own constraints (more requests and streams than shards, a
// clock domain) are the scenario's to check.
func (c *Config) parseSharding(environ map[string]string) problemList {
	var p problemList
	switch {
	case c.Shard != "" && c.Shards != 0:
		p = append(p, fmt.Sprintf("%sSHARD and %sSHARDS: set one (i/N, or N with %s)", Prefix, Prefix, jobCompletionIndex))
	case c.Shard != "":
		var i, n int
		if _, err := fmt.Sscanf(c.Shard, "%d/%d", &i, &n); err != nil || fmt.Sprintf("%d/%d", i, n) != c.Shard || n < 1 || i < 0 || i >= n {
			p = append(p, fmt.Sprintf("%sSHARD=%q: want i/N with 0 <= i < N, e.g. 0/4", Prefix, c.Shard))
		} else {
			c.shard = capacity.Shard{Index: i, Count: n}
		}
	case c.Shards < 0:
		p = append(p, fmt.Sprintf("%sSHARDS=%d: want the number of shards", Prefix, c.Shards))
	case c.Shards > 0:
		raw, ok := environ[jobCompletionIndex]
		i, err := strconv.Atoi(raw)
		switch {
		case !ok:
			p = append(p, fmt.Sprintf("%sSHARDS=%d needs %s (an Indexed Job sets it), or use %sSHARD=i/%d", Prefix, c.Shards, jobCompletionIndex, Prefix, c.Shards))
		case err != nil || i < 0 || i >= c.Shards:
			p = append(p, fmt.Sprintf("%s=%q: want 0..%d for %sSHARDS=%d", jobCompletionIndex, raw, c.Shards-1, Prefix, c.Shards))
		default:
			c.shard = capacity.Shard{Index: i, Count: c.Shards}
		}
	}
	if c.StartAt != "" {
		at, err := time.Parse(time.RFC3339Nano, c.StartAt)
		if err != nil {
			p = append(p, fmt.Sprintf("%sSTART_AT=%q: want RFC 3339 with milliseconds, e.g. 2026-12-03T10:00:00.000Z", Prefix, c.StartAt))
		} else {
			c.startAt = at
		}
	}
	return p
}

// Sharding is the shard this process runs of every scenario against the endpoint under
// test (the zero Shard for all of it) and the instant its request phases wait for (zero
// for none).
func (c Config) Sharding() (capacity.Shard, time.Time) { return c.shard, c.startAt }

// fromModuleRoot joins a relative path to the module root and returns an absolute one as is.
func fromModuleRoot(path string) (string, error) {
	if filepath.IsAbs(path) {
		return path, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, path), nil
}

// ModuleRoot walks up from the working directory to the directory holding go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory; set an absolute path")
		}
		dir = parent
	}
}

// GateOf is the gate the ANVIL_GATE_* and other gate.Spec variables of environ describe
// (gate.DefaultSpec where unset), read as Load reads them; the error lists each variable
// that does not decode or is out of range. The tools that judge outside the suites
// (compare, judge, history) take their defaults from it, so one rule judges everywhere.
func GateOf(environ map[string]string) (gate.Spec, error) {
	g := gate.DefaultSpec()
	problems := decodeVariables(&g, environ)
	if len(problems) > 0 {
		return gate.DefaultSpec(), problems
	}
	if err := g.Validate(); err != nil {
		return gate.DefaultSpec(), fmt.Errorf("the gate's variables: %w", err)
	}
	return g, nil
}
