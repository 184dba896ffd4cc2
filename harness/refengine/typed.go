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

func init() {
	for api, path := range map[surface]string{surfaceResponses: "/v1/responses", surfaceMessages: "/v1/messages"} {
		registerSurface(api, surfaceDef{path: path, read: (*Server).readTyped,
			encoder: func(g *run, index int) encoder {
				return newTypedEncoder(g.j.api, strconv.Itoa(index), g.j.model, g.j.promptTokens)
			}})
	}
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
func (t *typedRequest) chatRequest(api surface) (genRequest, error) {
	req := genRequest{Model: t.Model, Temperature: t.Temperature, TopP: t.TopP, Stream: t.Stream, ChatTemplateKwargs: t.ChatTemplateKwargs}
	req.StreamOptions = &struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	}{IncludeUsage: true}
	for _, tool := range t.Tools {
		if api == surfaceResponses && tool.Type != "function" {
			return req, errBadRequest("tools must be functions, got type %q.", tool.Type)
		}
		var ct chatTool
		ct.Type, ct.Function.Name = "function", tool.Name
		req.Tools = append(req.Tools, ct)
	}
	choice, err := chatToolChoice(api, t.ToolChoice)
	if err != nil {
		return req, err
	}
	req.ToolChoice = choice
	switch api {
	case surfaceResponses:
		if err := t.input(&req); err != nil {
			return req, err
		}
		req.MaxTokens = t.MaxOutputTokens
		if t.Text != nil && t.Text.Format != nil {
			req.ResponseFormat = &struct {
				Type string `json:"type"`
			}{Type: t.Text.Format.Type}
		}
		if t.Reasoning != nil && t.Reasoning.Effort != "" {
			req.ReasoningEffort, _ = json.Marshal(t.Reasoning.Effort)
		}
	case surfaceMessages:
		if t.MaxTokens == nil {
			return req, errBadRequest("max_tokens is required.")
		}
		if t.System.text != "" {
			req.Messages = append(req.Messages, chatMessage{Role: "system", Content: t.System})
		}
		req.Messages = append(req.Messages, t.Messages...)
		req.MaxTokens = t.MaxTokens
		if oc := t.OutputConfig; oc != nil && oc.Format != nil {
			req.ResponseFormat = &struct {
				Type string `json:"type"`
			}{Type: oc.Format.Type}
		}
		if t.Thinking != nil && t.Thinking.Type == "enabled" {
			if req.ChatTemplateKwargs == nil {
				req.ChatTemplateKwargs = map[string]any{}
			}
			req.ChatTemplateKwargs["enable_thinking"] = true
		}
	}
	return req, nil
}

// input reads the Responses API's input: a string is one user message.
func (t *typedRequest) input(req *genRequest) error {
	if len(t.Input) == 0 || string(t.Input) == "null" {
		return errBadRequest("input is required.")
	}
	var text string
	if json.Unmarshal(t.Input, &text) == nil {
		req.Messages = []chatMessage{{Role: "user", Content: messageContent{text: text}}}
		return nil
	}
	if err := json.Unmarshal(t.Input, &req.Messages); err != nil {
		return errBadRequest("input must be a string or a list of messages: %v", err)
	}
	return nil
}

// chatToolChoice is a tool choice as chat has it: "none", "auto", "required", or
// {"function":{"name":...}}.
func chatToolChoice(api surface, raw json.RawMessage) (json.RawMessage, error) {
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
	named := func(name string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": name}})
		return b
	}
	switch {
	case api == surfaceResponses && c.Type == "function":
		return named(c.Name), nil
	case api == surfaceMessages && c.Type == "tool":
		return named(c.Name), nil
	case api == surfaceMessages && c.Type == "any":
		return json.RawMessage(`"required"`), nil
	case api == surfaceMessages && (c.Type == "auto" || c.Type == "none"):
		return json.Marshal(c.Type)
	}
	return nil, errBadRequest("tool_choice type %q is not supported.", c.Type)
}

// readTyped reads a Responses or Messages API body into the chat request it stands for.
func (s *Server) readTyped(w http.ResponseWriter, r *http.Request, api surface) (genRequest, error) {
	var t typedRequest
	if ae := s.readRequest(w, r, &t, &t.Model); ae != nil {
		return genRequest{}, ae
	}
	if !t.Stream {
		return genRequest{}, errBadRequest("this engine serves the %s API streamed only: set stream to true.", map[surface]string{surfaceResponses: "Responses", surfaceMessages: "Messages"}[api])
	}
	return t.chatRequest(api)
}

// typedEncoder builds the events of a Responses or Messages API stream: named SSE events
// ("event: type\ndata: {...}"), a block opened before its first delta and closed when the
// reply turns from reasoning to text or ends, and the usage in the ending events, as
// Ollama and vLLM send them. The returned slice is valid until the next call.
type typedEncoder struct {
	api        surface
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

func newTypedEncoder(api surface, id, model string, prompt int) *typedEncoder {
	return &typedEncoder{api: api, id: id, model: model, prompt: prompt, buf: make([]byte, 0, 512)}
}

// event appends one SSE event of the given type; body is the JSON object's members after
// the type (without braces).
func (e *typedEncoder) event(b []byte, typ string, body func([]byte) []byte) []byte {
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: {\"type\":"...)
	b = wire.AppendString(b, typ)
	if e.api == surfaceResponses {
		b = append(b, `,"sequence_number":`...)
		b = strconv.AppendInt(b, int64(e.seq), 10)
		e.seq++
	}
	if body != nil {
		b = append(b, ',')
		b = body(b)
	}
	return append(b, "}\n\n"...)
}

func (e *typedEncoder) responseObject(b []byte, status string, u *usageCounts) []byte {
	b = append(b, `"response":{"id":`...)
	b = wire.AppendString(b, "resp_"+e.id)
	b = append(b, `,"object":"response","model":`...)
	b = wire.AppendString(b, e.model)
	b = append(b, `,"status":`...)
	b = wire.AppendString(b, status)
	if status == "incomplete" {
		b = append(b, `,"incomplete_details":{"reason":"max_output_tokens"}`...)
	}
	b = append(b, `,"usage":`...)
	if u == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"input_tokens":`...)
		b = strconv.AppendInt(b, int64(u.prompt), 10)
		b = append(b, `,"input_tokens_details":{"cached_tokens":`...)
		b = strconv.AppendInt(b, int64(max(u.cached, 0)), 10)
		b = append(b, `},"output_tokens":`...)
		b = strconv.AppendInt(b, int64(u.completion), 10)
		b = append(b, `,"output_tokens_details":{"reasoning_tokens":`...)
		b = strconv.AppendInt(b, int64(max(u.reasoning, 0)), 10)
		b = append(b, `},"total_tokens":`...)
		b = strconv.AppendInt(b, int64(u.prompt+u.completion), 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

// role opens the stream: response.created and response.in_progress, or message_start
// with the input tokens.
func (e *typedEncoder) role(*usageCounts) []byte {
	b := e.buf[:0]
	if e.api == surfaceResponses {
		for _, typ := range []string{"response.created", "response.in_progress"} {
			b = e.event(b, typ, func(b []byte) []byte { return e.responseObject(b, "in_progress", nil) })
		}
	} else {
		b = e.event(b, "message_start", func(b []byte) []byte {
			b = append(b, `"message":{"id":`...)
			b = wire.AppendString(b, "msg_"+e.id)
			b = append(b, `,"type":"message","role":"assistant","model":`...)
			b = wire.AppendString(b, e.model)
			b = append(b, `,"content":[],"usage":{"input_tokens":`...)
			b = strconv.AppendInt(b, int64(e.prompt), 10)
			return append(b, `,"output_tokens":0}}`...)
		})
	}
	e.buf = b
	return b
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
	idx := func(b []byte, key string) []byte {
		b = append(b, key...)
		return strconv.AppendInt(b, int64(e.index), 10)
	}
	if e.api == surfaceMessages {
		return e.event(b, "content_block_start", func(b []byte) []byte {
			b = idx(b, `"index":`)
			switch kind {
			case "reasoning":
				return append(b, `,"content_block":{"type":"thinking","thinking":""}`...)
			case "tool":
				b = append(b, `,"content_block":{"type":"tool_use","id":`...)
				b = wire.AppendString(b, callID)
				b = append(b, `,"name":`...)
				b = wire.AppendString(b, name)
				return append(b, `,"input":{}}`...)
			}
			return append(b, `,"content_block":{"type":"text","text":""}`...)
		})
	}
	return e.event(b, "response.output_item.added", func(b []byte) []byte {
		b = idx(b, `"output_index":`)
		switch kind {
		case "reasoning":
			return append(b, `,"item":{"type":"reasoning","id":"rs_0","summary":[]}`...)
		case "tool":
			b = append(b, `,"item":{"type":"function_call","id":"fc_0","status":"in_progress","call_id":`...)
			b = wire.AppendString(b, callID)
			b = append(b, `,"name":`...)
			b = wire.AppendString(b, name)
			return append(b, `,"arguments":""}`...)
		}
		return append(b, `,"item":{"type":"message","id":"msg_0","status":"in_progress","role":"assistant","content":[]}`...)
	})
}

// closeBlock closes the open block, if any.
func (e *typedEncoder) closeBlock(b []byte) []byte {
	if e.open == "" {
		return b
	}
	kind := e.open
	e.open = ""
	if e.api == surfaceMessages {
		return e.event(b, "content_block_stop", func(b []byte) []byte {
			b = append(b, `"index":`...)
			return strconv.AppendInt(b, int64(e.index), 10)
		})
	}
	return e.event(b, "response.output_item.done", func(b []byte) []byte {
		b = append(b, `"output_index":`...)
		b = strconv.AppendInt(b, int64(e.index), 10)
		switch kind {
		case "tool":
			b = append(b, `,"item":{"type":"function_call","status":"completed","arguments":`...)
			b = wire.AppendString(b, e.args)
			return append(b, '}')
		case "reasoning":
			return append(b, `,"item":{"type":"reasoning"}`...)
		}
		b = append(b, `,"item":{"type":"message","status":"completed","content":[{"type":"output_text","text":`...)
		b = wire.AppendString(b, e.said)
		return append(b, "}]}"...)
	})
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
		b = e.event(b, e.deltaType(kind), func(b []byte) []byte { return e.deltaBody(b, kind, text, raw) })
	}
	e.buf = b
	return b
}

func (e *typedEncoder) deltaType(kind string) string {
	switch {
	case e.api == surfaceMessages:
		return "content_block_delta"
	case kind == "reasoning":
		return "response.reasoning_text.delta"
	case kind == "tool":
		return "response.function_call_arguments.delta"
	}
	return "response.output_text.delta"
}

func (e *typedEncoder) deltaBody(b []byte, kind string, text []byte, raw string) []byte {
	str := func(b []byte) []byte {
		b = wire.AppendString(b, text)
		if raw != "" {
			b = append(b[:len(b)-1], raw...)
			b = append(b, '"')
		}
		return b
	}
	if e.api == surfaceResponses {
		b = append(b, `"output_index":`...)
		b = strconv.AppendInt(b, int64(e.index), 10)
		if kind == "text" {
			b = append(b, `,"content_index":0`...)
		}
		b = append(b, `,"delta":`...)
		return str(b)
	}
	b = append(b, `"index":`...)
	b = strconv.AppendInt(b, int64(e.index), 10)
	switch kind {
	case "reasoning":
		b = append(b, `,"delta":{"type":"thinking_delta","thinking":`...)
	case "tool":
		b = append(b, `,"delta":{"type":"input_json_delta","partial_json":`...)
	default:
		b = append(b, `,"delta":{"type":"text_delta","text":`...)
	}
	return append(str(b), '}')
}

// toolCall carries a fragment of the reply's call: the block opens with its name first.
func (e *typedEncoder) toolCall(first bool, id, name string, args []byte, finish string, _ *usageCounts) []byte {
	if finish != "" {
		e.finish = finish
	}
	b := e.switchTo(e.buf[:0], "tool", id, name)
	if len(args) > 0 {
		e.args = append(e.args, args...)
		b = e.event(b, e.deltaType("tool"), func(b []byte) []byte { return e.deltaBody(b, "tool", args, "") })
	}
	e.buf = b
	return b
}

// usageChunk ends the reply with its usage: response.completed (or incomplete, cut at
// max_output_tokens), or message_delta with the stop reason and the output tokens.
func (e *typedEncoder) usageChunk(u usageCounts) []byte { return e.end(&u) }

func (e *typedEncoder) end(u *usageCounts) []byte {
	b := e.closeBlock(e.buf[:0])
	e.ended = true
	if e.api == surfaceResponses {
		status, typ := "completed", "response.completed"
		if e.finish == finishLength {
			status, typ = "incomplete", "response.incomplete"
		}
		b = e.event(b, typ, func(b []byte) []byte { return e.responseObject(b, status, u) })
		e.buf = b
		return b
	}
	b = e.event(b, "message_delta", func(b []byte) []byte {
		b = append(b, `"delta":{"stop_reason":`...)
		b = wire.AppendString(b, stopReason(e.finish))
		b = append(b, `,"stop_sequence":null}`...)
		if u != nil {
			// Anthropic counts the prompt apart from what its cache read.
			cached := max(u.cached, 0)
			b = append(b, `,"usage":{"input_tokens":`...)
			b = strconv.AppendInt(b, int64(u.prompt-cached), 10)
			if u.cached >= 0 {
				b = append(b, `,"cache_read_input_tokens":`...)
				b = strconv.AppendInt(b, int64(cached), 10)
			}
			b = append(b, `,"output_tokens":`...)
			b = strconv.AppendInt(b, int64(u.completion), 10)
			b = append(b, '}')
		}
		return b
	})
	e.buf = b
	return b
}

// stopReason is a finish reason as the Messages API's stop_reason.
func stopReason(finish string) string {
	switch finish {
	case finishLength:
		return "max_tokens"
	case finishToolCalls:
		return "tool_use"
	}
	return "end_turn"
}

// done is the stream's last event: message_stop, after an ending without usage when none
// was sent.
func (e *typedEncoder) done() []byte {
	var b []byte
	if !e.ended {
		b = e.end(nil)
	}
	if e.api == surfaceMessages {
		b = e.event(b, "message_stop", nil)
	}
	e.buf = b
	return b
}

// errorEvent is the ErrorEvent fault's event: an SSE event named error.
func (e *typedEncoder) errorEvent() []byte {
	if e.api == surfaceMessages {
		return []byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"engine crashed\"}}\n\n")
	}
	return []byte("event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"engine crashed\"}\n\n")
}
