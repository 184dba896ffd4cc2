package refengine

import (
	"encoding/json"
	"strconv"

	"github.com/anvilbench/anvilbench/internal/wire"
)

func init() { registerTyped(surfaceMessages, "/v1/messages", messagesAPI{}) }

// messagesAPI is Anthropic's Messages API, /v1/messages, as vLLM and Ollama stream it:
// message_start with the input tokens, content blocks opened and closed around their
// deltas, message_delta with the stop reason and usage, then message_stop.
type messagesAPI struct{}

func (messagesAPI) name() string      { return "Messages" }
func (messagesAPI) tool(string) error { return nil }

func (messagesAPI) toolChoice(typ, name string) (json.RawMessage, bool) {
	switch typ {
	case "tool":
		return namedChoice(name), true
	case "any":
		return json.RawMessage(`"required"`), true
	case "auto", "none":
		b, _ := json.Marshal(typ)
		return b, true
	}
	return nil, false
}

func (messagesAPI) request(t *typedRequest, req *genRequest) error {
	if t.MaxTokens == nil {
		return errBadRequest("max_tokens is required.")
	}
	if t.System.text != "" {
		req.Messages = append(req.Messages, chatMessage{Role: "system", Content: t.System})
	}
	req.Messages = append(req.Messages, t.Messages...)
	req.MaxTokens = t.MaxTokens
	if oc := t.OutputConfig; oc != nil && oc.Format != nil {
		req.ResponseFormat = responseFormat(oc.Format.Type)
	}
	if t.Thinking != nil && t.Thinking.Type == "enabled" {
		if req.ChatTemplateKwargs == nil {
			req.ChatTemplateKwargs = map[string]any{}
		}
		req.ChatTemplateKwargs["enable_thinking"] = true
	}
	return nil
}

func (messagesAPI) stamp(_ *typedEncoder, b []byte) []byte { return b }

// opening is message_start with the input tokens.
func (messagesAPI) opening(e *typedEncoder, b []byte) []byte {
	return e.event(b, "message_start", func(b []byte) []byte {
		b = append(b, `"message":{"id":`...)
		b = wire.AppendString(b, "msg_"+e.id)
		b = append(b, `,"type":"message","role":"assistant","model":`...)
		b = wire.AppendString(b, e.model)
		b = append(b, `,"content":[],"usage":{"input_tokens":`...)
		b = strconv.AppendInt(b, int64(e.prompt), 10)
		return append(b, `,"output_tokens":0}}`...)
	})
}

func (messagesAPI) blockStart(e *typedEncoder, b []byte, kind, callID, name string) []byte {
	return e.event(b, "content_block_start", func(b []byte) []byte {
		b = e.indexed(b, `"index":`)
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

func (messagesAPI) blockStop(e *typedEncoder, b []byte, _ string) []byte {
	return e.event(b, "content_block_stop", func(b []byte) []byte { return e.indexed(b, `"index":`) })
}

func (messagesAPI) deltaType(string) string { return "content_block_delta" }

func (messagesAPI) deltaBody(e *typedEncoder, b []byte, kind string, str func([]byte) []byte) []byte {
	b = e.indexed(b, `"index":`)
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

// ending is message_delta with the stop reason and, when given, the usage: Anthropic counts
// the prompt apart from what its cache read.
func (messagesAPI) ending(e *typedEncoder, b []byte, u *usageCounts) []byte {
	return e.event(b, "message_delta", func(b []byte) []byte {
		b = append(b, `"delta":{"stop_reason":`...)
		b = wire.AppendString(b, stopReason(e.finish))
		b = append(b, `,"stop_sequence":null}`...)
		if u != nil {
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

func (messagesAPI) last(e *typedEncoder, b []byte) []byte { return e.event(b, "message_stop", nil) }

func (messagesAPI) errorEvent() []byte {
	return []byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"engine crashed\"}}\n\n")
}
