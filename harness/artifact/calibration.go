package artifact

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
