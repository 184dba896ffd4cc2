package artifact

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
