package refengine

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"time"
)

// Defaults applied by Start to zero-valued Options fields.
const (
	// DefaultModel is the served model id.
	DefaultModel = "anvil-reference"
	// DefaultMaxModelLen is the context window in tokens.
	DefaultMaxModelLen = 65536
	// defaultPrefillOverhead is the fixed part of the time to first token.
	defaultPrefillOverhead = 20 * time.Millisecond
	// defaultITL is the inter-token latency at batch size 1.
	defaultITL = 5 * time.Millisecond
	// defaultCacheBlockTokens is the prefix-cache block size in tokens.
	defaultCacheBlockTokens = 16
	// defaultCacheCapacityBlocks is the prefix-cache capacity in blocks.
	defaultCacheCapacityBlocks = 1 << 20
	// defaultReasoningTokens is the number of reasoning tokens of a thinking reply.
	defaultReasoningTokens = 16
)

// Overflow is what happens to requests beyond MaxBatch (Options.Overflow).
type Overflow string

// Overflow modes.
const (
	// overflowQueue makes them wait, first come first served, before prefill.
	overflowQueue Overflow = "queue"
	// OverflowTimeslice admits them all and shares the decode steps round-robin.
	OverflowTimeslice Overflow = "timeslice"
)

// NativeAPI is an engine's own endpoint that states the context window
// (Options.NativeInfo).
type NativeAPI string

// Native endpoints.
const (
	NativeLlamaCpp NativeAPI = "llamacpp"
	NativeOllama   NativeAPI = "ollama"
	NativeSGLang   NativeAPI = "sglang"
)

// The members that carry reasoning (Options.ReasoningField).
const (
	// reasoningContentField is vLLM's and DeepSeek's "reasoning_content".
	reasoningContentField = "reasoning_content"
	// reasoningField is "reasoning", as newer vLLM and OpenRouter write it.
	reasoningField = "reasoning"
)

// maxJitter clamps the relative jitter of one decode step, as llm-d-inference-sim does, so a
// step never becomes negative or absurdly long.
const maxJitter = 0.7

// Options configures a Server. The zero value is usable: every zero field takes its default.
// Zero durations mean "default", not "instant"; use 1ns for (almost) no delay.
type Options struct {
	// Addr is where the server listens ("host:port"); empty is a free loopback port.
	Addr string
	// Model is the served model id; requests naming another model get 404.
	// Default DefaultModel.
	Model string
	// Aliases are further model ids the engine serves but GET /v1/models does not list, as
	// Ollama serves "name" for the listed "name:latest".
	Aliases []string
	// Adapters are LoRA adapters the engine serves beside Model, by name (a request names
	// one in its model field; GET /v1/models lists each with Model as its parent), each with
	// the factor it slows decoding by (1: as fast as the base model).
	Adapters map[string]float64
	// ImagePatch makes the model a vision model: an image costs ceil(w/p)·ceil(h/p) prompt
	// tokens (Qwen2.5-VL: 28). 0, the default, is a text model that refuses images.
	ImagePatch int
	// MaxModelLen is the context window in tokens, reported by /v1/models as "max_model_len";
	// prompt_tokens + max_tokens above it is rejected with 400. Default DefaultMaxModelLen.
	MaxModelLen int
	// PrefillOverhead is the fixed part of the time to first token of every request
	// (scheduling, first forward step). It does not queue. Default DefaultPrefillOverhead.
	PrefillOverhead time.Duration
	// DecodeOnAfterCancel keeps decoding a request its client left, to its max_tokens,
	// holding its batch slot and counting it running: the bug of an engine that does not
	// stop what its clients abandon (vLLM #54947, SGLang #36552), for proofs that a run
	// says so.
	DecodeOnAfterCancel bool
	// SchedulePriority admits a waiting request by its priority (lower first, then by
	// arrival), as vLLM's --scheduling-policy priority does; without it, first come first
	// served, and the field is ignored.
	SchedulePriority bool
	// NoTokenCounters leaves the prompt and generated-tokens counters out of /metrics, its
	// running and waiting gauges in, as an engine that exports only those (for proofs that
	// stand on the gauges alone).
	NoTokenCounters bool
	// QueueDelay is scheduling time every request spends after admission and before its
	// prefill: a slower scheduler. It counts in the engine's queue time (include_metrics'
	// queue_time_ms), not its prefill.
	QueueDelay time.Duration
	// PrefillRate is the prefill compute speed in prompt tokens per second; 0 makes prefill
	// compute free. Prefill compute is one shared lane: the prompt_tokens/PrefillRate parts of
	// concurrent requests run one after another.
	PrefillRate float64
	// ITL is the inter-token latency (one decode step) at batch size 1. Default DefaultITL.
	ITL time.Duration
	// ITLJitter is the relative standard deviation of a seeded gaussian jitter applied to every
	// decode step (0 = none); the jitter is clamped to ±70% of the step.
	ITLJitter float64
	// RequestJitter is the relative standard deviation of a seeded gaussian factor drawn once
	// per request (by its arrival index) and applied to its PrefillOverhead and every one of
	// its decode steps, clamped to ±70%: requests that differ from one another as a whole,
	// the run-to-run noise a regression test must see through (0 = none).
	RequestJitter float64
	// BatchSlowdown stretches decode steps with load:
	// step = ITL*(1+BatchSlowdown*(running-1)), running counting admitted, unfinished requests.
	// 0 keeps steps flat.
	BatchSlowdown float64
	// MaxBatch is the maximum number of sequences one decode step serves; what happens beyond
	// it is Overflow's choice. 0 means unlimited.
	MaxBatch int
	// Overflow is overflowQueue (default: at most MaxBatch requests run, later ones wait, first
	// come first served, before prefill) or OverflowTimeslice (every request is admitted; with
	// R running above MaxBatch a decode step serves MaxBatch of them round-robin, so each gets
	// a token every R/MaxBatch steps on average, in whole steps of
	// ITL*(1+BatchSlowdown*(MaxBatch-1))).
	Overflow Overflow
	// TokensPerChunk is the number of tokens per streamed chunk (content or reasoning, never
	// both; chunks follow one grid of TokensPerChunk tokens from the first); >1 simulates
	// speculative decoding or coalesced output. Default 1.
	TokensPerChunk int
	// Seed seeds the jitter: the same seed gives request i the same step sequence.
	Seed int64

	// The engine's pace, for proofs of a verdict across runs: every prefill overhead,
	// prefill compute and decode step takes Speed times as long (1.1: a build 10% slower;
	// 0 is 1), times the start's run factor, drawn once per start from a normal
	// distribution of mean 1 and relative standard deviation RunCV (seeded by RunSeed, or
	// by the start's clock when 0; clamped to ±70%), as a real engine's speed moves between
	// restarts; times (1 + Drift per minute since the start), as an engine that warms or
	// ages; and for the first ColdRequests requests it receives, times ColdFactor, as a
	// cold engine after it reported ready.
	Speed        float64
	RunCV        float64
	RunSeed      int64
	Drift        float64
	ColdRequests int
	ColdFactor   float64
	// APIKey, when set, requires "Authorization: Bearer <APIKey>" on every /v1 request;
	// others get 401 with an OpenAI-style JSON error.
	APIKey string
	// Tokenizer counts the tokens of a text (prompt_tokens, /tokenize). Default CountTokens.
	Tokenizer func(string) int

	// PrefixCache turns on automatic prefix caching, like vLLM's (see the package doc's
	// Prefix cache): usage.prompt_tokens_details.cached_tokens reports the tokens of the
	// longest cached prefix rounded down to a multiple of CacheBlockTokens (and below
	// prompt_tokens), and only the other prompt tokens cost prefill compute.
	PrefixCache bool
	// CacheBlockTokens is the granularity of cached_tokens, in tokens. Default
	// DefaultCacheBlockTokens.
	CacheBlockTokens int
	// CacheCapacityBlocks bounds the prefix cache, in segments (about a line of text each);
	// the least recently used are evicted (a prompt's last segments before its first).
	// Default DefaultCacheCapacityBlocks.
	CacheCapacityBlocks int

	// ThinkByDefault makes every chat request think unless it sends
	// chat_template_kwargs.enable_thinking false. A request also thinks when it sends
	// enable_thinking true or a reasoning_effort other than "none". /v1/completions never
	// thinks.
	ThinkByDefault bool
	// ReasoningTokens is the number of reasoning tokens a thinking reply emits before its
	// content; they count in completion_tokens and in
	// usage.completion_tokens_details.reasoning_tokens. Default DefaultReasoningTokens.
	ReasoningTokens int
	// ReasoningField names the member carrying reasoning text in deltas and messages:
	// "reasoning_content" (vLLM's and DeepSeek's, the default) or "reasoning" (newer
	// vLLM's and OpenRouter's).
	ReasoningField string
	// RejectThinkingControls answers 400 to a request sending
	// chat_template_kwargs.enable_thinking, as a model without thinking controls does.
	RejectThinkingControls bool
	// IgnoreThinkingControls takes chat_template_kwargs.enable_thinking and reasoning_effort
	// and does as ThinkByDefault says anyway, as an engine whose chat template has no such
	// switch does.
	IgnoreThinkingControls bool

	// SpecTokens is K, the draft tokens a speculative decode step proposes (an MTP head or a
	// draft model); 0 decodes one token a step. SpecAccept is the share of drafted tokens
	// accepted, as vLLM counts it (accepted over drafted): a step emits 1 + a tokens for a
	// accepted drafts, and /metrics exports vLLM's spec_decode counters.
	SpecTokens int
	SpecAccept float64

	// DisableTokenize makes POST /tokenize answer 404, as most engines (everything but vLLM
	// and SGLang) do.
	DisableTokenize bool

	// HideWindow leaves the context window out of /v1/models and /tokenize, as llama.cpp's
	// and Ollama's OpenAI endpoints do; NativeInfo then may state it the engine's own way.
	HideWindow bool
	// TruncatePrompts cuts a prompt longer than MaxModelLen to MaxModelLen tokens, silently
	// (usage.prompt_tokens says MaxModelLen), instead of answering 400: llama.cpp's and
	// Ollama's behaviour.
	TruncatePrompts bool
	// ServeTraces serves GET /ref/traces: every request's arrival and chunk flush times in
	// wall-clock Unix nanoseconds, to measure a client in another process against them.
	ServeTraces bool
	// NativeInfo serves one engine's own endpoint stating the window: NativeLlamaCpp (GET
	// /props), NativeOllama (POST /api/show) or NativeSGLang (GET /server_info); "" none.
	NativeInfo NativeAPI

	// Faults is the misbehaviour applied to every request, unless a request carries its own in
	// the FaultsHeader header.
	Faults Faults
}

// withDefaults returns o with defaults filled in, or an error listing every invalid field.
func (o Options) withDefaults() (Options, error) {
	var errs []error
	o.Model = cmp.Or(o.Model, DefaultModel)
	o.MaxModelLen = cmp.Or(o.MaxModelLen, DefaultMaxModelLen)
	o.PrefillOverhead = cmp.Or(o.PrefillOverhead, defaultPrefillOverhead)
	o.ITL = cmp.Or(o.ITL, defaultITL)
	o.TokensPerChunk = cmp.Or(o.TokensPerChunk, 1)
	if o.Tokenizer == nil {
		o.Tokenizer = CountTokens
	}
	o.Overflow = cmp.Or(o.Overflow, overflowQueue)
	o.CacheBlockTokens = cmp.Or(o.CacheBlockTokens, defaultCacheBlockTokens)
	o.CacheCapacityBlocks = cmp.Or(o.CacheCapacityBlocks, defaultCacheCapacityBlocks)
	o.ReasoningTokens = cmp.Or(o.ReasoningTokens, defaultReasoningTokens)
	o.ReasoningField = cmp.Or(o.ReasoningField, reasoningContentField)
	o.Speed = cmp.Or(o.Speed, 1)
	o.ColdFactor = cmp.Or(o.ColdFactor, 1)
	// What may not be negative.
	for _, f := range []struct {
		name     string
		negative bool
		value    string
	}{
		{"MaxModelLen", o.MaxModelLen < 0, fmt.Sprintf("%d", o.MaxModelLen)},
		{"PrefillOverhead", o.PrefillOverhead < 0, fmt.Sprintf("%v", o.PrefillOverhead)},
		{"PrefillRate", o.PrefillRate < 0, fmt.Sprintf("%g tokens/s", o.PrefillRate)},
		{"ITL", o.ITL < 0, fmt.Sprintf("%v", o.ITL)},
		{"RequestJitter", o.RequestJitter < 0, fmt.Sprintf("%g", o.RequestJitter)},
		{"ITLJitter", o.ITLJitter < 0, fmt.Sprintf("%g", o.ITLJitter)},
		{"BatchSlowdown", o.BatchSlowdown < 0, fmt.Sprintf("%g", o.BatchSlowdown)},
		{"MaxBatch", o.MaxBatch < 0, fmt.Sprintf("%d", o.MaxBatch)},
		{"TokensPerChunk", o.TokensPerChunk < 0, fmt.Sprintf("%d", o.TokensPerChunk)},
		{"CacheBlockTokens", o.CacheBlockTokens < 0, fmt.Sprintf("%d", o.CacheBlockTokens)},
		{"CacheCapacityBlocks", o.CacheCapacityBlocks < 0, fmt.Sprintf("%d", o.CacheCapacityBlocks)},
		{"ReasoningTokens", o.ReasoningTokens < 0, fmt.Sprintf("%d", o.ReasoningTokens)},
	} {
		if f.negative {
			errs = append(errs, fmt.Errorf("%s %s is negative", f.name, f.value))
		}
	}
	if !(o.Speed > 0) || math.IsInf(o.Speed, 0) {
		errs = append(errs, fmt.Errorf("Speed %g: want a positive factor", o.Speed))
	}
	if !(o.RunCV >= 0 && o.RunCV < 1) {
		errs = append(errs, fmt.Errorf("RunCV %g: want a relative standard deviation in [0, 1)", o.RunCV))
	}
	if math.IsNaN(o.Drift) || o.Drift <= -1 || o.Drift > 10 {
		errs = append(errs, fmt.Errorf("Drift %g per minute: want a relative change in (-1, 10]", o.Drift))
	}
	if o.ColdRequests < 0 || !(o.ColdFactor > 0) || math.IsInf(o.ColdFactor, 0) {
		errs = append(errs, fmt.Errorf("ColdRequests %d, ColdFactor %g: want a count and a positive factor", o.ColdRequests, o.ColdFactor))
	}
	if o.Overflow != overflowQueue && o.Overflow != OverflowTimeslice {
		errs = append(errs, fmt.Errorf("Overflow %q: want %q or %q", o.Overflow, overflowQueue, OverflowTimeslice))
	}
	if o.SpecTokens < 0 || o.SpecTokens > 16 {
		errs = append(errs, fmt.Errorf("SpecTokens %d: want 0 to 16", o.SpecTokens))
	}
	if !(o.SpecAccept >= 0 && o.SpecAccept <= 1) {
		errs = append(errs, fmt.Errorf("SpecAccept %g: want a share in [0, 1]", o.SpecAccept))
	}
	if o.ReasoningField != reasoningContentField && o.ReasoningField != reasoningField {
		errs = append(errs, fmt.Errorf("ReasoningField %q: want %q or %q", o.ReasoningField, reasoningContentField, reasoningField))
	}
	switch o.NativeInfo {
	case "", NativeLlamaCpp, NativeOllama, NativeSGLang:
	default:
		errs = append(errs, fmt.Errorf("NativeInfo %q: want %q, %q, %q or empty", o.NativeInfo, NativeLlamaCpp, NativeOllama, NativeSGLang))
	}
	if err := o.Faults.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return o, fmt.Errorf("refengine options: %w", err)
	}
	return o, nil
}
