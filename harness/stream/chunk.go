package stream

import (
	"encoding/json"
	"strings"
)

// chunk is the part of an OpenAI-compatible streamed chunk the timing needs. One value is
// reused for every event of a stream.
type chunk struct {
	Choices []choice        `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
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
}

type wireUsage struct {
	PromptTokens        *int `json:"prompt_tokens"`
	CompletionTokens    *int `json:"completion_tokens"`
	TotalTokens         *int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (u *wireUsage) usage() Usage {
	out := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.PromptTokensDetails != nil {
		out.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	return out
}

// decode parses data into c, clearing what the previous event left: encoding/json does not
// zero reused slice elements before filling them.
func (c *chunk) decode(data string) error {
	choices := c.Choices[:cap(c.Choices)]
	clear(choices)
	*c = chunk{Choices: choices[:0]}
	return json.Unmarshal([]byte(data), c)
}

// errorMessage reports an error object sent inside the stream: {"error": {...}} as OpenAI
// and SGLang send it, or {"object": "error", "message": ...} as older vLLM did.
func (c *chunk) errorMessage() (string, bool) {
	if c.Object == "error" {
		return clip(c.Message), true
	}
	if len(c.Error) == 0 || string(c.Error) == "null" {
		return "", false
	}
	return errorBodyMessage([]byte(`{"error":` + strings.TrimSpace(string(c.Error)) + `}`)), true
}
