package wire

import (
	"encoding/json"
)

// Chunk is the part of an OpenAI-compatible streamed chunk the timing needs. One value is
// reused for every event of a stream.
//
// Decode fills it with the hand-written scanner of scan.go when the event has a shape it
// understands and with encoding/json otherwise; both give the same values (FuzzChunk holds
// them to it), and the scanner decodes a chunk several times faster without allocating
// (BenchmarkChunkDecode). After the fast path its strings and Error are views into the
// event data or into scratch, valid until the next Decode or read: whatever outlives the
// event must be copied.
type Chunk struct {
	Choices []Choice        `json:"choices"`
	Usage   *Usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
	// Model is the model the engine says served the chunk; "" when it named none or sent
	// something other than a string (that does not fail the chunk).
	Model Name `json:"model"`
	// Metrics is vLLM's per-request metrics object (include_metrics), Timings llama.cpp's,
	// each in a stream's last chunk: raw, for the one event that carries them to be read
	// once (after the fast path, views into the event data).
	Metrics json.RawMessage `json:"metrics"`
	Timings json.RawMessage `json:"timings"`

	// Storage the fast path points Usage and its counts into, so it never allocates;
	// encoding/json ignores unexported fields.
	usage             Usage
	details           Details
	completionDetails CompletionDetails
	counts            [5]int
	scratch           []byte // unescaped strings of the fast path
}

type Choice struct {
	Delta struct {
		Content          string `json:"content"`
		ReasoningContent string `json:"reasoning_content"`
		Reasoning        string `json:"reasoning"`
		// ToolCalls are fragments of tool calls: the fast path leaves them to encoding/json.
		ToolCalls []ToolCall `json:"tool_calls"`
	} `json:"delta"`
	// Text is the delta of the legacy /v1/completions endpoint.
	Text         string  `json:"text"`
	FinishReason *string `json:"finish_reason"`

	finish string // what the fast path points FinishReason to
}

// ToolCall is one fragment of a streamed tool call: engines send the id, type and name
// first, then the arguments in pieces, each fragment naming its call by Index (Ollama sends
// whole calls, some engines no index).
type ToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type Usage struct {
	PromptTokens            *int               `json:"prompt_tokens"`
	CompletionTokens        *int               `json:"completion_tokens"`
	TotalTokens             *int               `json:"total_tokens"`
	PromptTokensDetails     *Details           `json:"prompt_tokens_details"`
	CompletionTokensDetails *CompletionDetails `json:"completion_tokens_details"`
}

// CompletionDetails splits the completion tokens: ReasoningTokens are the model's thought
// (vLLM, OpenAI, Ollama report them with a reasoning model).
type CompletionDetails struct {
	ReasoningTokens *int `json:"reasoning_tokens"`
}

type Details struct {
	CachedTokens *int `json:"cached_tokens"`
}

// Decode parses data into c. data is not retained beyond the next Decode.
func (c *Chunk) Decode(data []byte) error {
	if c.DecodeFast(data) {
		return nil
	}
	return c.DecodeJSON(data)
}

// DecodeJSON parses data with encoding/json, clearing what the previous event left:
// encoding/json does not zero reused slice elements before filling them.
func (c *Chunk) DecodeJSON(data []byte) error {
	choices := c.Choices[:cap(c.Choices)]
	clear(choices)
	*c = Chunk{Choices: choices[:0], scratch: c.scratch[:0]}
	return json.Unmarshal(data, c)
}

// Name is a string member read leniently: a value of another type leaves it empty, on
// either path, instead of failing the chunk over a member the timing does not need.
type Name string

// UnmarshalJSON keeps a string and ignores anything else.
func (n *Name) UnmarshalJSON(data []byte) error {
	var v string
	if json.Unmarshal(data, &v) == nil {
		*n = Name(v)
	}
	return nil
}
