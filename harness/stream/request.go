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
	// History is sent before the prompt in a chat request: a system message, then the
	// earlier turns of a conversation, in order.
	History []Message
	// Tools offers functions to call; ToolChoice is sent with them: "required", "auto",
	// "none", or the name of the one function to call.
	Tools      []Tool
	ToolChoice string
	// ResponseFormat, when set, asks for JSON that matches a schema.
	ResponseFormat *JSONSchema
}

// Message is one message of a conversation: a role (system, user, assistant) and its text.
type Message struct {
	Role, Content string
}

// Tool is a function a request offers: its name, what it does, and the JSON schema of its
// arguments.
type Tool struct {
	Name, Description string
	Parameters        json.RawMessage
}

// JSONSchema is a response_format of type json_schema: a name and the schema the answer
// must match, strictly when Strict.
type JSONSchema struct {
	Name   string
	Schema json.RawMessage
	Strict bool
}

// Path is where the request goes under the base URL.
func (r ChatRequest) Path() string {
	if r.Legacy {
		return CompletionsPath
	}
	return ChatPath
}

// appendTools appends the tools, the tool choice and the response format.
func (r ChatRequest) appendTools(dst []byte) ([]byte, error) {
	for k, t := range r.Tools {
		if !json.Valid(t.Parameters) {
			return nil, fmt.Errorf("encode chat request: tool %q: parameters are not JSON", t.Name)
		}
		if k == 0 {
			dst = append(dst, `,"tools":[`...)
		} else {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":"function","function":{"name":`...)
		dst = wire.AppendString(dst, t.Name)
		dst = append(dst, `,"description":`...)
		dst = wire.AppendString(dst, t.Description)
		dst = append(dst, `,"parameters":`...)
		dst = append(dst, t.Parameters...)
		dst = append(dst, "}}"...)
		if k == len(r.Tools)-1 {
			dst = append(dst, ']')
		}
	}
	switch r.ToolChoice {
	case "":
	case "required", "auto", "none":
		dst = append(dst, `,"tool_choice":`...)
		dst = wire.AppendString(dst, r.ToolChoice)
	default:
		dst = append(dst, `,"tool_choice":{"type":"function","function":{"name":`...)
		dst = wire.AppendString(dst, r.ToolChoice)
		dst = append(dst, "}}"...)
	}
	if f := r.ResponseFormat; f != nil {
		if !json.Valid(f.Schema) {
			return nil, fmt.Errorf("encode chat request: response format %q: the schema is not JSON", f.Name)
		}
		dst = append(dst, `,"response_format":{"type":"json_schema","json_schema":{"name":`...)
		dst = wire.AppendString(dst, f.Name)
		dst = append(dst, `,"schema":`...)
		dst = append(dst, f.Schema...)
		dst = append(dst, `,"strict":`...)
		dst = strconv.AppendBool(dst, f.Strict)
		dst = append(dst, "}}"...)
	}
	return dst, nil
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
		dst = append(dst, `,"messages":[`...)
		for _, m := range r.History {
			dst = append(dst, `{"role":`...)
			dst = wire.AppendString(dst, m.Role)
			dst = append(dst, `,"content":`...)
			dst = wire.AppendString(dst, m.Content)
			dst = append(dst, "},"...)
		}
		dst = append(dst, `{"role":"user","content":`...)
		dst = wire.AppendString(dst, r.Prompt)
		dst = append(dst, "}]"...)
		var err error
		if dst, err = r.appendTools(dst); err != nil {
			return nil, err
		}
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
