package artifact

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
