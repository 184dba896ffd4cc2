// Package capacity runs one capacity scenario against an OpenAI-compatible endpoint and
// turns what it measured into an anvil-serving.benchmark/v1 artifact.
package capacity

import (
	"fmt"
	"io"
	"time"

	"github.com/anvilbench/anvilbench/harness/config"
	"github.com/anvilbench/anvilbench/harness/stream"
	"github.com/anvilbench/anvilbench/harness/workload"
)

// Target is the endpoint under test.
type Target struct {
	// BaseURL includes /v1. Credentials in it are used but never recorded.
	BaseURL string
	APIKey  config.Secret
	// Timeout bounds each request; StallTimeout the silence inside a started stream.
	Timeout, StallTimeout time.Duration
}

// Scenario is the workload of one capacity run and the identity recorded with it.
type Scenario struct {
	// Name is the spec's name, recorded in the artifact's extension block.
	Name                  string
	Requests, Concurrency int
	// ContextTokens is every request's planned prompt size; 0 samples ContextBuckets.
	ContextTokens  int
	ContextSeed    int64
	ContextBuckets []workload.Bucket
	// ContextMargin is kept below MaxContextTokens - MaxTokens.
	ContextMargin int
	// MaxContextTokens is the served window; 0 discovers it from GET /v1/models.
	MaxContextTokens int
	MaxTokens        int
	// ResponseWords asks for exactly this many code words; Policy is strict or observe.
	ResponseWords   int
	Policy          string
	RequestCanaries bool
	// CharsPerToken sizes prompts; 0 means workload.DefaultCharsPerToken. Calibrate replaces
	// it with the endpoint's own figure measured before the run.
	CharsPerToken float64
	Calibrate     bool

	// PromptCacheMode is "unique" (the default) or "shared": every prompt then starts with
	// the same SharedPrefixTokens-token prefix.
	PromptCacheMode    string
	SharedPrefixTokens int
	// Burst releases all Requests at the same instant (concurrency = Requests).
	Burst bool
	// CacheIntent is what the spec expects of the prefix cache: "cold", "shared-prefix" or
	// "" (no statement); recorded so matchers can hold the run to it.
	CacheIntent string

	// ThinkingMode is default, enabled, disabled or unsupported; ReasoningEffort is sent as
	// reasoning_effort when set.
	ThinkingMode, ReasoningEffort string
	// Temperature and TopP override what is sent; nil sends temperature 0 and no top_p.
	Temperature, TopP *float64
	// Legacy uses /v1/completions with a plain prompt.
	Legacy bool
	// RequestRate, when above 0, starts requests open-loop at that many per second (Arrival
	// poisson, the default, or constant, seeded by ContextSeed) instead of the closed loop;
	// Concurrency then caps the requests in flight.
	RequestRate float64
	Arrival     string
	// Progress, when set, receives a line every ProgressInterval (default 10 s) while the
	// run lasts: requests done, failures, running p50s.
	Progress         io.Writer
	ProgressInterval time.Duration

	// ContinuousUsage asks for usage in every chunk (vLLM continuous_usage_stats), so
	// tokens are attributed to chunks when an engine sends several per chunk.
	ContinuousUsage bool

	// Model is sent with every request; empty takes the first served model.
	Model                                                      string
	Engine, GPU, Tier, ClockDomainID, ConfigurationFingerprint string
}

// TargetFromConfig is the endpoint of cfg (BaseURL must already be resolved).
func TargetFromConfig(cfg config.Config, baseURL string) Target {
	return Target{BaseURL: baseURL, APIKey: cfg.APIKey, Timeout: cfg.Timeout, StallTimeout: cfg.StallTimeout}
}

// ScenarioFromConfig is the scenario the ANVIL_* variables describe.
func ScenarioFromConfig(cfg config.Config) (Scenario, error) {
	buckets, err := workload.ParseBuckets(cfg.ContextBuckets)
	if err != nil {
		return Scenario{}, fmt.Errorf("%sCONTEXT_BUCKETS: %w", config.Prefix, err)
	}
	sc := Scenario{
		Requests:                 cfg.Requests,
		Concurrency:              cfg.Concurrency,
		ContextTokens:            cfg.ContextTokens,
		Calibrate:                cfg.Calibrate,
		PromptCacheMode:          cfg.PromptCacheMode,
		SharedPrefixTokens:       cfg.SharedPrefixTokens,
		RequestCanaries:          cfg.RequestCanaries,
		ThinkingMode:             cfg.ThinkingMode,
		ReasoningEffort:          cfg.ReasoningEffort,
		Temperature:              cfg.Temperature,
		TopP:                     cfg.TopP,
		Legacy:                   cfg.API == "completions",
		ContinuousUsage:          cfg.ContinuousUsage,
		RequestRate:              cfg.RequestRate,
		Arrival:                  cfg.Arrival,
		ProgressInterval:         cfg.ProgressInterval,
		ContextSeed:              cfg.ContextSeed,
		ContextBuckets:           buckets,
		ContextMargin:            cfg.ContextMargin,
		MaxContextTokens:         cfg.MaxContextTokens,
		MaxTokens:                cfg.MaxTokens,
		ResponseWords:            cfg.ResponseWords,
		Policy:                   cfg.ControlledOutputPolicy,
		Model:                    cfg.Model,
		Engine:                   cfg.Engine,
		GPU:                      cfg.GPU,
		Tier:                     cfg.Tier,
		ClockDomainID:            cfg.ClockDomainID,
		ConfigurationFingerprint: cfg.ConfigurationFingerprint,
	}
	if cfg.Burst > 0 {
		sc.Requests, sc.Concurrency, sc.Burst = cfg.Burst, cfg.Burst, true
	}
	return sc, nil
}

// shared reports whether prompts share a prefix.
func (sc Scenario) shared() bool { return sc.PromptCacheMode == config.CacheShared }

// request is the body of request i's prompt, with the scenario's sampling and thinking
// controls.
func (sc Scenario) request(prompt string) stream.ChatRequest {
	r := stream.ChatRequest{
		Model: sc.Model, Prompt: prompt, MaxTokens: sc.MaxTokens,
		Temperature: sc.Temperature, TopP: sc.TopP,
		ReasoningEffort: sc.ReasoningEffort, Legacy: sc.Legacy, ContinuousUsage: sc.ContinuousUsage,
	}
	if r.Temperature == nil {
		r.Temperature = &defaultTemperature
	}
	switch sc.ThinkingMode {
	case "enabled":
		r.ChatTemplateKwargs = map[string]any{"enable_thinking": true}
	case "disabled":
		r.ChatTemplateKwargs = map[string]any{"enable_thinking": false}
	}
	return r
}

// defaultTemperature is sent when none is configured so sampling is greedy on every engine.
var defaultTemperature = 0.0
