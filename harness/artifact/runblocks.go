package artifact

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
