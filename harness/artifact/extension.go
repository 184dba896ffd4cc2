package artifact

// ExtensionVersion names the layout of the Extension block.
const ExtensionVersion = "anvilbench.extension/v1"

// OutcomeCancelled is the outcome of a request the run's interruption ended (its
// failure's error_type): one the run never finished, not one the engine failed.
const OutcomeCancelled = "cancelled"

// OutcomeAbandoned is the outcome of a request the client left as the scenario planned
// (its requests left): neither completed nor failed, out of every latency figure.
const OutcomeAbandoned = "abandoned"

// Extension is anvilbench's own block, under the top-level key "anvilbench". It holds what
// the v1 format has no key for (per-request timelines, per-chunk timing, the client's own
// overhead, the arrival model). Every v1 key keeps its meaning; readers of the original
// format ignore an unknown top-level key, and the block is omitted when nil, so an artifact
// read from the original tool encodes back byte for byte.
type Extension struct {
	Version string `json:"version"`
	// Scenario names the spec that produced the artifact.
	Scenario string `json:"scenario"`
	// API is the wire protocol the requests spoke: "chat", "completions", "responses" or
	// "messages". It is workload identity: two APIs template, count and stream the same
	// prompt differently, so their figures are not one workload's.
	API string `json:"api"`
	// Complete is false when the run was interrupted: requests that never finished are
	// failures of type "cancelled".
	Complete bool `json:"complete"`
	// Timeline has one entry per request index, in index order.
	Timeline []RequestSpan `json:"timeline"`
	// Calibration says how prompts were sized; ContextAccuracy how close the server's
	// prompt_tokens came to the planned sizes.
	Calibration     Calibration     `json:"calibration"`
	ContextAccuracy ContextAccuracy `json:"context_accuracy"`
	// CacheIntent is the spec's declared prefix-cache expectation: "cold", "shared-prefix"
	// or "" (none declared).
	CacheIntent string `json:"cache_intent"`
	// PromptNonce is the run's nonce on every prompt's first line (and the shared prefix),
	// so no run finds its prompts in a prefix cache another run or scenario warmed.
	PromptNonce string `json:"prompt_nonce"`
	// Capabilities is what the endpoint showed it supports, so a gate can be skipped or
	// failed explicitly instead of judging a figure the endpoint cannot produce.
	Capabilities Capabilities `json:"capabilities"`
	// ContextClamp says how the served window cut the planned contexts; null when it cut
	// none.
	ContextClamp *ContextClamp `json:"context_clamp"`
	// Budgets are the budgets the scenario's gate judged it against, as written
	// ("tpot_p50_ms<=6"); null when it had none.
	Budgets []string `json:"budgets"`
	// RunID names the run (every suite of one ginkgo -r, or the shards of one sharded run)
	// the artifact belongs to; "" for an artifact written outside a run. The v1 run_id names
	// this scenario's own measurement.
	RunID string `json:"run_id"`
	// ITL is the inter-token latency pooled over every successful request's chunk gaps;
	// ClientOverhead is the harness's own cost, so a run it bottlenecked is flagged.
	ITL            ITLSummary     `json:"itl"`
	ClientOverhead ClientOverhead `json:"client_overhead"`
	// Arrival is how requests were started and, for an open loop, their latency from the
	// intended start (free of coordinated omission).
	Arrival Arrival `json:"arrival"`
	// EngineMetrics is what the engine's own Prometheus metrics said over the run.
	EngineMetrics EngineMetrics `json:"engine_metrics"`
	// Clock is how the events were stamped (timing_methodology.clock says it in a sentence).
	Clock Clock `json:"clock"`
	// Shard is the segment of a sharded run this artifact holds; null for a whole run.
	// MergedFrom lists the shards a merged artifact was recomputed from; null otherwise.
	Shard      *Shard        `json:"shard"`
	MergedFrom []MergedShard `json:"merged_from"`
	// SelfTest marks a run that proves the harness itself against a private engine: it is
	// not a result of the endpoint under test, and reports keep it apart.
	SelfTest bool `json:"self_test"`
	// Baseline is the artifact the run was gated against, with its headline figures, so a
	// report can show the deltas without the file; null when there was none.
	Baseline *BaselineRef `json:"baseline"`
	// Trace says which trace was replayed and how; null for a run of independent prompts.
	Trace *TraceReplay `json:"trace"`
	// Sessions gives a multi-turn run's figures by turn; null outside sessions.
	Sessions *Sessions `json:"sessions"`
	// StructuredOutput is what a tool-call or JSON-schema run's responses held; null for
	// text answers.
	StructuredOutput *StructuredOutput `json:"structured_output"`
	// GPU is the engine's GPUs sampled around the run; null when the run did not look.
	GPU *GPUTelemetry `json:"gpu_telemetry,omitempty"`
	// Reasoning summarizes the reasoning tokens the engine reported; null when no request's
	// usage split its completion tokens.
	Reasoning *Reasoning `json:"reasoning,omitempty"`
	// Phases summarizes the engine's own account of the successful requests' time, where
	// it gave one (each request's is its timeline span's engine_phases); null otherwise.
	Phases *Phases `json:"engine_phases,omitempty"`
	// Cancellation is what a run that left some of its requests planned and saw; null for a
	// run that left none.
	Cancellation *Cancellation `json:"cancellation,omitempty"`
	// Images is what a run that sent images sent and what the engine counted for them;
	// absent without images.
	Images *Images `json:"images,omitempty"`
	// The blocks of groups of requests a traffic feature named (LoRA adapters, priority
	// classes), each with its figures: groups.go defines them.
	groupFields
	// Send splits TTFT where each request's last byte left this host.
	Send SendSplit `json:"send"`
	// ServedModels counts the responses by the model their chunks named: what the engine
	// says served them, beside the requested v1 model. Engines differ in what they name
	// (the requested name, a path, a fixed "default"), but one run's responses naming two
	// models were served by two. Empty when no chunk named one.
	ServedModels map[string]int `json:"served_models"`
	// CacheBlockTokens is the engine's prefix-cache granularity the scenario declared: how
	// far a request's cached tokens may lie from its expected range (RequestSpan's
	// expected_cached_min and expected_cached_max).
	CacheBlockTokens int `json:"cache_block_tokens"`
	// Warmup is what the run sent before its measured phase, in no figure and no check but
	// the engine's own accounting; null without a warm-up.
	Warmup *Warmup `json:"warmup"`
	// Blocks are the measured phase's blocks: it ran Repeats times, each block the
	// scenario's requests with prompts of its own; null for an artifact written before
	// blocks were recorded.
	Blocks *Blocks `json:"blocks"`
	// Interleaved says the run's blocks alternated with a baseline build's in one measured
	// phase; null for a run of one engine.
	Interleaved *Interleaved `json:"interleaved"`
}

// RequestSpan places one request on the run's clock.
type RequestSpan struct {
	RequestIndex int `json:"request_index"`
	// StartOffsetMs is the request start (the instant TTFT is measured from) after the start
	// of the request phase; null when the request was never sent.
	StartOffsetMs *Float `json:"start_offset_ms"`
	// TTFTMs and E2EMs repeat the row's figures so failures can be drawn too; null when
	// not observed.
	TTFTMs *Float `json:"ttft_ms"`
	E2EMs  *Float `json:"e2e_ms"`
	// IntendedStartOffsetMs is when an open-loop request was due, after the start of the
	// request phase; null in a closed loop.
	IntendedStartOffsetMs *Float `json:"intended_start_offset_ms"`
	// Outcome is "ok" or the failure's error_type.
	Outcome string `json:"outcome"`
	// PlannedContextTokens is the request's planned prompt size; PromptTokens what the
	// engine counted (usage.prompt_tokens), null when it reported none.
	PlannedContextTokens int  `json:"planned_context_tokens"`
	PromptTokens         *int `json:"prompt_tokens"`
	// CachedTokens is usage.prompt_tokens_details.cached_tokens, null when not reported.
	CachedTokens *int `json:"cached_tokens"`
	// FirstChunkTokens is how many completion tokens the first output chunk carried, when
	// the engine reported usage in every chunk; TPOT and decode then count the tokens after
	// it instead of after one token. Null otherwise.
	FirstChunkTokens *int `json:"first_chunk_tokens"`
	// TraceLine is the line of the trace the request replayed, from 1; null outside a trace.
	TraceLine *int `json:"trace_line"`
	// Session and Turn place a session's request: its session from 0, its turn from 1;
	// null outside sessions.
	Session *int `json:"session"`
	Turn    *int `json:"turn"`
	// FirstToolCallMs is the time from the request's start to its first tool-call
	// fragment; null when none came.
	FirstToolCallMs *Float `json:"first_tool_call_ms"`
	// SentMs is when the request's last byte left this host (the kernel's transmit stamp),
	// after its start: the client's send. Null where the platform stamps no transmits.
	SentMs *Float `json:"sent_ms"`
	// StructureProblem says what was wrong with a tool call or a JSON answer that was kept
	// (the observe policy; under strict it is the failure's message); null when nothing
	// was, or when the run asked for text.
	StructureProblem *string `json:"structure_problem"`
	// ExpectedCachedMin and ExpectedCachedMax bound the prompt tokens the engine can have
	// cached for the request, as the workload shares them (a trace's shared blocks, a
	// session's earlier turns); null when the workload plans no sharing.
	ExpectedCachedMin *int `json:"expected_cached_min"`
	ExpectedCachedMax *int `json:"expected_cached_max"`
	// ReasoningTokens are the completion tokens the engine's usage counted as thought
	// (completion_tokens_details.reasoning_tokens, output_tokens_details.reasoning_tokens);
	// AnswerTokens the rest; null when the engine did not split them.
	ReasoningTokens *int `json:"reasoning_tokens,omitempty"`
	AnswerTokens    *int `json:"answer_tokens,omitempty"`
	// ReasoningToAnswerMs is from the first reasoning delta to the first answer delta; null
	// without reasoning before the answer.
	ReasoningToAnswerMs *Float `json:"reasoning_to_answer_ms,omitempty"`
	// AnswerTPOTMs is the answer's own time per output token: from the first answer delta
	// to the end over answer tokens − 1; null without a split or under 2 answer tokens.
	AnswerTPOTMs *Float `json:"answer_tpot_ms,omitempty"`
	// EnginePhases is the engine's own account of the request's time, where its API
	// reports one; absent otherwise.
	EnginePhases *EnginePhases `json:"engine_phases,omitempty"`
	// TraceID is the W3C trace id the request carried in its traceparent header, which an
	// engine that traces joins its spans to; absent when none was sent.
	TraceID string `json:"trace_id,omitempty"`
	// Images is how many images went with the prompt; ImageTokens what the engine counted
	// for them (its prompt tokens less the planned text; the text's calibration error is in
	// it), PlannedImageTokens what they cost by the image probe (or the rule); absent
	// without images.
	Images             int  `json:"images,omitempty"`
	ImageTokens        *int `json:"image_tokens,omitempty"`
	PlannedImageTokens *int `json:"planned_image_tokens,omitempty"`
	// Adapter is the LoRA adapter the request named in its model field; absent without
	// adapters.
	Adapter string `json:"adapter,omitempty"`
	// PriorityClass is the priority class the request was sent in (its priority that
	// class's); absent without priority classes.
	PriorityClass string `json:"priority_class,omitempty"`
}

// TextTokens are the prompt tokens the engine counted for the request's text: all of them,
// less what its images cost by the engine's own count of one (PlannedImageTokens); false
// when it reported none.
func (s RequestSpan) TextTokens() (int, bool) {
	if s.PromptTokens == nil {
		return 0, false
	}
	if s.PlannedImageTokens != nil {
		return *s.PromptTokens - *s.PlannedImageTokens, true
	}
	return *s.PromptTokens, true
}
