// Package capacity runs one capacity scenario against an OpenAI-compatible endpoint and
// turns what it measured into an anvil-serving.benchmark/v1 artifact.
package capacity

import (
	"encoding/json"
	"io"
	"time"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/harness/secret"
	"github.com/anvilbench/anvilbench/internal/fields"
)

// Target is the endpoint under test.
type Target struct {
	// BaseURL includes /v1. Credentials in it are used but never recorded.
	BaseURL string
	APIKey  secret.Secret
	// Timeout bounds each request (0: DefaultTimeout); StallTimeout the silence inside a
	// started stream (0: DefaultStallTimeout, or Timeout when that is shorter).
	Timeout, StallTimeout time.Duration
	// MetricsURL is where the engine serves Prometheus metrics, scraped before, during and
	// after the run; empty means /metrics at the root of BaseURL, MetricsOff none.
	MetricsURL string
	// GPUMetricsURL is a DCGM exporter's /metrics for the engine's GPUs, sampled before,
	// during and after the run; empty reads nvidia-smi, else amd-smi, when it is on this
	// host, MetricsOff none.
	GPUMetricsURL string
	// GPUPricePerHour is what the engine's GPUs cost an hour, all of them: with their energy
	// or alone, the artifact states the cost of a million output tokens; 0 states none.
	GPUPricePerHour float64
	// UserSpaceStamps stamps events when the read returns even where the kernel stamps
	// their arrival (Linux).
	UserSpaceStamps bool
	// TransmitStamps splits TTFT at each request's last byte (stream.Options.TransmitStamps;
	// ANVIL_TRANSMIT_STAMPS, on by default).
	TransmitStamps bool
}

// Shard is one segment of a scenario split across Count processes or hosts: request index
// i belongs to segment i mod Count, so every segment holds the same mix of planned
// contexts, each request keeps its prompt and its open-loop arrival time, and the segments
// together are exactly the unsharded run. The concurrency is split as evenly as possible.
// The zero value (or Count 1) is the whole scenario.
type Shard struct {
	Index, Count int
}

// sharded reports whether s splits the scenario.
func (s Shard) sharded() bool { return s.Count > 1 }

// indices are the request indices of the segment, of requests in all.
func (s Shard) indices(requests int) []int {
	if !s.sharded() {
		out := make([]int, requests)
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	for i := s.Index; i < requests; i += s.Count {
		out = append(out, i)
	}
	return out
}

// concurrency is the segment's share of concurrency.
func (s Shard) concurrency(concurrency int) int {
	if !s.sharded() {
		return concurrency
	}
	c := concurrency / s.Count
	if s.Index < concurrency%s.Count {
		c++
	}
	return c
}

// metricsOff as a Target's MetricsURL scrapes no metrics.
const metricsOff = "off"

// defaultCacheBlockTokens is a Scenario's zero CacheBlockTokens (its tag's default): vLLM's
// block size.
const defaultCacheBlockTokens = 16

// Defaults of a Target's zero timeouts.
const (
	defaultTimeout      = 15 * time.Minute
	defaultStallTimeout = time.Minute
)

// Scenario is the workload of one capacity run and the identity recorded with it. Validate
// checks it; Run refuses an invalid one. Zero enums take their defaults (strict when
// ResponseWords > 0, else observe; unique prompts; default thinking; chat; Poisson
// arrivals).
//
// The workload fields are described once, in their tags: key names a field in a scenarios
// file and, upper-cased after ANVIL_, its variable; range bounds it (Validate) and default
// is where a configuration starts (Defaults). A field added with a key, a range and a
// default is configurable, validated and documented-checked with nothing else to write.
type Scenario struct {
	// Name is the spec's name, recorded in the artifact's extension block.
	Name string
	// Requests is the number of requests; Concurrency how many are in flight (closed loop),
	// or the cap on those in flight (open loop).
	Requests    int `key:"requests" range:"[1,10000]" default:"60"`
	Concurrency int `key:"concurrency" range:"[1,1024]" default:"20"`
	// ContextTokens is every request's planned prompt size; 0 samples ContextBuckets. A
	// fixed size the served window cannot hold (with MaxTokens and ContextMargin) is refused
	// before any request unless ClampToWindow; sampled sizes are always clamped to it. Each
	// clamp is printed and recorded (the artifact's anvilbench.context_clamp).
	ContextTokens int `key:"context_tokens" range:"[0,1048576]" default:"4096"`
	// ClampToWindow clamps a fixed ContextTokens to the served window instead of refusing
	// it: for built-in scenarios (the context ladder) that sweep sizes past small windows.
	ClampToWindow bool
	// ContextSeed seeds the context sampler, the prompts and the markers.
	ContextSeed int64 `key:"context_seed" default:"0"`
	// ContextBuckets is the distribution sampled when ContextTokens is 0; empty is the
	// original tool's measured sub-agent context mix, the default below.
	ContextBuckets workload.Buckets `key:"context_buckets" default:"0.218:16000,0.602:32768,0.906:65536,0.995:131072,1:262144"`
	// ContextMargin is kept below MaxContextTokens - MaxTokens.
	ContextMargin int `key:"context_margin" range:"[0,1048576]" default:"1024"`
	// MaxContextTokens is the served window; 0 discovers it from GET /v1/models.
	MaxContextTokens int `key:"max_context_tokens" range:"[0,1048576]" default:"0"`
	// MaxTokens is sent as max_tokens.
	MaxTokens int `key:"max_tokens" range:"[1,65536]" default:"64"`
	// ResponseWords asks for exactly this many code words (0: a one-line summary); Policy is
	// what a response that misses them becomes.
	ResponseWords int    `key:"response_words" range:"[0,65536]" default:"32"`
	Policy        Policy `key:"controlled_output_policy" default:"strict"`
	// RequestCanaries makes every response begin with its own marker and checks that no
	// other request's marker appears in it.
	RequestCanaries bool `key:"request_canaries" default:"false"`
	// CharsPerToken sizes prompts; 0 means workload.DefaultCharsPerToken. Calibrate replaces
	// it with the endpoint's own figure measured before the run.
	CharsPerToken float64
	Calibrate     bool `key:"calibrate" default:"true"`

	// PromptCacheMode is unique (the default) or shared: every prompt then starts with the
	// same SharedPrefixTokens-token prefix.
	PromptCacheMode    CacheMode `key:"prompt_cache_mode" default:"unique" zero:"default"`
	SharedPrefixTokens int       `key:"shared_prefix_tokens" range:"[0,262144]" default:"8000"`
	// Burst, when above 0, builds that many requests first and releases them at one instant,
	// in place of Requests and Concurrency.
	Burst int `key:"burst" range:"[0,256]" default:"0"`
	// CacheIntent is what the spec expects of the prefix cache; recorded so matchers can
	// hold the run to it.
	CacheIntent CacheIntent
	// PromptNonce is the nonce on every prompt's first line (1 to 16 lowercase letters).
	// Empty, the default, gives each run its own, so no run is served from a prefix cache
	// another warmed; set it to an earlier run's anvilbench.prompt_nonce to replay that
	// run's exact prompts, e.g. to measure a warm cache on purpose.
	PromptNonce string

	// ThinkingMode drives the thinking switch; ReasoningEffort is sent when set.
	ThinkingMode    ThinkingMode    `key:"thinking_mode" default:"default" zero:"default"`
	ReasoningEffort ReasoningEffort `key:"reasoning_effort"`
	// Temperature and TopP override what is sent; nil sends temperature 0 and no top_p.
	Temperature *float64 `key:"temperature" range:"[0,2]"`
	TopP        *float64 `key:"top_p" range:"(0,1]"`
	// API is chat (the default) or completions, the legacy endpoint with a plain prompt.
	API API `key:"api" default:"chat" zero:"default"`
	// RequestRate, when above 0, starts requests open-loop at that many per second (Arrival
	// poisson, the default, or constant, seeded by ContextSeed) instead of the closed loop;
	// Concurrency then caps the requests in flight.
	RequestRate float64 `key:"request_rate" range:"[0,100000]" default:"0"`
	Arrival     Arrival `key:"arrival" default:"poisson" zero:"default"`
	// WarmupRequests bounds the warm-up sent before the measured phase and kept out of
	// every figure and check: requests of the scenario's planned sizes, words and
	// max_tokens, in a closed loop at the load the measured phase keeps in flight, their
	// prompts sharing no prefix with a measured one (a nonce of their own, no shared
	// prefix). It sends that many, but no more than the measured phase sends or two waves
	// of what it keeps in flight, whichever is more (2 long requests are not preceded by 32
	// of them), and stops at a first wave of failures. 0 sends none; the gate's cold-start check then holds the first measured
	// requests against the rest. A sharded run splits them among its shards.
	WarmupRequests int `key:"warmup_requests" range:"[0,10000]" default:"32"`
	// Repeats runs the measured phase that many times, one block after another, each
	// block the scenario's requests with prompts of its own (a nonce per block, so no block
	// finds another's in a prefix cache). Every v1 figure is over all blocks' requests; the
	// artifact's anvilbench.blocks gives each figure block by block and across them.
	Repeats int `key:"repeats" range:"[0,100]" default:"1" zero:"default"`
	// Progress, when set, receives a line every ProgressInterval (default 10 s) while the
	// run lasts: requests done, failures, running p50s.
	Progress         io.Writer
	ProgressInterval time.Duration

	// The traffic features' own fields (see feature), each in its feature's file: requests
	// the client leaves (cancel.go), images (images.go), LoRA adapters (adapters.go) and
	// priority classes (priorities.go). Their fields are promoted: set them on a scenario
	// (Defaults, then the field), since a struct literal cannot name a promoted field.
	cancelling
	imageTraffic
	adapterSpread
	priorityClasses

	// SkipEnginePhases stops asking the engine for its own account of each request's time
	// (vLLM's include_metrics on chat and completions; llama.cpp's timings and Ollama's
	// durations come unasked, and are read either way) and sending each request a W3C
	// traceparent whose trace id the artifact records (so a team joins its engine's traces
	// request by request). An engine that refuses unknown request fields needs it.
	SkipEnginePhases bool `key:"skip_engine_phases" default:"false"`

	// ContinuousUsage asks for usage in every chunk (vLLM continuous_usage_stats), so
	// tokens are attributed to chunks when an engine sends several per chunk.
	ContinuousUsage bool `key:"continuous_usage" default:"false"`

	// Output is where the response is asked to put its ResponseWords code words: its text
	// (the default), the words argument of one call of the record_words tool it is offered
	// (OutputTool), or the words member of a JSON object a JSON schema asks for
	// (OutputJSON). Strict adherence then also needs valid JSON that matches the schema.
	Output Output `key:"output" default:"text" zero:"default"`

	// Trace, when it names a file, replays it in place of Requests independent prompts
	// (see Trace); Sessions, when its Count is above 0, holds that many multi-turn
	// conversations instead (see Sessions). Their keys are the scenario's own (trace,
	// sessions, turns, ...), as flat in a scenarios file as the rest.
	Trace    Trace
	Sessions Sessions

	// Search, when on ("concurrency:64"), makes a gated scenario a search for the highest
	// load its budgets hold at (SearchCapacity), in place of one run at its own load; Run
	// ignores it.
	Search Search `key:"search"`

	// CacheBlockTokens is the engine's prefix-cache granularity (vLLM's block size; 1 for a
	// token-level cache): how far the cached tokens it reports may lie from what a trace or
	// a session shares. 0 means DefaultCacheBlockTokens.
	CacheBlockTokens int `key:"cache_block_tokens" range:"[0,4096]" default:"16" zero:"default"`

	// Shard, with Count above 1, runs one segment of the scenario (see Shard); StartAt, when
	// set, is when the request phase starts, so that shards on several hosts start together.
	Shard   Shard
	StartAt time.Time

	// Model is sent with every request; empty takes the one model GET /models lists (a run
	// refuses to pick among several).
	Model                                                      string
	Engine, GPU, Tier, ClockDomainID, ConfigurationFingerprint string
}

// Defaults is a scenario with every workload field at its default (the tags' defaults):
// where a configuration starts, and a complete scenario to change a field or two of.
func Defaults() Scenario {
	var sc Scenario
	if err := fields.Defaults(&sc); err != nil {
		panic(err) // the tags are the program's own
	}
	return sc
}

// shared reports whether prompts share a prefix.
func (sc Scenario) shared() bool { return sc.PromptCacheMode == CacheShared }

// warmupSize is how many warm-up requests a run of requests requests a block sends:
// WarmupRequests, but no more than the measured phase's requests or two waves of what it
// keeps in flight, whichever is more. (A trace's count is its file's: known once planned.)
func (sc Scenario) warmupSize(requests int) int {
	measured := requests * max(sc.Repeats, 1)
	return min(sc.WarmupRequests, max(measured, 2*sc.inFlight(requests)))
}

// inFlight is how many of requests requests the measured phase keeps in flight at most:
// its concurrency, or its requests when they are fewer.
func (sc Scenario) inFlight(requests int) int { return max(min(sc.Concurrency, requests), 1) }

// policy is the controlled-output policy, its zero value resolved.
func (sc Scenario) policy() Policy {
	switch {
	case sc.Policy != "":
		return sc.Policy
	case sc.ResponseWords > 0:
		return PolicyStrict
	}
	return PolicyObserve
}

// withDefaults fills in what a zero field means: the tag's default where a zero stands
// for it (zero:"default"), and the defaults that depend on other fields.
func (sc Scenario) withDefaults() Scenario {
	if err := fields.FillZeros(&sc); err != nil {
		panic(err) // the tags are the program's own
	}
	sc.Policy = sc.policy()
	if sc.CharsPerToken == 0 {
		sc.CharsPerToken = workload.DefaultCharsPerToken
	}
	if sc.Burst > 0 {
		sc.Requests, sc.Concurrency = sc.Burst, sc.Burst
	}
	return sc
}

// withDefaults fills in the zero timeouts.
func (t Target) withDefaults() Target {
	if t.Timeout == 0 {
		t.Timeout = defaultTimeout
	}
	if t.StallTimeout == 0 {
		t.StallTimeout = min(defaultStallTimeout, t.Timeout)
	}
	return t
}

// request is the body of request i's prompt, with the scenario's sampling and thinking
// controls.
func (sc Scenario) request(prompt string) stream.ChatRequest {
	r := stream.ChatRequest{
		Model: sc.Model, Prompt: prompt, MaxTokens: sc.MaxTokens,
		Temperature: sc.Temperature, TopP: sc.TopP,
		ReasoningEffort: string(sc.ReasoningEffort), API: sc.API.wire(), ContinuousUsage: sc.ContinuousUsage,
		IncludeMetrics: !sc.SkipEnginePhases,
	}
	if r.Temperature == nil {
		r.Temperature = &defaultTemperature
	}
	if sc.ThinkingMode.switches() {
		r.ChatTemplateKwargs = map[string]any{"enable_thinking": sc.ThinkingMode == ThinkingEnabled}
	}
	switch sc.Output {
	case OutputTool:
		r.Tools = []stream.Tool{{Name: workload.RecordWordsTool, Description: workload.RecordWordsDescription,
			Parameters: json.RawMessage(workload.WordsSchema)}}
		r.ToolChoice = "required"
	case OutputJSON:
		r.ResponseFormat = &stream.JSONSchema{Name: "words", Schema: json.RawMessage(workload.WordsSchema), Strict: true}
	}
	return r
}

// defaultTemperature is sent when none is configured so sampling is greedy on every engine.
var defaultTemperature = 0.0
