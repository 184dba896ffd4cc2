package refengine

import (
	"errors"
	"fmt"
	"time"
)

// Defaults applied by Start to zero-valued Options fields.
const (
	// DefaultModel is the served model id.
	DefaultModel = "anvil-reference"
	// DefaultMaxModelLen is the context window in tokens.
	DefaultMaxModelLen = 65536
	// DefaultPrefillOverhead is the fixed part of the time to first token.
	DefaultPrefillOverhead = 20 * time.Millisecond
	// DefaultITL is the inter-token latency at batch size 1.
	DefaultITL = 5 * time.Millisecond
)

// maxJitter clamps the relative jitter of one decode step, as llm-d-inference-sim does, so a
// step never becomes negative or absurdly long.
const maxJitter = 0.7

// Options configures a Server. The zero value is usable: every zero field takes its default.
// Zero durations mean "default", not "instant"; use 1ns for (almost) no delay.
type Options struct {
	// Model is the served model id; requests naming another model get 404.
	// Default DefaultModel.
	Model string
	// MaxModelLen is the context window in tokens, reported by /v1/models as "max_model_len";
	// prompt_tokens + max_tokens above it is rejected with 400. Default DefaultMaxModelLen.
	MaxModelLen int
	// PrefillOverhead is the fixed part of the time to first token of every request
	// (scheduling, first forward step). It does not queue. Default DefaultPrefillOverhead.
	PrefillOverhead time.Duration
	// PrefillRate is the prefill compute speed in prompt tokens per second; 0 makes prefill
	// compute free. Prefill compute is one shared lane: the prompt_tokens/PrefillRate parts of
	// concurrent requests run one after another.
	PrefillRate float64
	// ITL is the inter-token latency (one decode step) at batch size 1. Default DefaultITL.
	ITL time.Duration
	// ITLJitter is the relative standard deviation of a seeded gaussian jitter applied to every
	// decode step (0 = none); the jitter is clamped to ±70% of the step.
	ITLJitter float64
	// BatchSlowdown stretches decode steps with load:
	// step = ITL*(1+BatchSlowdown*(running-1)), running counting admitted, unfinished requests.
	// 0 keeps steps flat.
	BatchSlowdown float64
	// MaxBatch is the maximum number of running (admitted) requests; later requests wait, first
	// come first served, before prefill. 0 means unlimited.
	MaxBatch int
	// TokensPerChunk is the number of tokens per streamed content chunk; >1 simulates
	// speculative decoding or coalesced output. Default 1.
	TokensPerChunk int
	// Seed seeds the jitter: the same seed gives request i the same step sequence.
	Seed int64
	// APIKey, when set, requires "Authorization: Bearer <APIKey>" on every /v1 request;
	// others get 401 with an OpenAI-style JSON error.
	APIKey string
	// Tokenizer counts the tokens of a text (prompt_tokens). Default CountTokens.
	Tokenizer func(string) int
	// Faults is the misbehaviour applied to every request, unless a request carries its own in
	// the FaultsHeader header.
	Faults Faults
}

// withDefaults returns o with defaults filled in, or an error listing every invalid field.
func (o Options) withDefaults() (Options, error) {
	var errs []error
	if o.Model == "" {
		o.Model = DefaultModel
	}
	if o.MaxModelLen == 0 {
		o.MaxModelLen = DefaultMaxModelLen
	}
	if o.PrefillOverhead == 0 {
		o.PrefillOverhead = DefaultPrefillOverhead
	}
	if o.ITL == 0 {
		o.ITL = DefaultITL
	}
	if o.TokensPerChunk == 0 {
		o.TokensPerChunk = 1
	}
	if o.Tokenizer == nil {
		o.Tokenizer = CountTokens
	}
	if o.MaxModelLen < 0 {
		errs = append(errs, fmt.Errorf("MaxModelLen %d is negative", o.MaxModelLen))
	}
	if o.PrefillOverhead < 0 {
		errs = append(errs, fmt.Errorf("PrefillOverhead %v is negative", o.PrefillOverhead))
	}
	if o.PrefillRate < 0 {
		errs = append(errs, fmt.Errorf("PrefillRate %g tokens/s is negative", o.PrefillRate))
	}
	if o.ITL < 0 {
		errs = append(errs, fmt.Errorf("ITL %v is negative", o.ITL))
	}
	if o.ITLJitter < 0 {
		errs = append(errs, fmt.Errorf("ITLJitter %g is negative", o.ITLJitter))
	}
	if o.BatchSlowdown < 0 {
		errs = append(errs, fmt.Errorf("BatchSlowdown %g is negative", o.BatchSlowdown))
	}
	if o.MaxBatch < 0 {
		errs = append(errs, fmt.Errorf("MaxBatch %d is negative", o.MaxBatch))
	}
	if o.TokensPerChunk < 0 {
		errs = append(errs, fmt.Errorf("TokensPerChunk %d is negative", o.TokensPerChunk))
	}
	if err := o.Faults.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return o, fmt.Errorf("refengine options: %w", err)
	}
	return o, nil
}
