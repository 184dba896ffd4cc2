package artifact

// ExtensionVersion names the layout of the Extension block.
const ExtensionVersion = "anvilbench.extension/v1"

// OutcomeCancelled is the outcome of a request the run's interruption ended (its
// failure's error_type): one the run never finished, not one the engine failed.
const OutcomeCancelled = "cancelled"

// OutcomeAbandoned is the outcome of a request the client left as the scenario planned
// (cancel_rate): neither completed nor failed, out of every latency figure.
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
	// Adapters are the LoRA adapters the run spread its requests over, in the order
	// configured, each with its figures; AdapterMix how they were spread (weighted, zipf).
	// Absent without adapters.
	Adapters   []Adapter `json:"adapters,omitempty"`
	AdapterMix string    `json:"adapter_mix,omitempty"`
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

// Interleaved is one engine's side of an interleaved A/B run: the endpoint under test and
// a baseline build measured in alternating blocks (ABBA: the baseline, then the current,
// then the current, then the baseline, ...), each block the same workload under a nonce of
// its own, so what moves with time (drift, the host's other work, clocks) falls on both
// alike and a linear drift cancels.
type Interleaved struct {
	// Role is "current" (the endpoint under test) or "baseline" (the baseline build).
	Role string `json:"role"`
	// Pairing names the A/B run, the same in both engines' artifacts.
	Pairing string `json:"pairing"`
	// Order is the sequence of the blocks, A the baseline and B the current: "ABBAAB...".
	Order string `json:"order"`
	// PartnerBaseURL and PartnerModel are the other engine's endpoint and model.
	PartnerBaseURL string `json:"partner_base_url"`
	PartnerModel   string `json:"partner_model"`
	// Sequence is every block of both engines, in the order they ran.
	Sequence []InterleavedBlock `json:"sequence"`
}

// InterleavedBlock is one block of an interleaved run.
type InterleavedBlock struct {
	Role             string `json:"role"`
	Block            int    `json:"block"`
	StartedAtUnixNs  int64  `json:"started_at_unix_ns"`
	FinishedAtUnixNs int64  `json:"finished_at_unix_ns"`
}

// Roles of an interleaved run's engines.
const (
	RoleCurrent  = "current"
	RoleBaseline = "baseline"
)

// Warmup is what a run sent to warm the engine before its measured phase: requests like
// its own at its own concurrency, none sharing a prefix with a measured prompt.
type Warmup struct {
	Requests   int   `json:"requests"`
	Completed  int   `json:"completed"`
	Failed     int   `json:"failed"`
	DurationMs Float `json:"duration_ms"`
	// TTFTMs and TPOTMs summarize its successes.
	TTFTMs *Percentiles `json:"ttft_ms"`
	TPOTMs *Percentiles `json:"tpot_ms"`
	// LastRequests are its last successes by start, whose medians the cold-start check
	// holds against the measured phase's.
	LastRequests  int    `json:"last_requests"`
	LastTTFTP50Ms *Float `json:"last_ttft_p50_ms"`
	LastTPOTP50Ms *Float `json:"last_tpot_p50_ms"`
	// LastTPOTMs are those requests' TPOTs, in start order, which the check tests against
	// the measured phase's (null when none decoded).
	LastTPOTMs []Float `json:"last_tpot_ms"`
	// PromptTokens and CompletionTokens are the usage its responses reported, which the
	// engine's counters include; UsageReported counts the requests that reported both.
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	UsageReported    int `json:"usage_reported"`
}

// Blocks are the measured phase's repeated blocks. Block b holds request indices
// b*RequestsPerBlock to (b+1)*RequestsPerBlock-1, every v1 key is over all of them, and
// Figures gives each figure block by block and across the blocks.
type Blocks struct {
	Repeats          int     `json:"repeats"`
	RequestsPerBlock int     `json:"requests_per_block"`
	Blocks           []Block `json:"blocks"`
	// Figures holds, for each headline figure (HeadlineFigures), its value in each block and its
	// mean, sample standard deviation, coefficient of variation and 95% t-interval over
	// the blocks (null with fewer than two blocks with a value).
	Figures map[string]BlockFigures `json:"figures"`
}

// Block is one block of the measured phase.
type Block struct {
	Index int `json:"index"`
	// StartOffsetMs is its start from the artifact's started_at_unix_ns; DurationMs from
	// its first request's start to its last request's end.
	StartOffsetMs Float `json:"start_offset_ms"`
	DurationMs    Float `json:"duration_ms"`
	Completed     int   `json:"completed"`
	Failed        int   `json:"failed"`
	// PromptNonce is the nonce of its prompts: no block finds another's in a prefix cache.
	PromptNonce string `json:"prompt_nonce"`
}

// BlockFigures is one figure over a run's blocks.
type BlockFigures struct {
	// Values are the figure of each block, null where the block has none.
	Values   []*Float `json:"values"`
	Mean     *Float   `json:"mean"`
	SD       *Float   `json:"sd"`
	CV       *Float   `json:"cv"`
	CI95Low  *Float   `json:"ci95_low"`
	CI95High *Float   `json:"ci95_high"`
}

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

// BaselineRef names a gate's baseline and keeps the figures a report compares.
type BaselineRef struct {
	// Design is what the run was judged against: DesignStored (one stored run),
	// DesignHistory (earlier runs) or DesignInterleaved (a baseline build run beside it).
	Design string `json:"design"`
	// Source is the baseline's file (a history's directory or pattern) as configured;
	// RunID and StartedAt are its own (a history's latest run's).
	Source    string `json:"source"`
	RunID     string `json:"run_id"`
	StartedAt string `json:"started_at"`
	// Metrics are the baseline's values of the headline figures (HeadlineFigures) that it records; for a
	// history, the level of its latest runs (after its last change of level).
	Metrics map[string]float64 `json:"metrics"`
	// History are a history's runs, oldest first, with their figures and levels; null
	// for another design.
	History []HistoryRun `json:"history"`
	// GateBy is the change the gate had to resolve (ANVIL_GATE_BY); a change worse than
	// half of it, significant, is a regression, and the report marks what is worse by
	// more than half of it. 0 when no gate compared.
	GateBy float64 `json:"gate_by"`
}

// Designs of a comparison (BaselineRef.Design).
const (
	DesignStored      = "stored run"
	DesignHistory     = "history"
	DesignInterleaved = "interleaved"
)

// HistoryRun is one run of a history baseline.
type HistoryRun struct {
	RunID           string `json:"run_id"`
	StartedAt       string `json:"started_at"`
	StartedAtUnixNs int64  `json:"started_at_unix_ns"`
	// Metrics are its values of the headline figures (HeadlineFigures); Levels the level of the history it
	// belongs to at each (the geometric mean of the runs between two changes of level).
	Metrics map[string]float64 `json:"metrics"`
	Levels  map[string]float64 `json:"levels"`
}

// BaselineRef is the reference to this artifact as a run's stored baseline, read from
// source: its run and its headline figures (HeadlineFigures).
func (b *Benchmark) BaselineRef(source string) *BaselineRef {
	ref := &BaselineRef{Design: DesignStored, Source: source, RunID: b.Run(), StartedAt: b.StartedAt, Metrics: map[string]float64{}}
	for _, f := range HeadlineFigures() {
		if v, _ := f.Of(b); v != nil {
			ref.Metrics[f.Key] = *v
		}
	}
	return ref
}

// ContextClamp is how a served window cut a run's planned contexts.
type ContextClamp struct {
	// Window is the served context window and WindowSource where it came from;
	// MaxPromptTokens what it leaves for a prompt after max_tokens and the margin.
	Window          int     `json:"window"`
	WindowSource    *string `json:"window_source"`
	MaxPromptTokens int     `json:"max_prompt_tokens"`
	// Requests counts the requests clamped; LargestPlanned is the largest size planned.
	Requests       int `json:"requests"`
	LargestPlanned int `json:"largest_planned"`
	// Note says it in a sentence.
	Note string `json:"note"`
}

// Shard is one segment of a run split across processes or hosts: the requests whose index
// modulo Count is Index. Its v1 figures are the segment's own; the run's throughput, which
// no segment can know alone, is null.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// TotalRequests and TotalConcurrency are the whole run's; Indices the request indices
	// this segment ran.
	TotalRequests    int   `json:"total_requests"`
	TotalConcurrency int   `json:"total_concurrency"`
	Indices          []int `json:"indices"`
	// StartAt is the instant every shard waited for (RFC 3339 with milliseconds), and
	// StartSkewMs how long after it this shard's request phase began.
	StartAt     *string `json:"start_at"`
	StartSkewMs *Float  `json:"start_skew_ms"`
}

// MergedShard is what a merged artifact keeps of one shard.
type MergedShard struct {
	Index       int    `json:"index"`
	Requests    int    `json:"requests"`
	Concurrency int    `json:"concurrency"`
	RunID       string `json:"run_id"`
	StartSkewMs *Float `json:"start_skew_ms"`
	Complete    bool   `json:"complete"`
}

// SendSplit splits each successful request's TTFT where its last byte left this host: the
// client's send before (connection, writing the request, the kernel's send path), the
// network, the engine's queue and prefill after.
type SendSplit struct {
	// Source is "kernel-transmit" (the kernel's software transmit stamp, SO_TIMESTAMPING)
	// or "none", with Note saying why.
	Source string `json:"source"`
	Note   string `json:"note"`
	// Stamped counts the successful requests with a stamp.
	Stamped int `json:"stamped"`
	// ClientSendMs is from each request's start to its stamp; ServerTTFTMs is its TTFT
	// after the stamp. Null without stamps.
	ClientSendMs *Percentiles `json:"client_send_ms"`
	ServerTTFTMs *Percentiles `json:"server_ttft_ms"`
}

// Send sources.
const (
	SendKernelTransmit = "kernel-transmit"
	SendNone           = "none"
)

// Clock records how a run's events were stamped: Source is "kernel-receive" (the kernel's
// receive timestamp of the bytes, SO_TIMESTAMPNS), "user-space-read" (when the read that
// delivered them returned) or "mixed", with the reads of response bodies stamped each way.
type Clock struct {
	Source             string `json:"source"`
	KernelStampedReads int    `json:"kernel_stamped_reads"`
	UserStampedReads   int    `json:"user_stamped_reads"`
}

// EngineMetrics holds the engine's own view of the run, from its Prometheus metrics scraped
// before, during (for peaks) and after it: increases of counters and histograms over the
// run, peaks of gauges. A figure the engine does not export is null.
type EngineMetrics struct {
	// URL is where they were scraped; Scraped is false when they could not be, Error why
	// (e.g. "no metrics served (HTTP 404)").
	URL     string `json:"url"`
	Scraped bool   `json:"scraped"`
	Error   string `json:"error"`
	Scrapes int    `json:"scrapes"`
	// The server's own latency histograms (vLLM's time_to_first_token, inter_token_latency,
	// e2e_request_latency and request_queue_time, or SGLang's, TGI's).
	TTFTMs       *ServerLatency `json:"ttft_ms"`
	InterTokenMs *ServerLatency `json:"inter_token_ms"`
	E2EMs        *ServerLatency `json:"e2e_ms"`
	QueueMs      *ServerLatency `json:"queue_ms"`
	// PrefillMs and DecodeMs are the engine's own split of its requests' time over the
	// measured phase (vLLM's request_prefill_time_seconds and request_decode_time_seconds
	// histograms): the run-level split where no request states its own.
	PrefillMs *ServerLatency `json:"prefill_ms"`
	DecodeMs  *ServerLatency `json:"decode_ms"`
	// Preemptions (requests preempted or swapped), and prompt and generation tokens counted.
	Preemptions      *Float `json:"preemptions"`
	PromptTokens     *Float `json:"prompt_tokens"`
	GenerationTokens *Float `json:"generation_tokens"`
	// PrefixCacheHitRate is prefix-cache hits over queries, in tokens.
	PrefixCacheHitRate *Float `json:"prefix_cache_hit_rate"`
	// Peaks seen by the scrapes: KV-cache usage (1 = full), running and waiting requests.
	KVCacheUsagePeak *Float `json:"kv_cache_usage_peak"`
	RunningPeak      *Float `json:"running_peak"`
	WaitingPeak      *Float `json:"waiting_peak"`
	// RunningAtStart and WaitingAtStart are the requests the engine held at the first
	// scrape, before the run sent any: another client's, or ones abandoned by an earlier run
	// that the engine still computes.
	RunningAtStart *Float `json:"running_at_start"`
	WaitingAtStart *Float `json:"waiting_at_start"`
	// SpecDecode is the engine's speculative decoding over the run; null when it exports
	// none.
	SpecDecode *SpecDecode `json:"spec_decode,omitempty"`
}

// GPUTelemetry is the state of the engine's GPUs sampled before, through and after a run
// (a DCGM exporter's fields, or nvidia-smi's): what a verdict needs to know the run measured
// the engine, not a GPU that throttled or ran at other clocks.
type GPUTelemetry struct {
	// Source is "dcgm <url>", "nvidia-smi", or "none" (Note says why: nothing to read).
	Source string `json:"source"`
	Note   string `json:"note,omitempty"`
	// Error is the last failed read, "" when none failed; Samples counts the reads.
	Error   string     `json:"error,omitempty"`
	Samples int        `json:"samples"`
	GPUs    []GPUState `json:"gpus"`
}

// GPUState is one GPU's samples.
type GPUState struct {
	GPU    string      `json:"gpu"`
	Model  string      `json:"model"`
	Series []GPUSample `json:"series"`
}

// GPUSample is one GPU's state at OffsetMs from the measured phase's start (negative
// before it); During marks the samples taken within it. Null fields were not reported.
type GPUSample struct {
	OffsetMs       Float  `json:"offset_ms"`
	During         bool   `json:"during"`
	SMClockMHz     *Float `json:"sm_clock_mhz"`
	MemClockMHz    *Float `json:"mem_clock_mhz"`
	PowerW         *Float `json:"power_w"`
	TemperatureC   *Float `json:"temperature_c"`
	UtilizationPct *Float `json:"utilization_pct"`
	MemoryUsedMiB  *Float `json:"memory_used_mib"`
	// Reasons is the driver's clock event (throttle) reasons bitmask, NVML's; ReasonNames
	// names its bits.
	Reasons     *uint64  `json:"reasons,omitempty"`
	ReasonNames []string `json:"reason_names,omitempty"`
}

// GPUThrottleReasons are the clock event reasons that hold a busy GPU below the clocks its
// work would run at: SW power cap, HW slowdown, SW thermal, HW thermal, HW power brake.
const GPUThrottleReasons uint64 = 0x4 | 0x8 | 0x20 | 0x40 | 0x80

// gpuReasons are NVML's clock event reasons, by bit.
var gpuReasons = []struct {
	bit  uint64
	name string
}{
	{0x1, "GPU idle"}, {0x2, "applications clocks setting"}, {0x4, "SW power cap"}, {0x8, "HW slowdown"},
	{0x10, "sync boost"}, {0x20, "SW thermal slowdown"}, {0x40, "HW thermal slowdown"},
	{0x80, "HW power brake slowdown"}, {0x100, "display clock setting"},
}

// Throttles names the sample's throttle reasons (those of GPUThrottleReasons it reports),
// not the reasons that hold an idle GPU's clocks down; none without reasons.
func (s GPUSample) Throttles() []string {
	if s.Reasons == nil {
		return nil
	}
	return GPUReasonNames(*s.Reasons & GPUThrottleReasons)
}

// GPUReasonNames names the clock event reasons set in mask.
func GPUReasonNames(mask uint64) []string {
	var out []string
	for _, r := range gpuReasons {
		if mask&r.bit != 0 {
			out = append(out, r.name)
		}
	}
	return out
}

// SpecDecode is what an engine's speculative decoding did over a run, from its counters:
// vLLM's spec_decode drafts, draft tokens and accepted tokens (differenced), or SGLang's
// accept length gauge (averaged over the scrapes).
type SpecDecode struct {
	// Source names the metrics read.
	Source string `json:"source"`
	// Drafts are the decode steps that drafted, DraftTokens the tokens they proposed,
	// AcceptedTokens those accepted (vLLM); null when the engine does not count them.
	Drafts         *Float `json:"drafts"`
	DraftTokens    *Float `json:"draft_tokens"`
	AcceptedTokens *Float `json:"accepted_tokens"`
	// AcceptanceRate is accepted over drafted tokens, as vLLM counts it; MeanAcceptedLength
	// the tokens a step emits on average, 1 + accepted / drafts (SGLang's accept length).
	AcceptanceRate     *Float `json:"acceptance_rate"`
	MeanAcceptedLength *Float `json:"mean_accepted_length"`
	// PerPosition is, by draft position from the first, the share of drafts whose token at
	// that position was accepted; empty when the engine does not export it.
	PerPosition []Float `json:"per_position"`
}

// ServerLatency summarizes the observations one server histogram gained over a run, in
// milliseconds. Quantiles are interpolated inside buckets as Prometheus's
// histogram_quantile does, so they are only as precise as the buckets: P50BucketMs holds the
// bounds of the bucket of the median.
type ServerLatency struct {
	Metric      string  `json:"metric"`
	Count       int     `json:"count"`
	MeanMs      *Float  `json:"mean_ms"`
	P50Ms       *Float  `json:"p50_ms"`
	P90Ms       *Float  `json:"p90_ms"`
	P99Ms       *Float  `json:"p99_ms"`
	P50BucketMs []Float `json:"p50_bucket_ms"`
}

// Arrival models.
const (
	ArrivalClosedLoop = "closed-loop" // each of concurrency workers starts its next request when one ends
	ArrivalBurst      = "burst"       // every request released at one instant
	ArrivalPoisson    = "poisson"     // open loop, exponential gaps at a mean rate
	ArrivalConstant   = "constant"    // open loop, evenly spaced at a rate
)

// Arrival records the arrival model. For an open loop, the v1 latencies stay service
// latencies (from each request's actual start); IntendedTTFT and IntendedE2E are measured
// from the intended start, so queueing in the client is not hidden, and ScheduleLag is the
// difference.
type Arrival struct {
	Model      string `json:"model"`
	RatePerSec *Float `json:"rate_per_sec"`
	Seed       *int64 `json:"seed"`
	// MaxInFlight caps concurrent requests (the concurrency); 0 for none.
	MaxInFlight     int          `json:"max_in_flight"`
	ScheduleLagMs   *Percentiles `json:"schedule_lag_ms"`
	IntendedTTFTMs  *Percentiles `json:"intended_ttft_ms"`
	IntendedE2EMs   *Percentiles `json:"intended_e2e_ms"`
	ServiceTTFTMs   *Percentiles `json:"service_ttft_ms"`
	AchievedRateSec *Float       `json:"achieved_rate_per_sec"`
}

// Percentiles is a nearest-rank summary of one latency.
type Percentiles struct {
	Samples int   `json:"samples"`
	P50     Float `json:"p50"`
	P95     Float `json:"p95"`
	P99     Float `json:"p99"`
	Max     Float `json:"max"`
}

// ITL bases.
const (
	ITLPerChunk = "per-chunk"
	ITLPerToken = "per-token"
)

// ITLSummary pools the gaps between consecutive output chunks of the successful requests
// (the first output excluded). Basis is "per-chunk" when a gap is one sample whatever the
// chunk held, or "per-token" when the engine reported usage in every chunk: a gap of a
// chunk with k tokens then gives k samples of gap/k.
type ITLSummary struct {
	Basis   string `json:"basis"`
	Samples int    `json:"samples"`
	// SharedReadGaps counts the gaps between two chunks that one read delivered, pooled as
	// 0: the engine sent them together, or the second arrived before the client read the
	// first, and then the first one's arrival is unknown. A read has one stamp; the
	// kernel's is that of its newest bytes, as segments queued unread merge and keep the
	// later stamp.
	SharedReadGaps int    `json:"shared_read_gaps"`
	MeanMs         *Float `json:"mean_ms"`
	P50Ms          *Float `json:"p50_ms"`
	P90Ms          *Float `json:"p90_ms"`
	P95Ms          *Float `json:"p95_ms"`
	P99Ms          *Float `json:"p99_ms"`
	MaxMs          *Float `json:"max_ms"`
	// TokensPerChunk is the mean completion tokens per output chunk, from usage; null
	// without usage.
	TokensPerChunk *Float `json:"tokens_per_chunk"`
	// ChunkTokens counts the output chunks by the completion tokens each carried ("1": 40,
	// "3": 260): a speculative decoder's accepted lengths as the client saw them. Only with
	// usage in every chunk (continuous usage stats); null otherwise.
	ChunkTokens map[string]int `json:"chunk_tokens,omitempty"`
	// Note says, when chunks carried several tokens and the engine did not say how many
	// came with the first, how far tpot may read low; "" otherwise.
	Note string `json:"note"`
}

// ClientOverhead is what the harness itself cost during the request phase.
type ClientOverhead struct {
	// DispatchDelay is, per request, from the moment it was due (its worker took it, or the
	// burst was released) to its start: prompt building and encoding.
	DispatchDelayP50Ms *Float `json:"dispatch_delay_p50_ms"`
	DispatchDelayMaxMs *Float `json:"dispatch_delay_max_ms"`
	// EventLag is, per event, from the read that delivered it to the end of its processing.
	EventLagMeanUs *Float `json:"event_lag_mean_us"`
	EventLagMaxUs  *Float `json:"event_lag_max_us"`
	// CPUSharePct is the process's CPU time over the wall time of the Cores it may use, in
	// percent: 100 is every one of them busy for the whole request phase.
	CPUSharePct *Float `json:"cpu_share_pct"`
	// Cores is how many cores the process may use: its CPU affinity, at most GOMAXPROCS.
	Cores int `json:"cores"`
	// CPUWaitPct is how long the process's threads waited, runnable, for a core (Linux
	// schedstat run-queue time) over the wall time of its Cores, in percent: beside
	// CPUSharePct it is the CPU the client wanted and did not get. Null where the kernel
	// does not say.
	CPUWaitPct *Float `json:"cpu_wait_pct"`
	// StartLag is, per request, from when it could start to when it did: in a closed loop
	// from the arrival of the last bytes of its worker's previous response (or the start of
	// the request phase), in an open loop from its scheduled instant (or, when the cap on
	// requests in flight held it back, from the moment a slot freed), in a burst from the
	// release. It is the client's own delay: reading, judging and building the next request,
	// and waiting for a core. Null when no request was sent.
	StartLagP99Ms   *Float `json:"start_lag_p99_ms"`
	StartLagMaxMs   *Float `json:"start_lag_max_ms"`
	StartLagSamples int    `json:"start_lag_samples"`
	// StartLagSharePct is the start lag summed over the sent requests, over the same sum
	// plus their time from start to end, in percent: how much of the time the workload
	// meant a request to be in flight it was waiting on the client instead. A closed loop
	// then held fewer requests in flight than its concurrency; an open loop fell behind its
	// schedule.
	StartLagSharePct *Float `json:"start_lag_share_pct"`
	// GCCycles counts the garbage collections during the request phase; the collector is
	// held off then (up to a memory limit), so it is 0 unless the run allocated a lot.
	GCCycles *int `json:"gc_cycles"`
	// Bottleneck is set when the client, not the engine, may have limited the figures
	// (CPU share above 80%, or an event lag above 1 ms where it can have delayed a stamp:
	// user-space stamps, or a read that carried several chunks); Reason says which.
	Bottleneck bool   `json:"bottleneck"`
	Reason     string `json:"reason"`
}

// Calibration is how prompts were sized: tokens = OverheadTokens + characters /
// CharsPerToken, fitted through two probe prompts of the run's own shape.
type Calibration struct {
	// Method is "tokenize" (the server's /tokenize counted the probes), "usage-probe" (two
	// one-token requests reported usage.prompt_tokens) or "none" (a fixed estimate).
	Method         string `json:"method"`
	CharsPerToken  Float  `json:"chars_per_token"`
	OverheadTokens Float  `json:"overhead_tokens"`
	// FittedSizes counts the planned sizes whose prompts /tokenize counted and that were
	// then built to the plan exactly, past what the linear fit gives; 0 without /tokenize.
	FittedSizes int `json:"fitted_sizes"`
	// Note says why a calibration fell back to the estimate.
	Note string `json:"note"`
}

// ContextAccuracy compares the prompt tokens the engine counted (usage.prompt_tokens) with
// each request's planned context, over every response that reported them, failures
// included: error = (counted - planned) / planned, in percent. It says whether the engine
// saw the workload that was planned.
type ContextAccuracy struct {
	Samples        int    `json:"samples"`
	MeanErrorPct   *Float `json:"mean_error_pct"`
	MaxAbsErrorPct *Float `json:"max_abs_error_pct"`
	// WorstRequest is the index of the request furthest off its plan; null without samples.
	WorstRequest *int `json:"worst_request"`
	// TruncatedAt is set when the requests well short of their plan (more than 5%) were all
	// counted at one size below it: the engine cut the prompts to that many tokens, its
	// window. Truncated counts those requests.
	TruncatedAt *int `json:"truncated_at"`
	Truncated   int  `json:"truncated"`
	// Diagnosis says in a sentence what went wrong, or "" when nothing stands out.
	Diagnosis string `json:"diagnosis"`
}

// Capabilities records what the endpoint offered during the run. A capability the run
// never asked about is null, not false: "unknown" is not "no".
type Capabilities struct {
	// ModelsEndpoint: GET /v1/models answered; null when it was not asked (the model and
	// the window were configured).
	ModelsEndpoint *bool `json:"models_endpoint"`
	// MaxContextTokens is the context window the plan was clamped to (0: none known), and
	// MaxContextSource where it came from: "configured", "/v1/models", an engine-native
	// endpoint ("llama.cpp GET /props", "ollama POST /api/show", "sglang GET /server_info",
	// ...), or null when no source stated one. MaxContextNote qualifies it when needed.
	MaxContextTokens int     `json:"max_context_tokens"`
	MaxContextSource *string `json:"max_context_source"`
	MaxContextNote   string  `json:"max_context_note"`
	// Tokenize: POST /tokenize answered; null when calibration did not ask.
	Tokenize *bool `json:"tokenize"`
	// StreamUsage: responses carried usage (stream_options.include_usage was honoured);
	// ReasoningStream: they carried reasoning deltas; CachedTokensReported: usage carried
	// prompt_tokens_details.cached_tokens. Each null when no response was read.
	StreamUsage          *bool `json:"stream_usage"`
	ReasoningStream      *bool `json:"reasoning_stream"`
	CachedTokensReported *bool `json:"cached_tokens_reported"`
	// EngineVersion is the version the engine stated (Ollama's /api/version, vLLM's
	// /version, llama.cpp's /props build_info, SGLang's /server_info), verbatim, and
	// EngineVersionSource where; both null when none stated one.
	EngineVersion       *string `json:"engine_version"`
	EngineVersionSource *string `json:"engine_version_source"`
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
}

// Adapter is one LoRA adapter of a run: its name, its weight and share of the requests as
// planned, how many requests named it and what became of them, and the v1 metrics block of
// its successful requests (the figures a budget or a regression names "tpot_p50_ms[name]";
// its throughput is the adapter's output over the whole run's wall clock).
type Adapter struct {
	Name      string  `json:"name"`
	Weight    float64 `json:"weight"`
	Share     Float   `json:"share"`
	Requests  int     `json:"requests"`
	Completed int     `json:"completed"`
	Failed    int     `json:"failed"`
	Abandoned int     `json:"abandoned"`
	Metrics   Metrics `json:"metrics"`
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

// EnginePhases is what an engine said one request's time went to, as it measured it and
// stated it in the response (Source: vLLM's metrics, llama.cpp's timings, Ollama's
// durations), in milliseconds: waiting to be scheduled (queue), loading the model,
// evaluating the prompt (the prefill), generating the answer (the decode), its first token
// from the request's arrival, and the whole request. A phase the engine did not state is
// null.
type EnginePhases struct {
	Source       string `json:"source"`
	QueueMs      *Float `json:"queue_ms"`
	LoadMs       *Float `json:"load_ms"`
	PromptEvalMs *Float `json:"prompt_eval_ms"`
	EvalMs       *Float `json:"eval_ms"`
	FirstTokenMs *Float `json:"first_token_ms"`
	TotalMs      *Float `json:"total_ms"`
	// BeyondEngineMs is the client's TTFT less the engine's own account of it (its first
	// token when stated, else its queue, load and prompt evaluation as far as stated): the
	// network, the framing and the client, and whatever of its time the engine does not
	// state (llama.cpp's and Ollama's queue). Null when the engine stated none of it.
	BeyondEngineMs *Float `json:"ttft_beyond_engine_ms"`
}

// Phases summarizes what an engine said the successful requests' time went to (Source
// names its account; Requests counts those that carried one): waiting to be scheduled,
// evaluating the prompt, generating the answer, and the client's TTFT beyond the engine's
// own. A phase the engine did not state is null.
type Phases struct {
	Source         string       `json:"source"`
	Requests       int          `json:"requests"`
	QueueMs        *Percentiles `json:"queue_ms"`
	PrefillMs      *Percentiles `json:"prefill_ms"`
	DecodeMs       *Percentiles `json:"decode_ms"`
	BeyondEngineMs *Percentiles `json:"ttft_beyond_engine_ms"`
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

// Reasoning is what the engine's usage said of a run's thinking: how many requests
// reported reasoning tokens, and per request the reasoning and answer tokens, the time from
// the first reasoning to the first answer, and the answer's own time per output token.
type Reasoning struct {
	Requests            int          `json:"requests"`
	ReasoningTokens     *Percentiles `json:"reasoning_tokens"`
	AnswerTokens        *Percentiles `json:"answer_tokens"`
	ReasoningToAnswerMs *Percentiles `json:"reasoning_to_answer_ms"`
	AnswerTPOTMs        *Percentiles `json:"answer_tpot_ms"`
}
