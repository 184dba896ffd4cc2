package stream

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/internal/wire"
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

// Body encodes the request with stream: true and stream_options.include_usage, so the
// final chunk carries the server's token counts.
func (r ChatRequest) Body() ([]byte, error) { return r.AppendBody(nil) }

// AppendBody appends the JSON body (see Body) to dst, so a caller can encode requests
// into a recycled buffer: a 64k-token prompt is some 200 KB each time. It writes what
// json.Marshal of the request would mean, key for key, without its intermediate copies.
func (r ChatRequest) AppendBody(dst []byte) ([]byte, error) {
	dst = slices.Grow(dst, len(r.Prompt)+len(r.Prompt)/16+256)
	dst = append(dst, `{"model":`...)
	dst = wire.AppendString(dst, r.Model)
	if r.Legacy {
		if r.Prompt != "" {
			dst = append(dst, `,"prompt":`...)
			dst = wire.AppendString(dst, r.Prompt)
		}
	} else {
		dst = append(dst, `,"messages":[{"role":"user","content":`...)
		dst = wire.AppendString(dst, r.Prompt)
		dst = append(dst, "}]"...)
	}
	dst = append(dst, `,"max_tokens":`...)
	dst = strconv.AppendInt(dst, int64(r.MaxTokens), 10)
	for _, f := range []struct {
		key string
		v   *float64
	}{{`,"temperature":`, r.Temperature}, {`,"top_p":`, r.TopP}} {
		if f.v == nil {
			continue
		}
		if math.IsNaN(*f.v) || math.IsInf(*f.v, 0) {
			return nil, fmt.Errorf("encode chat request: %s is not a finite number", strings.Trim(f.key, `,":`))
		}
		dst = append(dst, f.key...)
		dst = strconv.AppendFloat(dst, *f.v, 'g', -1, 64)
	}
	dst = append(dst, `,"stream":true,"stream_options":{"include_usage":true`...)
	if r.ContinuousUsage {
		dst = append(dst, `,"continuous_usage_stats":true`...)
	}
	dst = append(dst, '}')
	if len(r.ChatTemplateKwargs) > 0 {
		kwargs, err := json.Marshal(r.ChatTemplateKwargs)
		if err != nil {
			return nil, fmt.Errorf("encode chat request: %w", err)
		}
		dst = append(dst, `,"chat_template_kwargs":`...)
		dst = append(dst, kwargs...)
	}
	if r.ReasoningEffort != "" {
		dst = append(dst, `,"reasoning_effort":`...)
		dst = wire.AppendString(dst, r.ReasoningEffort)
	}
	return append(dst, '}'), nil
}
