package stream

import (
	"encoding/json"
	"fmt"
)

// Paths under the base URL.
const (
	ChatPath        = "/chat/completions"
	CompletionsPath = "/completions"
)

// ChatRequest is the body of one streamed chat completion.
type ChatRequest struct {
	Model     string
	Prompt    string
	MaxTokens int
	// Temperature and TopP are sent when non-nil.
	Temperature, TopP *float64
	// ChatTemplateKwargs is sent as chat_template_kwargs when non-nil.
	ChatTemplateKwargs map[string]any
	// ReasoningEffort is sent as reasoning_effort when non-empty.
	ReasoningEffort string
	// Legacy sends the prompt to the legacy /v1/completions endpoint instead of as a user
	// message to /v1/chat/completions.
	Legacy bool
	// ContinuousUsage asks for usage in every chunk (vLLM's continuous_usage_stats), which
	// attributes tokens to chunks when an engine sends several per chunk.
	ContinuousUsage bool
}

// Path is where the request goes under the base URL.
func (r ChatRequest) Path() string {
	if r.Legacy {
		return CompletionsPath
	}
	return ChatPath
}

type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type wireRequest struct {
	Model              string         `json:"model"`
	Messages           []wireMessage  `json:"messages,omitempty"`
	Prompt             string         `json:"prompt,omitempty"`
	MaxTokens          int            `json:"max_tokens"`
	Temperature        *float64       `json:"temperature,omitempty"`
	TopP               *float64       `json:"top_p,omitempty"`
	Stream             bool           `json:"stream"`
	StreamOptions      map[string]any `json:"stream_options"`
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs,omitempty"`
	ReasoningEffort    string         `json:"reasoning_effort,omitempty"`
}

// Body encodes the request with stream: true and stream_options.include_usage, so the
// final chunk carries the server's token counts.
func (r ChatRequest) Body() ([]byte, error) {
	w := wireRequest{
		Model:              r.Model,
		MaxTokens:          r.MaxTokens,
		Temperature:        r.Temperature,
		TopP:               r.TopP,
		Stream:             true,
		StreamOptions:      map[string]any{"include_usage": true},
		ChatTemplateKwargs: r.ChatTemplateKwargs,
		ReasoningEffort:    r.ReasoningEffort,
	}
	if r.ContinuousUsage {
		w.StreamOptions["continuous_usage_stats"] = true
	}
	if r.Legacy {
		w.Prompt = r.Prompt
	} else {
		w.Messages = []wireMessage{{Role: "user", Content: r.Prompt}}
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode chat request: %w", err)
	}
	return b, nil
}
