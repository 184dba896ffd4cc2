package artifact

// How the run was measured: its clock and arrival, the client's own cost, how prompts
// were sized, what the endpoint showed, and the engine's and its GPUs' own accounts.

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

// The run's own blocks: its warm-up, its measured blocks and an interleaved run's,
// the baseline it was gated against, and the shards it was split into or merged from.

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
