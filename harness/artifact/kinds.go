package artifact

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
