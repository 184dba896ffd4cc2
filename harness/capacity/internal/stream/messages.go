package stream

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/anvilbench/anvilbench/harness/secret"
	"github.com/anvilbench/anvilbench/internal/wire"
)

// APIMessages is Anthropic's Messages API, /v1/messages: content blocks, typed events.
const APIMessages API = "messages"

func init() { register(APIMessages, messages{}, 3) }

var messagesTools = toolForm{"messages", `{"name":`, `,"input_schema":`, "}"}

// messagesImages are the Messages API's content blocks: image blocks of base64 source, then
// the text block.
var messagesImages = imageForm{text: `{"type":"text","text":`, image: func(dst []byte, img Image) []byte {
	dst = append(dst, `{"type":"image","source":{"type":"base64","media_type":`...)
	dst = wire.AppendString(dst, img.MediaType)
	dst = append(dst, `,"data":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, img.Data)
	return append(dst, `"}}`...)
}}

// messages is Anthropic's Messages API: the system message apart, content blocks and
// typed events, message_stop at the end.
type messages struct{ openAIStyle }

// messagesState is a Messages API stream's own state: its event decoder, and the counts
// so far of usage that arrives in parts (-1 unknown).
type messagesState struct {
	ev                         wire.MessagesEvent
	prompt, cached, completion int
}

// start forgets the previous stream's counts.
func (messages) start(st *streamState) {
	ms := ownState[messagesState](st)
	ms.prompt, ms.cached, ms.completion = -1, -1, -1
}

func (messages) path() string { return "/messages" }

// supports: no reasoning effort (thinking is switched by thinking_mode).
func (messages) supports() Support {
	return Support{Conversation: true, Tools: true, Images: true, ProbeTokens: 1}
}

// header names the API's version, and sends the key in a header of its own too.
func (messages) header(dst []byte, key secret.Secret) []byte {
	dst = append(dst, "anthropic-version: 2023-06-01\r\n"...)
	if key.IsSet() {
		dst = append(dst, "x-api-key: "...)
		dst = append(dst, key.Reveal()...)
		dst = append(dst, "\r\n"...)
	}
	return dst
}

// body appends the rest of a Messages API body after its model: max_tokens, the
// system message apart, the conversation, the tools with their input_schema, and the
// schema as output_config.format (Anthropic's structured outputs).
func (messages) body(r ChatRequest, dst []byte) ([]byte, error) {
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
	dst = r.appendConversation(dst, false, messagesImages)
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

// fold folds one Messages API event into res; terminal reports message_stop.
func (messages) fold(st *streamState, s *settings, data []byte, res *Result, at time.Duration) (terminal bool, err error) {
	ev := &ownState[messagesState](st).ev
	if err := s.decodeEvent(ev, data, res.Events); err != nil {
		return false, err
	}
	switch ev.Type {
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			res.output(at, "", ev.Delta.Text)
		case "thinking_delta":
			res.output(at, ev.Delta.Thinking, "")
		case "input_json_delta":
			res.toolOutput(at, indexOf(ev.Index), ev.Delta.PartialJSON)
		}
	case "content_block_start":
		if b := ev.ContentBlock; b != nil {
			switch b.Type {
			case "tool_use":
				res.toolOpened(at, indexOf(ev.Index), b.ID, b.Name)
			case "text":
				res.output(at, "", b.Text)
			}
		}
	case "message_start":
		if m := ev.Message; m != nil {
			if res.Model == "" && m.Model != "" {
				res.Model = st.name(m.Model)
			}
			st.messagesUsage(res, m.Usage)
		}
	case "message_delta":
		st.messagesUsage(res, ev.Usage)
		if r := ev.Delta.StopReason; r != nil {
			res.addFinish(stopReason(*r))
		}
	case "message_stop":
		return true, nil
	case "error":
		return false, &Error{Kind: KindServerError, Message: "server error in stream: " + clip(string(ev.Error))}
	}
	return false, nil
}

// messagesUsage folds a Messages API usage object into res's usage: the prompt is the
// input tokens with what the cache read and wrote; output tokens are cumulative.
func (st *streamState) messagesUsage(res *Result, u *wire.MessagesUsage) {
	if u == nil {
		return
	}
	e := ownState[messagesState](st)
	if u.InputTokens != nil {
		e.prompt = *u.InputTokens
		for _, extra := range []*int{u.CacheReadInputTokens, u.CacheCreationInputTokens} {
			if extra != nil {
				e.prompt += *extra
			}
		}
	}
	if u.CacheReadInputTokens != nil {
		e.cached = *u.CacheReadInputTokens
	}
	if u.OutputTokens != nil {
		e.completion = *u.OutputTokens
	}
	known := func(v int) *int {
		if v < 0 {
			return nil
		}
		return &v
	}
	var total *int
	if e.prompt >= 0 && e.completion >= 0 {
		total = known(e.prompt + e.completion)
	}
	res.setUsage(st.ev.chatUsage(known(e.prompt), known(e.completion), total, known(e.cached), nil))
}

// stopReason is a Messages API stop_reason as the chat API's finish_reason.
func stopReason(r string) string {
	switch r {
	case "end_turn", "stop_sequence":
		return "stop"
	case "max_tokens":
		return "length"
	case "tool_use":
		return "tool_calls"
	}
	return r
}
