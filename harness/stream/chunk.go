package stream

import (
	"encoding/json"
	"strings"
)

// chunk is the part of an OpenAI-compatible streamed chunk the timing needs. One value is
// reused for every event of a stream.
//
// decode fills it with the hand-rolled scanner of fastchunk.go when the event has a shape it
// understands and with encoding/json otherwise; both give the same values. After the fast
// path its strings and Error are views into the event data or into scratch, valid until the
// next decode or read: whatever outlives the event must be copied (observe does).
type chunk struct {
	Choices []choice        `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`

	// Storage the fast path points Usage and its counts into, so it never allocates;
	// encoding/json ignores unexported fields.
	usage   wireUsage
	details wireDetails
	counts  [4]int
	scratch []byte // unescaped strings of the fast path
}

type choice struct {
	Delta struct {
		Content          string `json:"content"`
		ReasoningContent string `json:"reasoning_content"`
		Reasoning        string `json:"reasoning"`
	} `json:"delta"`
	// Text is the delta of the legacy /v1/completions endpoint.
	Text         string  `json:"text"`
	FinishReason *string `json:"finish_reason"`

	finish string // what the fast path points FinishReason to
}

type wireUsage struct {
	PromptTokens        *int         `json:"prompt_tokens"`
	CompletionTokens    *int         `json:"completion_tokens"`
	TotalTokens         *int         `json:"total_tokens"`
	PromptTokensDetails *wireDetails `json:"prompt_tokens_details"`
}

type wireDetails struct {
	CachedTokens *int `json:"cached_tokens"`
}

// decode parses data into c. data is not retained beyond the next decode.
func (c *chunk) decode(data []byte) error {
	if c.decodeFast(data) {
		return nil
	}
	return c.decodeJSON(data)
}

// decodeJSON parses data with encoding/json, clearing what the previous event left:
// encoding/json does not zero reused slice elements before filling them.
func (c *chunk) decodeJSON(data []byte) error {
	choices := c.Choices[:cap(c.Choices)]
	clear(choices)
	*c = chunk{Choices: choices[:0], scratch: c.scratch[:0]}
	return json.Unmarshal(data, c)
}

// errorMessage reports an error object sent inside the stream: {"error": {...}} as OpenAI
// and SGLang send it, or {"object": "error", "message": ...} as older vLLM did. The message
// is a copy, independent of the event data.
func (c *chunk) errorMessage() (string, bool) {
	if c.Object == "error" {
		return strings.Clone(clip(c.Message)), true
	}
	if len(c.Error) == 0 || string(c.Error) == "null" {
		return "", false
	}
	return errorBodyMessage([]byte(`{"error":` + strings.TrimSpace(string(c.Error)) + `}`)), true
}

// finishReason returns a string owned by the caller for a finish reason seen in an event:
// the common ones are interned, so a stream's finish costs no allocation.
func finishReason(s string) string {
	switch s {
	case "stop":
		return "stop"
	case "length":
		return "length"
	case "tool_calls":
		return "tool_calls"
	case "content_filter":
		return "content_filter"
	case "function_call":
		return "function_call"
	case "eos_token":
		return "eos_token"
	case "abort":
		return "abort"
	}
	return strings.Clone(s)
}
