package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/schedule"
	"github.com/anvilbench/anvilbench/harness/workload"
)

// Workload is what a scenario sends. Each field is an ANVIL_* variable and, in lower case
// without the prefix, a key of a scenarios file.
type Workload struct {
	// Requests (ANVIL_REQUESTS) is the number of requests of the configured scenario, 1..10000.
	Requests int `env:"REQUESTS" envDefault:"60" json:"requests" use:"scenario"`
	// Concurrency (ANVIL_CONCURRENCY) is the number of requests in flight, 1..1024.
	Concurrency int `env:"CONCURRENCY" envDefault:"20" json:"concurrency" use:"scenario"`
	// ContextTokens (ANVIL_CONTEXT_TOKENS) is the planned prompt size in tokens, 32..1048576;
	// 0 samples each request's size from ContextBuckets.
	ContextTokens int `env:"CONTEXT_TOKENS" envDefault:"4096" json:"context_tokens" use:"scenario"`
	// ContextSeed (ANVIL_CONTEXT_SEED) seeds the context sampler, the prompts and the markers.
	ContextSeed int64 `env:"CONTEXT_SEED" envDefault:"0" json:"context_seed" use:"scenario"`
	// ContextBuckets (ANVIL_CONTEXT_BUCKETS) is the cumulative distribution sampled when
	// ContextTokens is 0: "edge:tokens,..." with increasing edges ending at 1.
	ContextBuckets string `env:"CONTEXT_BUCKETS" envDefault:"0.218:16000,0.602:32768,0.906:65536,0.995:131072,1:262144" json:"context_buckets" use:"scenario"`
	// ContextMargin (ANVIL_CONTEXT_MARGIN) is the head room in tokens kept below
	// max_context_tokens - max_tokens, 0..1048576.
	ContextMargin int `env:"CONTEXT_MARGIN" envDefault:"1024" json:"context_margin"`
	// MaxContextTokens (ANVIL_MAX_CONTEXT_TOKENS) is the served context window; 0 discovers
	// it from GET /v1/models.
	MaxContextTokens int `env:"MAX_CONTEXT_TOKENS" envDefault:"0" json:"max_context_tokens"`
	// MaxTokens (ANVIL_MAX_TOKENS) is sent as max_tokens, 1..65536.
	MaxTokens int `env:"MAX_TOKENS" envDefault:"64" json:"max_tokens" use:"scenario"`
	// ResponseWords (ANVIL_RESPONSE_WORDS) asks each response for exactly this many code
	// words, 0..65536; 0 is the legacy one-line summary workload.
	ResponseWords int `env:"RESPONSE_WORDS" envDefault:"32" json:"response_words" use:"scenario"`
	// ControlledOutputPolicy (ANVIL_CONTROLLED_OUTPUT_POLICY) is strict (a non-exact response
	// is a failure) or observe (recorded and kept).
	ControlledOutputPolicy workload.Policy `env:"CONTROLLED_OUTPUT_POLICY" envDefault:"strict" json:"controlled_output_policy"`

	// PromptCacheMode (ANVIL_PROMPT_CACHE_MODE) is unique (no two prompts share a prefix) or
	// shared (every prompt starts with the same SharedPrefixTokens-token prefix).
	PromptCacheMode workload.CacheMode `env:"PROMPT_CACHE_MODE" envDefault:"unique" json:"prompt_cache_mode" use:"scenario"`
	// SharedPrefixTokens (ANVIL_SHARED_PREFIX_TOKENS) is the shared prefix size in shared
	// mode, 0..262144.
	SharedPrefixTokens int `env:"SHARED_PREFIX_TOKENS" envDefault:"8000" json:"shared_prefix_tokens" use:"scenario"`
	// Burst (ANVIL_BURST), when above 0, releases that many requests at the same instant,
	// replacing ANVIL_REQUESTS and ANVIL_CONCURRENCY; it needs shared mode. 0..256.
	Burst int `env:"BURST" envDefault:"0" json:"burst" use:"scenario"`
	// RequestCanaries (ANVIL_REQUEST_CANARIES) makes every response begin with its own
	// marker and checks that no other request's marker appears in it.
	RequestCanaries bool `env:"REQUEST_CANARIES" envDefault:"false" json:"request_canaries" use:"scenario"`
	// ThinkingMode (ANVIL_THINKING_MODE) is default (send nothing), enabled or disabled
	// (chat_template_kwargs.enable_thinking), or unsupported (send nothing, the model has no
	// thinking switch).
	ThinkingMode capacity.ThinkingMode `env:"THINKING_MODE" envDefault:"default" json:"thinking_mode" use:"scenario"`
	// ReasoningEffort (ANVIL_REASONING_EFFORT) is sent as reasoning_effort: none, minimal,
	// low, medium, high, max or xhigh; it cannot be combined with enabled/disabled thinking.
	ReasoningEffort capacity.ReasoningEffort `env:"REASONING_EFFORT" json:"reasoning_effort" use:"scenario"`
	// Temperature and TopP (ANVIL_TEMPERATURE, ANVIL_TOP_P) override the sampling sent;
	// unset sends temperature 0 and no top_p.
	Temperature *float64 `env:"TEMPERATURE" json:"temperature" use:"scenario"`
	TopP        *float64 `env:"TOP_P" json:"top_p" use:"scenario"`
	// API (ANVIL_API) is chat (/v1/chat/completions) or completions (the legacy
	// /v1/completions with a plain prompt).
	API string `env:"API" envDefault:"chat" json:"api" use:"scenario"`
	// RequestRate (ANVIL_REQUEST_RATE), when above 0, starts requests open-loop at that many
	// per second, with ANVIL_ARRIVAL gaps (poisson or constant, seeded by
	// ANVIL_CONTEXT_SEED); ANVIL_CONCURRENCY then caps the requests in flight.
	RequestRate float64          `env:"REQUEST_RATE" envDefault:"0" json:"request_rate" use:"scenario"`
	Arrival     schedule.Arrival `env:"ARRIVAL" envDefault:"poisson" json:"arrival" use:"scenario"`
	// ContinuousUsage (ANVIL_CONTINUOUS_USAGE) asks for usage in every chunk (vLLM's
	// stream_options.continuous_usage_stats) so tokens are attributed to chunks; engines
	// that reject unknown stream options need it off.
	ContinuousUsage bool `env:"CONTINUOUS_USAGE" envDefault:"false" json:"continuous_usage" use:"scenario"`
	// Calibrate (ANVIL_CALIBRATE) measures the endpoint's characters per token before the
	// run (with /tokenize where it exists, else two short probe requests) so prompts hit
	// their planned token counts.
	Calibrate bool `env:"CALIBRATE" envDefault:"true" json:"calibrate"`
}

// Gate is how a scenario is judged against its baseline. Each field is an ANVIL_* variable
// and a key of a scenarios file.
type Gate struct {
	// GateMetrics (ANVIL_GATE_METRICS) are the metrics judged against the baseline, comma
	// separated.
	GateMetrics string `env:"GATE_METRICS" envDefault:"tpot_p50_ms,ttft_p50_ms" json:"gate_metrics" use:"scenario"`
	// GateBy (ANVIL_GATE_BY) is the relative change that counts as a regression, in (0, 1).
	GateBy float64 `env:"GATE_BY" envDefault:"0.05" json:"gate_by" use:"scenario"`
	// AllowMismatch (ANVIL_ALLOW_MISMATCH) compares with a baseline of another workload anyway.
	AllowMismatch bool `env:"ALLOW_MISMATCH" envDefault:"false" json:"allow_mismatch" use:"scenario"`
	// ContextTolerance (ANVIL_CONTEXT_TOLERANCE) is how far, relative, the prompt tokens the
	// engine counted may be from each request's plan before the context spec fails, (0, 1).
	ContextTolerance float64 `env:"CONTEXT_TOLERANCE" envDefault:"0.02" json:"context_tolerance"`
	// GateInconclusive (ANVIL_GATE_INCONCLUSIVE) is what a baseline comparison whose samples
	// cannot resolve a change of GateBy comes to: fail (the gate fails, outcome inconclusive)
	// or pass.
	GateInconclusive gate.InconclusivePolicy `env:"GATE_INCONCLUSIVE" envDefault:"fail" json:"gate_inconclusive" use:"scenario"`
	// MaxClientCPUPct (ANVIL_MAX_CLIENT_CPU_PCT) bounds the CPU the client wanted over the
	// request phase, running or waiting for a core, in percent of the cores it may use; above
	// it the run is invalid (gate.ClientBounds).
	MaxClientCPUPct float64 `env:"MAX_CLIENT_CPU_PCT" envDefault:"90" json:"max_client_cpu_pct" use:"scenario"`
	// MaxStartLagPct (ANVIL_MAX_START_LAG_PCT) bounds the share of the requests' in-flight
	// time they waited on the client to start; above it the run is invalid.
	MaxStartLagPct float64 `env:"MAX_START_LAG_PCT" envDefault:"5" json:"max_start_lag_pct" use:"scenario"`
}

// APIs accepted by ANVIL_API.
const (
	APIChat        = "chat"
	APICompletions = "completions"
)

// scenario converts the workload into a capacity scenario, with problems the scenario
// cannot express itself (a bad buckets text, a negative burst, an unknown API) as
// *capacity.FieldError.
func (w Workload) scenario() (capacity.Scenario, error) {
	var errs []error
	buckets, err := workload.ParseBuckets(w.ContextBuckets)
	if err != nil {
		errs = append(errs, &capacity.FieldError{Field: "context_buckets", Value: w.ContextBuckets, Problem: err.Error()})
	}
	if w.Burst < 0 {
		errs = append(errs, &capacity.FieldError{Field: "burst", Value: w.Burst, Problem: fmt.Sprintf("out of range (want 0..%d)", capacity.IntBounds["burst"][1])})
	}
	if w.API != APIChat && w.API != APICompletions {
		errs = append(errs, &capacity.FieldError{Field: "api", Value: w.API, Problem: "unknown API (want chat or completions)"})
	}
	sc := capacity.Scenario{
		Requests:           w.Requests,
		Concurrency:        w.Concurrency,
		ContextTokens:      w.ContextTokens,
		ContextSeed:        w.ContextSeed,
		ContextBuckets:     buckets,
		ContextMargin:      w.ContextMargin,
		MaxContextTokens:   w.MaxContextTokens,
		MaxTokens:          w.MaxTokens,
		ResponseWords:      w.ResponseWords,
		Policy:             w.ControlledOutputPolicy,
		RequestCanaries:    w.RequestCanaries,
		Calibrate:          w.Calibrate,
		PromptCacheMode:    w.PromptCacheMode,
		SharedPrefixTokens: w.SharedPrefixTokens,
		ThinkingMode:       w.ThinkingMode,
		ReasoningEffort:    w.ReasoningEffort,
		Temperature:        w.Temperature,
		TopP:               w.TopP,
		Legacy:             w.API == APICompletions,
		RequestRate:        w.RequestRate,
		Arrival:            w.Arrival,
		ContinuousUsage:    w.ContinuousUsage,
	}
	if w.Burst > 0 {
		sc.Requests, sc.Concurrency, sc.Burst = w.Burst, w.Burst, true
	}
	return sc, errors.Join(errs...)
}

// metrics returns the metrics of GateMetrics.
func (g Gate) metrics() []string {
	var out []string
	for m := range strings.SplitSeq(g.GateMetrics, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// GatedScenario is a scenario with everything that judges it: the configured scenario
// (Config.Configured) or one of a scenarios file (Config.Scenarios).
type GatedScenario struct {
	// Name names the scenario's specs and artifact; Labels are added to its specs.
	Name   string
	Labels []string
	// Scenario is the workload, with the configuration's identity (model, engine, GPU, tier,
	// clock domain, fingerprint) and progress interval.
	Scenario capacity.Scenario
	// Spec judges its run: budgets, baseline, gated metrics, tolerances, client bounds.
	gate.Spec
}

// spec is the gate of g with the budgets and baseline given.
func (g Gate) spec(budgets []budget.Budget, baselinePath string, baseline *artifact.Benchmark) gate.Spec {
	return gate.Spec{
		Budgets: budgets, BaselinePath: baselinePath, Baseline: baseline, Metrics: g.metrics(),
		Comparison:       gate.Comparison{By: g.GateBy, AllowMismatch: g.AllowMismatch, OnInconclusive: g.GateInconclusive},
		ContextTolerance: g.ContextTolerance,
		Client:           gate.ClientBounds{MaxCPUPct: g.MaxClientCPUPct, MaxStartLagPct: g.MaxStartLagPct},
	}
}

// ConfiguredName names the configured scenario.
const ConfiguredName = "configured"

// Configured is the scenario the ANVIL_* variables describe, with its budgets
// (ANVIL_BUDGETS and ANVIL_BUDGETS_FILE) and baseline. On a valid Config it cannot fail.
func (c Config) Configured() (GatedScenario, error) {
	sc, err := c.scenario(c.Workload)
	if err != nil {
		return GatedScenario{}, err
	}
	return GatedScenario{Name: ConfiguredName, Scenario: sc, Spec: c.Gate.spec(c.ParsedBudgets(), c.Baseline, c.baseline)}, nil
}

// Scenarios are the scenarios of ANVIL_SCENARIOS_FILE as Load read and validated them;
// none without a file.
func (c Config) Scenarios() []GatedScenario { return c.scenarios }

// scenario is w as a capacity scenario with the configuration's identity, validated.
func (c Config) scenario(w Workload) (capacity.Scenario, error) {
	sc, err := w.scenario()
	sc.Name = ConfiguredName
	sc.Model, sc.Engine, sc.GPU, sc.Tier = c.Model, c.Engine, c.GPU, c.Tier
	sc.ClockDomainID, sc.ConfigurationFingerprint = c.ClockDomainID, c.ConfigurationFingerprint
	sc.ProgressInterval = c.ProgressInterval
	sc.Shard, sc.StartAt = c.shard, c.startAt
	return sc, errors.Join(err, sc.Validate())
}

// Target is the endpoint at baseURL (ANVIL_BASE_URL, or the embedded engine's) with the
// configured key and timeouts.
func (c Config) Target(baseURL string) capacity.Target {
	return capacity.Target{BaseURL: baseURL, APIKey: c.APIKey, Timeout: c.Timeout, StallTimeout: c.StallTimeout, MetricsURL: c.MetricsURL,
		UserSpaceStamps: !c.KernelTimestamps}
}
