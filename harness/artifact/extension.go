package artifact

import "iter"

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
	// SLOAttainment and GoodputRPS are what the budgets' per-request thresholds made of the
	// run (Benchmark.SLO): the share of the requests attempted that met every one, and
	// those requests per second of the measured phase; absent when no budget set one.
	SLOAttainment *Float `json:"slo_attainment,omitempty"`
	GoodputRPS    *Float `json:"goodput_rps,omitempty"`
	// Steady is each figure's trend and level shift over the measured phase, in the
	// requests' start order; null when too few requests were in the steady part to test.
	Steady []Drift `json:"steady,omitempty"`
	// Search is the search for the highest load within the budgets that this run is the
	// capacity of; absent for a run at one load.
	Search *Search `json:"search,omitempty"`
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

// What the run sent: its workload kind's block (a trace, sessions, structured output) and
// its traffic features' blocks (groups of requests, images, requests left).

// StructuredOutput is what the responses of a run that asked for a tool call or a JSON
// object held.
type StructuredOutput struct {
	// Output is "tool_call" or "json_schema"; Tool the function offered ("" for a schema).
	Output string `json:"output"`
	Tool   string `json:"tool"`
	// Responses counts the responses received; Valid those whose structure held (one call
	// of the tool, JSON that matches the schema), whatever their words.
	Responses int `json:"responses"`
	Valid     int `json:"valid"`
	// FirstToolCallMs is the time from each request's start to its first tool-call
	// fragment (a figure of its own: an engine may think or write text first); null for a
	// schema.
	FirstToolCallMs *Percentiles `json:"time_to_first_tool_call_ms"`
}

// Sessions is what a run of multi-turn conversations sent, and its figures by turn.
type Sessions struct {
	// Sessions is how many conversations the run held, of Turns turns each; each turn's
	// user message planned TurnTokens tokens; ThinkTimeMs (fixed or the mean of an
	// exponential, ThinkDistribution) passed between an answer and the next turn.
	Sessions          int    `json:"sessions"`
	Turns             int    `json:"turns"`
	TurnTokens        int    `json:"turn_tokens"`
	ThinkTimeMs       Float  `json:"think_time_ms"`
	ThinkDistribution string `json:"think_distribution"`
	// SessionRate is how many sessions opened per second; null when Concurrency sessions
	// ran at once, each opening as another ended.
	SessionRate *Float `json:"session_rate"`
	// ByTurn has one entry per turn, in order.
	ByTurn []TurnFigures `json:"by_turn"`
}

// TurnFigures are the figures of one turn over every session.
type TurnFigures struct {
	// Turn counts from 1; Requests is how many sessions reached it, Failed how many of
	// those failed (a failed turn ends its session).
	Turn     int `json:"turn"`
	Requests int `json:"requests"`
	Failed   int `json:"failed"`
	// TTFTMs summarizes the successful turns' TTFT.
	TTFTMs *Percentiles `json:"ttft_ms"`
	// PromptTokensMean and CachedTokensMean are the engine's usage, averaged; null when it
	// reported none.
	PromptTokensMean *Float `json:"prompt_tokens_mean"`
	CachedTokensMean *Float `json:"cached_tokens_mean"`
	// ExpectedHitRate is the share of prompt tokens the conversation so far makes cacheable
	// (the previous turn's prompt); CacheHitRate the share the engine reported cached.
	ExpectedHitRate *Float `json:"expected_hit_rate"`
	CacheHitRate    *Float `json:"cache_hit_rate"`
}

// TraceReplay is how a trace was replayed.
type TraceReplay struct {
	// File is the trace file's name, SHA256 its content's digest, FileLines its lines.
	File      string `json:"file"`
	SHA256    string `json:"sha256"`
	FileLines int    `json:"file_lines"`
	// Selected is how many lines were replayed: the first FirstLines (0: all) of those
	// with a timestamp in [FromMs, UntilMs) (0: open).
	Selected   int   `json:"selected"`
	FromMs     int64 `json:"from_ms"`
	UntilMs    int64 `json:"until_ms"`
	FirstLines int   `json:"first_lines"`
	// Speedup divided the trace's gaps; ScheduleMs is when its last line was due.
	Speedup    Float `json:"speedup"`
	ScheduleMs Float `json:"schedule_ms"`
	// BlockTokens is what one hash id stands for; BlockChars the bytes of a full block,
	// BlockCharsExact true when /tokenize counted exactly BlockTokens in them (else they
	// are the calibrated estimate).
	BlockTokens     int  `json:"block_tokens"`
	BlockChars      int  `json:"block_chars"`
	BlockCharsExact bool `json:"block_chars_exact"`
	// LengthenedLines counts the lines whose input_length could not hold their last
	// block's first line and the instruction after their whole blocks: they were planned
	// longer, by LengthenedTokensMax tokens at most (their planned_context_tokens say by
	// how much each).
	LengthenedLines     int `json:"lengthened_lines"`
	LengthenedTokensMax int `json:"lengthened_tokens_max"`
	// StartErrorMs is each request's actual start after its due time on the trace's
	// schedule.
	StartErrorMs *Percentiles `json:"start_error_ms"`
}

// Group is one share of a run's requests that a traffic feature named: a LoRA adapter, a
// priority class. It holds its name, its weight and share of the requests as planned (a
// priority class's Priority, the request field it sent), how many requests it had and what
// became of them, and the v1 metrics block of its successful requests (the figures a budget
// or a regression names "tpot_p50_ms[name]"; its throughput is the group's output over the
// whole run's wall clock).
type Group struct {
	Name      string  `json:"name"`
	Weight    float64 `json:"weight"`
	Priority  *int    `json:"priority,omitempty"`
	Share     Float   `json:"share"`
	Requests  int     `json:"requests"`
	Completed int     `json:"completed"`
	Failed    int     `json:"failed"`
	Abandoned int     `json:"abandoned"`
	Metrics   Metrics `json:"metrics"`
}

// groupFields are the extension's blocks of groups (embedded in Extension, at their keys'
// place). Adapters are the LoRA adapters the run spread its requests over, in the order
// configured, each with its figures; AdapterMix how they were spread (weighted, zipf);
// Priorities its priority classes, each with its figures. Each is absent without them.
type groupFields struct {
	Adapters   []Group `json:"adapters,omitempty"`
	AdapterMix string  `json:"adapter_mix,omitempty"`
	Priorities []Group `json:"priorities,omitempty"`
}

// groupBlock is one block of groups, defined once: where the extension holds its groups,
// what its groups are called, which group a request belongs to, and what identity the
// block gives the workload. A new block of groups is a row here and its fields.
type groupBlock struct {
	// key is the block's JSON key, and its workload-identity row's ("anvilbench.adapters").
	key string
	// title is what one group is ("adapter"), for reports.
	title string
	// groups are the block's groups in ext; member the group a request's span names ("" none).
	groups func(ext *Extension) []Group
	member func(s RequestSpan) string
	// identity is the block's part of the workload beyond its groups' names and weights
	// (how requests were spread over them).
	identity func(ext *Extension) []any
	// models reports whether its groups are models the requests named.
	models bool
}

var groupBlocks = []groupBlock{
	{key: "anvilbench.adapters", title: "adapter", models: true,
		groups:   func(x *Extension) []Group { return x.Adapters },
		member:   func(s RequestSpan) string { return s.Adapter },
		identity: func(x *Extension) []any { return []any{x.AdapterMix} }},
	{key: "anvilbench.priorities", title: "priority class",
		groups: func(x *Extension) []Group { return x.Priorities },
		member: func(s RequestSpan) string { return s.PriorityClass },
		identity: func(x *Extension) []any {
			var p []any
			for _, g := range x.Priorities {
				p = append(p, g.Priority)
			}
			return p
		}},
}

// Groups yields each block of groups the run has, by what one group is ("adapter",
// "priority class"), in the order the blocks are defined.
func (b *Benchmark) Groups() iter.Seq2[string, []Group] {
	return func(yield func(string, []Group) bool) {
		if b.Extension == nil {
			return
		}
		for _, g := range groupBlocks {
			if gs := g.groups(b.Extension); len(gs) > 0 && !yield(g.title, gs) {
				return
			}
		}
	}
}

// PlannedModels are the groups whose names the run's requests sent in place of its model
// (its adapters); nil when every request named the run's model.
func (b *Benchmark) PlannedModels() []Group {
	var out []Group
	for _, g := range groupBlocks {
		if !g.models || b.Extension == nil {
			continue
		}
		out = append(out, g.groups(b.Extension)...)
	}
	return out
}

// group is the run's record of the group named name, and which requests belong to it; nil
// when it has none.
func (b *Benchmark) group(name string) (*Group, func(RequestSpan) bool) {
	if b.Extension == nil {
		return nil, nil
	}
	for _, g := range groupBlocks {
		gs := g.groups(b.Extension)
		for k := range gs {
			if gs[k].Name == name {
				return &gs[k], func(s RequestSpan) bool { return g.member(s) == name }
			}
		}
	}
	return nil, nil
}

// groupIdentity is the identity row of each block of groups: its groups' names and
// weights, and the block's own part; "null" without it.
func groupIdentity() []identityField {
	out := make([]identityField, len(groupBlocks))
	for k, g := range groupBlocks {
		out[k] = identityField{g.key, func(a *Benchmark) (string, bool) {
			if a.Extension == nil || len(g.groups(a.Extension)) == 0 {
				return "null", true
			}
			var plan []any
			for _, x := range g.groups(a.Extension) {
				plan = append(plan, x.Name, x.Weight)
			}
			return text(append([]any{plan}, g.identity(a.Extension)...)), true
		}}
	}
	return out
}

// Images is what a run that sent images planned and sent: PerRequest images of Sizes (a
// size or a weighted set) in Format, each request's own or drawn from a pool of Pool; how
// many the measured requests sent and how many of those were distinct; and, by size
// ("512x512"), the prompt tokens the engine counted for one image (its probe before the run:
// with the image less without; a size is absent when it reported no usage) beside those of
// the rule of Patch-pixel patches (0: none configured). The means are per request: tokens
// counted (usage less the planned text) and planned.
type Images struct {
	PerRequest            int            `json:"per_request"`
	Sizes                 string         `json:"sizes"`
	Format                string         `json:"format"`
	Pool                  int            `json:"pool"`
	Patch                 int            `json:"patch"`
	Sent                  int            `json:"sent"`
	Distinct              int            `json:"distinct"`
	EngineTokens          map[string]int `json:"engine_tokens_per_image"`
	RuleTokens            map[string]int `json:"rule_tokens_per_image"`
	CountedPerRequestMean *Float         `json:"counted_tokens_per_request_mean"`
	PlannedPerRequestMean *Float         `json:"planned_tokens_per_request_mean"`
}

// TokensOf is what an image of size costs: the engine's count, else the rule's.
func (im *Images) TokensOf(size string) (int, bool) {
	if n, ok := im.EngineTokens[size]; ok {
		return n, true
	}
	n, ok := im.RuleTokens[size]
	return n, ok
}

// Cancellation is what a run that abandoned some of its requests planned and saw: the
// share planned (Rate, of Planned requests) left after AfterTokens output chunks, and how
// many were (Abandoned: v1's requests = completed + failed + abandoned). An abandoned
// request is in no latency figure and counts as lost in goodput.
type Cancellation struct {
	Rate        float64 `json:"rate"`
	AfterTokens int     `json:"after_tokens"`
	Planned     int     `json:"planned"`
	Abandoned   int     `json:"abandoned"`
	// EngineStopped says whether the engine stopped what the client left: its running
	// requests gauge fell to none within StopTolerance of the measured phase's end; null when
	// nothing could tell (StopSource says why). DecodedOnMs is when it did, after that end:
	// how long the engine went on.
	EngineStopped *bool  `json:"engine_stopped"`
	DecodedOnMs   *Float `json:"decoded_on_ms"`
	StopSource    string `json:"stop_source"`
	// TokensPerLeft is what the engine's generated-tokens counter holds beyond the usage of
	// every request that ran to its end, per request left: about AfterTokens from an engine
	// that stopped, up to the whole answer from one that decoded on. Null when the engine
	// exports no counter or a request's usage is unknown.
	TokensPerLeft *Float `json:"tokens_per_left"`
}
