package refengine

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// The surfaces a generation request arrives on.
type surface uint8

const (
	surfaceChat        surface = iota // /v1/chat/completions
	surfaceCompletions                // /v1/completions
	surfaceResponses                  // OpenAI's Responses API, /v1/responses
	surfaceMessages                   // Anthropic's Messages API, /v1/messages
	surfaceOllama                     // Ollama's native chat, /api/chat (ollama.go)
)

// A dialect is what one typed API (Responses, Messages: responses.go, messages.go) makes
// of a request and of its stream's events; the rest of either is shared here.
type dialect interface {
	// name is the API's, for messages ("Responses").
	name() string
	// request reads its own fields of t into chat's req; tool checks a tool's type.
	request(t *typedRequest, req *genRequest) error
	tool(typ string) error
	// toolChoice is a tool choice object of its own in chat's form; false when not one.
	toolChoice(typ, name string) (json.RawMessage, bool)
	// stamp appends what every event carries after its type (Responses: a sequence number).
	stamp(e *typedEncoder, b []byte) []byte
	// opening opens the stream; blockStart and blockStop open and close a block of kind
	// ("reasoning", "text", "tool"); deltaType and deltaBody are a block's delta event,
	// str appending its text; ending ends the reply with its usage (nil: none); last is
	// the stream's last event, if it has one; errorEvent the ErrorEvent fault's event.
	opening(e *typedEncoder, b []byte) []byte
	blockStart(e *typedEncoder, b []byte, kind, callID, name string) []byte
	blockStop(e *typedEncoder, b []byte, kind string) []byte
	deltaType(kind string) string
	deltaBody(e *typedEncoder, b []byte, kind string, str func([]byte) []byte) []byte
	ending(e *typedEncoder, b []byte, u *usageCounts) []byte
	last(e *typedEncoder, b []byte) []byte
	errorEvent() []byte
}

// dialects are the typed APIs, by surface.
var dialects = map[surface]dialect{}

// registerTyped registers a typed API's surface at path, read and written by d.
func registerTyped(api surface, path string, d dialect) {
	dialects[api] = d
	registerSurface(api, surfaceDef{path: path, read: (*Server).readTyped,
		encoder: func(g *run, index int) encoder {
			return newTypedEncoder(d, strconv.Itoa(index), g.j.model, g.j.promptTokens)
		}})
}

// typedRequest is the subset of a Responses or Messages API body that matters; it is read
// into a genRequest, which the rest of the engine serves.
type typedRequest struct {
	Model string `json:"model"`
	// Input is the Responses API's: a string, or message items.
	Input json.RawMessage `json:"input"`
	// Messages and System are the Messages API's; its system prompt is apart.
	Messages        []chatMessage  `json:"messages"`
	System          messageContent `json:"system"`
	MaxOutputTokens *int           `json:"max_output_tokens"`
	MaxTokens       *int           `json:"max_tokens"`
	Temperature     *float64       `json:"temperature"`
	TopP            *float64       `json:"top_p"`
	Stream          bool           `json:"stream"`
	// Tools are flat on both APIs: a name, with type "function" on the Responses API.
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
	Text       *struct {
		Format *struct {
			Type string `json:"type"`
		} `json:"format"`
	} `json:"text"`
	Reasoning *struct {
		Effort string `json:"effort"`
	} `json:"reasoning"`
	Thinking *struct {
		Type string `json:"type"`
	} `json:"thinking"`
	// OutputConfig is the Messages API's structured output: format.type json_schema.
	OutputConfig *struct {
		Format *struct {
			Type string `json:"type"`
		} `json:"format"`
	} `json:"output_config"`
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs"`
}

// chatRequest is t as the chat request the engine serves: its messages, max tokens, tools,
// tool choice, schema and thinking in chat's form. Errors are *apiError.
func (t *typedRequest) chatRequest(d dialect) (genRequest, error) {
	req := genRequest{Model: t.Model, Temperature: t.Temperature, TopP: t.TopP, Stream: t.Stream, ChatTemplateKwargs: t.ChatTemplateKwargs}
	req.StreamOptions = &struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	}{IncludeUsage: true}
	for _, tool := range t.Tools {
		if err := d.tool(tool.Type); err != nil {
			return req, err
		}
		var ct chatTool
		ct.Type, ct.Function.Name = "function", tool.Name
		req.Tools = append(req.Tools, ct)
	}
	choice, err := chatToolChoice(d, t.ToolChoice)
	if err != nil {
		return req, err
	}
	req.ToolChoice = choice
	return req, d.request(t, &req)
}

// responseFormat is a structured output's type in chat's form.
func responseFormat(typ string) *struct {
	Type string `json:"type"`
} {
	return &struct {
		Type string `json:"type"`
	}{Type: typ}
}

// chatToolChoice is a tool choice as chat has it: "none", "auto", "required", or
// {"function":{"name":...}}.
func chatToolChoice(d dialect, raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return raw, nil // the Responses API's strings are chat's
	}
	var c struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, errBadRequest("tool_choice: %v", err)
	}
	if choice, ok := d.toolChoice(c.Type, c.Name); ok {
		return choice, nil
	}
	return nil, errBadRequest("tool_choice type %q is not supported.", c.Type)
}

// namedChoice is chat's tool choice of the function name.
func namedChoice(name string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": name}})
	return b
}

// readTyped reads a Responses or Messages API body into the chat request it stands for.
func (s *Server) readTyped(w http.ResponseWriter, r *http.Request, api surface) (genRequest, error) {
	var t typedRequest
	if ae := s.readRequest(w, r, &t, &t.Model); ae != nil {
		return genRequest{}, ae
	}
	d := dialects[api]
	if !t.Stream {
		return genRequest{}, errBadRequest("this engine serves the %s API streamed only: set stream to true.", d.name())
	}
	return t.chatRequest(d)
}

// typedEncoder builds the events of a Responses or Messages API stream: named SSE events
// ("event: type\ndata: {...}"), a block opened before its first delta and closed when the
// reply turns from reasoning to text or ends, and the usage in the ending events, as
// Ollama and vLLM send them. The returned slice is valid until the next call.
type typedEncoder struct {
	d          dialect
	buf        []byte
	id, model  string
	prompt     int
	seq        int    // the Responses API's sequence_number
	open       string // the open block: "reasoning", "text", "tool" or ""
	index      int    // the open block's output or content index
	next       int    // the next block's index
	finish     string
	ended      bool
	said, args []byte // the open block's text so far, for the Responses API's done events
}

func newTypedEncoder(d dialect, id, model string, prompt int) *typedEncoder {
	return &typedEncoder{d: d, id: id, model: model, prompt: prompt, buf: make([]byte, 0, 512)}
}

// event appends one SSE event of the given type; body is the JSON object's members after
// the type (without braces).
func (e *typedEncoder) event(b []byte, typ string, body func([]byte) []byte) []byte {
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: {\"type\":"...)
	b = wire.AppendString(b, typ)
	b = e.d.stamp(e, b)
	if body != nil {
		b = append(b, ',')
		b = body(b)
	}
	return append(b, "}\n\n"...)
}

// role opens the stream.
func (e *typedEncoder) role(*usageCounts) []byte {
	e.buf = e.d.opening(e, e.buf[:0])
	return e.buf
}

// indexed appends key and the open block's index.
func (e *typedEncoder) indexed(b []byte, key string) []byte {
	b = append(b, key...)
	return strconv.AppendInt(b, int64(e.index), 10)
}

// switchTo closes the open block when it is not kind and opens kind (a function call
// named name, for a tool), appending to b.
func (e *typedEncoder) switchTo(b []byte, kind, callID, name string) []byte {
	if e.open == kind {
		return b
	}
	b = e.closeBlock(b)
	e.open, e.index, e.said, e.args = kind, e.next, e.said[:0], e.args[:0]
	e.next++
	return e.d.blockStart(e, b, kind, callID, name)
}

// closeBlock closes the open block, if any.
func (e *typedEncoder) closeBlock(b []byte) []byte {
	if e.open == "" {
		return b
	}
	kind := e.open
	e.open = ""
	return e.d.blockStop(e, b, kind)
}

// text carries text: reasoning or answer; raw is appended unescaped (InvalidUTF8).
func (e *typedEncoder) text(reasoning bool, text []byte, raw, finish string, _ *usageCounts) []byte {
	if finish != "" {
		e.finish = finish
	}
	kind := "text"
	if reasoning {
		kind = "reasoning"
	}
	b := e.switchTo(e.buf[:0], kind, "", "")
	if len(text) > 0 || raw != "" {
		if kind == "text" {
			e.said = append(e.said, text...)
		}
		b = e.delta(b, kind, text, raw)
	}
	e.buf = b
	return b
}

// delta appends a delta event of the open block of kind carrying text (raw unescaped).
func (e *typedEncoder) delta(b []byte, kind string, text []byte, raw string) []byte {
	str := func(b []byte) []byte {
		b = wire.AppendString(b, text)
		if raw != "" {
			b = append(b[:len(b)-1], raw...)
			b = append(b, '"')
		}
		return b
	}
	return e.event(b, e.d.deltaType(kind), func(b []byte) []byte { return e.d.deltaBody(e, b, kind, str) })
}

// toolCall carries a fragment of the reply's call: the block opens with its name first.
func (e *typedEncoder) toolCall(first bool, id, name string, args []byte, finish string, _ *usageCounts) []byte {
	if finish != "" {
		e.finish = finish
	}
	b := e.switchTo(e.buf[:0], "tool", id, name)
	if len(args) > 0 {
		e.args = append(e.args, args...)
		b = e.delta(b, "tool", args, "")
	}
	e.buf = b
	return b
}

// usageChunk ends the reply with its usage.
func (e *typedEncoder) usageChunk(u usageCounts) []byte { return e.end(&u) }

func (e *typedEncoder) end(u *usageCounts) []byte {
	b := e.closeBlock(e.buf[:0])
	e.ended = true
	e.buf = e.d.ending(e, b, u)
	return e.buf
}

// done is the stream's last event, after an ending without usage when none was sent.
func (e *typedEncoder) done() []byte {
	var b []byte
	if !e.ended {
		b = e.end(nil)
	}
	e.buf = e.d.last(e, b)
	return e.buf
}

// errorEvent is the ErrorEvent fault's event: an SSE event named error.
func (e *typedEncoder) errorEvent() []byte { return e.d.errorEvent() }
