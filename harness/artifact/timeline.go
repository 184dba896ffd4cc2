package artifact

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
