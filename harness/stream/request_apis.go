package stream

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// appendResponses appends the rest of a Responses API body after its model: the
// conversation as input items, max_output_tokens, the function tools (flat, as the
// Responses API has them) and the schema as text.format.
func (r ChatRequest) appendResponses(dst []byte) ([]byte, error) {
	dst = append(dst, `,"input":`...)
	dst = r.appendConversation(dst, true)
	dst = append(dst, `,"max_output_tokens":`...)
	dst = strconv.AppendInt(dst, int64(r.MaxTokens), 10)
	dst, err := r.appendSampling(dst)
	if err != nil {
		return nil, err
	}
	dst = append(dst, `,"stream":true`...)
	if dst, err = r.appendToolList(dst, responsesTools); err != nil {
		return nil, err
	}
	dst = r.appendToolChoice(dst, responsesTools)
	if dst, err = r.appendNamedFormat(dst, "responses", `,"text":{"format":{"type":"json_schema","name":`); err != nil {
		return nil, err
	}
	if dst, err = r.appendKwargs(dst); err != nil {
		return nil, err
	}
	if r.ReasoningEffort != "" {
		dst = append(dst, `,"reasoning":{"effort":`...)
		dst = wire.AppendString(dst, r.ReasoningEffort)
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

// appendMessages appends the rest of a Messages API body after its model: max_tokens, the
// system message apart, the conversation, the tools with their input_schema, and the
// schema as output_config.format (Anthropic's structured outputs).
func (r ChatRequest) appendMessages(dst []byte) ([]byte, error) {
	dst = append(dst, `,"max_tokens":`...)
	dst = strconv.AppendInt(dst, int64(r.MaxTokens), 10)
	for _, m := range r.History {
		if m.Role == "system" {
			dst = append(dst, `,"system":`...)
			dst = wire.AppendString(dst, m.Content)
			break
		}
	}
	dst = append(dst, `,"messages":`...)
	dst = r.appendConversation(dst, false)
	dst, err := r.appendSampling(dst)
	if err != nil {
		return nil, err
	}
	dst = append(dst, `,"stream":true`...)
	if dst, err = r.appendToolList(dst, messagesTools); err != nil {
		return nil, err
	}
	switch r.ToolChoice {
	case "":
	case "required":
		dst = append(dst, `,"tool_choice":{"type":"any"}`...)
	case "auto", "none":
		dst = append(dst, `,"tool_choice":{"type":`...)
		dst = wire.AppendString(dst, r.ToolChoice)
		dst = append(dst, '}')
	default:
		dst = append(dst, `,"tool_choice":{"type":"tool","name":`...)
		dst = wire.AppendString(dst, r.ToolChoice)
		dst = append(dst, '}')
	}
	if f := r.ResponseFormat; f != nil {
		if !json.Valid(f.Schema) {
			return nil, fmt.Errorf("encode messages request: response format %q: the schema is not JSON", f.Name)
		}
		dst = append(dst, `,"output_config":{"format":{"type":"json_schema","schema":`...)
		dst = append(dst, f.Schema...)
		dst = append(dst, "}}"...)
	}
	if dst, err = r.appendKwargs(dst); err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// toolForm is how an API writes a function tool: what opens it up to its name, the key of
// its arguments' schema, what closes it.
type toolForm struct{ api, open, schema, close string }

var (
	chatTools      = toolForm{"chat", `{"type":"function","function":{"name":`, `,"parameters":`, "}}"}
	responsesTools = toolForm{"responses", `{"type":"function","name":`, `,"parameters":`, "}"}
	messagesTools  = toolForm{"messages", `{"name":`, `,"input_schema":`, "}"}
)

// appendToolChoice appends the tool choice as chat and the Responses API write it:
// "required", "auto" and "none" as strings, a named function as its tool's opening, name
// and close.
func (r ChatRequest) appendToolChoice(dst []byte, f toolForm) []byte {
	switch r.ToolChoice {
	case "":
		return dst
	case "required", "auto", "none":
		dst = append(dst, `,"tool_choice":`...)
		return wire.AppendString(dst, r.ToolChoice)
	}
	dst = append(dst, `,"tool_choice":`...)
	dst = append(dst, f.open...)
	dst = wire.AppendString(dst, r.ToolChoice)
	return append(dst, f.close...)
}

// appendToolList appends the request's tools as "tools" in the API's form.
func (r ChatRequest) appendToolList(dst []byte, f toolForm) ([]byte, error) {
	for k, t := range r.Tools {
		if !json.Valid(t.Parameters) {
			return nil, fmt.Errorf("encode %s request: tool %q: parameters are not JSON", f.api, t.Name)
		}
		if k == 0 {
			dst = append(dst, `,"tools":[`...)
		} else {
			dst = append(dst, ',')
		}
		dst = append(dst, f.open...)
		dst = wire.AppendString(dst, t.Name)
		dst = append(dst, `,"description":`...)
		dst = wire.AppendString(dst, t.Description)
		dst = append(dst, f.schema...)
		dst = append(dst, t.Parameters...)
		dst = append(dst, f.close...)
		if k == len(r.Tools)-1 {
			dst = append(dst, ']')
		}
	}
	return dst, nil
}
