// Package capacity runs one capacity scenario against an OpenAI-compatible endpoint and
// turns what it measured into an anvil-serving.benchmark/v1 artifact.
package capacity

import (
	"fmt"
	"time"

	"github.com/anvilbench/anvilbench/harness/config"
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
	// CharsPerToken sizes prompts; 0 means workload.DefaultCharsPerToken.
	CharsPerToken float64

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
	return Scenario{
		Requests:                 cfg.Requests,
		Concurrency:              cfg.Concurrency,
		ContextTokens:            cfg.ContextTokens,
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
	}, nil
}
