package refengine

import (
	"encoding/json"
	"strconv"

	"github.com/anvilbench/anvilbench/internal/wire"
)

func init() { registerTyped(surfaceResponses, "/v1/responses", responsesAPI{}) }

// responsesAPI is OpenAI's Responses API, /v1/responses, as vLLM and Ollama stream it:
// numbered events, output items opened and closed around their deltas, and the response
// object with its usage at the start and the end.
type responsesAPI struct{}

func (responsesAPI) name() string { return "Responses" }

func (responsesAPI) tool(typ string) error {
	if typ != "function" {
		return errBadRequest("tools must be functions, got type %q.", typ)
	}
	return nil
}

func (responsesAPI) toolChoice(typ, name string) (json.RawMessage, bool) {
	if typ == "function" {
		return namedChoice(name), true
	}
	return nil, false
}

func (responsesAPI) request(t *typedRequest, req *genRequest) error {
	if err := t.input(req); err != nil {
		return err
	}
	req.MaxTokens = t.MaxOutputTokens
	if t.Text != nil && t.Text.Format != nil {
		req.ResponseFormat = responseFormat(t.Text.Format.Type)
	}
	if t.Reasoning != nil && t.Reasoning.Effort != "" {
		req.ReasoningEffort, _ = json.Marshal(t.Reasoning.Effort)
	}
	return nil
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

func (responsesAPI) stamp(e *typedEncoder, b []byte) []byte {
	b = append(b, `,"sequence_number":`...)
	b = strconv.AppendInt(b, int64(e.seq), 10)
	e.seq++
	return b
}

// responseObject appends the response object of status with its usage (nil: null).
func (responsesAPI) responseObject(e *typedEncoder, b []byte, status string, u *usageCounts) []byte {
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

// opening is response.created and response.in_progress.
func (r responsesAPI) opening(e *typedEncoder, b []byte) []byte {
	for _, typ := range []string{"response.created", "response.in_progress"} {
		b = e.event(b, typ, func(b []byte) []byte { return r.responseObject(e, b, "in_progress", nil) })
	}
	return b
}

func (responsesAPI) blockStart(e *typedEncoder, b []byte, kind, callID, name string) []byte {
	return e.event(b, "response.output_item.added", func(b []byte) []byte {
		b = e.indexed(b, `"output_index":`)
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

func (responsesAPI) blockStop(e *typedEncoder, b []byte, kind string) []byte {
	return e.event(b, "response.output_item.done", func(b []byte) []byte {
		b = e.indexed(b, `"output_index":`)
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

func (responsesAPI) deltaType(kind string) string {
	switch kind {
	case "reasoning":
		return "response.reasoning_text.delta"
	case "tool":
		return "response.function_call_arguments.delta"
	}
	return "response.output_text.delta"
}

func (responsesAPI) deltaBody(e *typedEncoder, b []byte, kind string, str func([]byte) []byte) []byte {
	b = e.indexed(b, `"output_index":`)
	if kind == "text" {
		b = append(b, `,"content_index":0`...)
	}
	b = append(b, `,"delta":`...)
	return str(b)
}

// ending is response.completed, or response.incomplete when cut at max_output_tokens.
func (r responsesAPI) ending(e *typedEncoder, b []byte, u *usageCounts) []byte {
	status, typ := "completed", "response.completed"
	if e.finish == finishLength {
		status, typ = "incomplete", "response.incomplete"
	}
	return e.event(b, typ, func(b []byte) []byte { return r.responseObject(e, b, status, u) })
}

func (responsesAPI) last(_ *typedEncoder, b []byte) []byte { return b }

func (responsesAPI) errorEvent() []byte {
	return []byte("event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"engine crashed\"}\n\n")
}
