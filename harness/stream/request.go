package stream

import (
	"encoding/json"
	"fmt"
)

// ChatPath is the path of streamed chat completions under the base URL.
const ChatPath = "/chat/completions"

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
}

type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type wireRequest struct {
	Model              string         `json:"model"`
	Messages           []wireMessage  `json:"messages"`
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
	b, err := json.Marshal(wireRequest{
		Model:              r.Model,
		Messages:           []wireMessage{{Role: "user", Content: r.Prompt}},
		MaxTokens:          r.MaxTokens,
		Temperature:        r.Temperature,
		TopP:               r.TopP,
		Stream:             true,
		StreamOptions:      map[string]any{"include_usage": true},
		ChatTemplateKwargs: r.ChatTemplateKwargs,
		ReasoningEffort:    r.ReasoningEffort,
	})
	if err != nil {
		return nil, fmt.Errorf("encode chat request: %w", err)
	}
	return b, nil
}
