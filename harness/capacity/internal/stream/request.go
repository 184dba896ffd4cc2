package stream

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/internal/wire"
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
	// API is the protocol the request speaks (APIChat when empty): where it goes and how
	// its body is written.
	API API
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
	// IncludeMetrics asks a chat or completions engine for its own account of the
	// request's time in the last chunk (vLLM's include_metrics).
	IncludeMetrics bool
	// Images go with the prompt, before its text, as the API's image parts.
	Images []Image
	// Priority is sent as the request's priority (vLLM's and SGLang's field; lower is
	// served first); nil sends none.
	Priority *int
}

// Image is an encoded image and its media type ("image/png").
type Image struct {
	MediaType string
	Data      []byte
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
func (r ChatRequest) Path() string { return r.API.Path() }

// appendNamedFormat appends the response format, if any, as chat writes it (and APIs of
// its form): open, then its name, schema and strictness, closing two objects.
func (r ChatRequest) appendNamedFormat(dst []byte, api, open string) ([]byte, error) {
	f := r.ResponseFormat
	if f == nil {
		return dst, nil
	}
	if !json.Valid(f.Schema) {
		return nil, fmt.Errorf("encode %s request: response format %q: the schema is not JSON", api, f.Name)
	}
	dst = append(dst, open...)
	dst = wire.AppendString(dst, f.Name)
	dst = append(dst, `,"schema":`...)
	dst = append(dst, f.Schema...)
	dst = append(dst, `,"strict":`...)
	dst = strconv.AppendBool(dst, f.Strict)
	return append(dst, "}}"...), nil
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
	return r.API.proto().body(r, dst)
}

// appendConversation appends the history and the prompt as an array of messages, the
// prompt's images in the API's form; with system false a system message is left out (for
// an API that takes it apart).
func (r ChatRequest) appendConversation(dst []byte, system bool, form imageForm) []byte {
	dst = append(dst, '[')
	for _, m := range r.History {
		if !system && m.Role == "system" {
			continue
		}
		dst = append(dst, `{"role":`...)
		dst = wire.AppendString(dst, m.Role)
		dst = append(dst, `,"content":`...)
		dst = wire.AppendString(dst, m.Content)
		dst = append(dst, "},"...)
	}
	dst = append(dst, `{"role":"user","content":`...)
	dst = form.appendContent(dst, r.Prompt, r.Images)
	return append(dst, "}]"...)
}

// imageForm is how an API writes a user message's images: as content parts before the
// text part (image and text parts), or beside a text content (Ollama's images member).
type imageForm struct {
	// text opens a text part; image writes one image part.
	text  string
	image func(dst []byte, img Image) []byte
	// beside writes the images as base64 strings in an "images" member after the content.
	beside bool
}

// appendContent appends a user message's content member's value, and what goes beside it.
func (f imageForm) appendContent(dst []byte, text string, images []Image) []byte {
	if len(images) == 0 || (f.image == nil && !f.beside) {
		return wire.AppendString(dst, text)
	}
	if f.beside {
		dst = wire.AppendString(dst, text)
		dst = append(dst, `,"images":[`...)
		for k, img := range images {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '"')
			dst = base64.StdEncoding.AppendEncode(dst, img.Data)
			dst = append(dst, '"')
		}
		return append(dst, ']')
	}
	dst = append(dst, '[')
	for _, img := range images {
		dst = f.image(dst, img)
		dst = append(dst, ',')
	}
	dst = append(dst, f.text...)
	dst = wire.AppendString(dst, text)
	return append(dst, "}]"...)
}

// appendDataURL appends img as a quoted data URL.
func appendDataURL(dst []byte, img Image) []byte {
	dst = append(dst, `"data:`...)
	dst = append(dst, img.MediaType...)
	dst = append(dst, ";base64,"...)
	dst = base64.StdEncoding.AppendEncode(dst, img.Data)
	return append(dst, '"')
}

// appendSampling appends temperature and top_p when set.
func (r ChatRequest) appendSampling(dst []byte) ([]byte, error) {
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
	return dst, nil
}

// appendKwargs appends chat_template_kwargs when set.
func (r ChatRequest) appendKwargs(dst []byte) ([]byte, error) {
	if len(r.ChatTemplateKwargs) == 0 {
		return dst, nil
	}
	kwargs, err := json.Marshal(r.ChatTemplateKwargs)
	if err != nil {
		return nil, fmt.Errorf("encode chat request: %w", err)
	}
	dst = append(dst, `,"chat_template_kwargs":`...)
	return append(dst, kwargs...), nil
}
