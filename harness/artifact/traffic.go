package artifact

import "iter"

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
