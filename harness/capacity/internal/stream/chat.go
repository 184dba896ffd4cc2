package stream

import (
	"fmt"
	"strconv"
	"time"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// APIChat is OpenAI's /v1/chat/completions: the prompt as a user message.
const APIChat API = "chat"

func init() { register(APIChat, chat{}, 0) }

var chatTools = toolForm{"chat", `{"type":"function","function":{"name":`, `,"parameters":`, "}}"}

// chatImages are chat's content parts: image_url parts holding a data URL, then the text.
var chatImages = imageForm{text: `{"type":"text","text":`, image: func(dst []byte, img Image) []byte {
	dst = append(dst, `{"type":"image_url","image_url":{"url":`...)
	return append(appendDataURL(dst, img), "}}"...)
}}

// chat is OpenAI's chat completions: messages in, chunks of choices out, [DONE] at the end.
type chat struct{ openAIStyle }

func (chat) path() string { return "/chat/completions" }
func (chat) supports() Support {
	return Support{Conversation: true, Tools: true, ReasoningEffort: true, Images: true, Priority: true, ProbeTokens: 1}
}

func (chat) body(r ChatRequest, dst []byte) ([]byte, error) {
	dst = append(dst, `,"messages":`...)
	dst = r.appendConversation(dst, true, chatImages)
	dst, err := r.appendToolList(dst, chatTools)
	if err != nil {
		return nil, err
	}
	dst = r.appendToolChoice(dst, chatTools)
	if dst, err = r.appendNamedFormat(dst, "chat", `,"response_format":{"type":"json_schema","json_schema":{"name":`); err != nil {
		return nil, err
	}
	return r.appendChatTail(dst)
}

// appendChatTail appends what chat and completions share after their input: max_tokens,
// sampling, stream_options asking for usage, chat_template_kwargs and reasoning_effort.
func (r ChatRequest) appendChatTail(dst []byte) ([]byte, error) {
	dst = append(dst, `,"max_tokens":`...)
	dst = strconv.AppendInt(dst, int64(r.MaxTokens), 10)
	dst, err := r.appendSampling(dst)
	if err != nil {
		return nil, err
	}
	dst = append(dst, `,"stream":true,"stream_options":{"include_usage":true`...)
	if r.ContinuousUsage {
		dst = append(dst, `,"continuous_usage_stats":true`...)
	}
	dst = append(dst, '}')
	if dst, err = r.appendKwargs(dst); err != nil {
		return nil, err
	}
	if r.ReasoningEffort != "" {
		dst = append(dst, `,"reasoning_effort":`...)
		dst = wire.AppendString(dst, r.ReasoningEffort)
	}
	if r.IncludeMetrics {
		dst = append(dst, `,"include_metrics":true`...)
	}
	if r.Priority != nil {
		dst = append(dst, `,"priority":`...)
		dst = strconv.AppendInt(dst, int64(*r.Priority), 10)
	}
	return append(dst, '}'), nil
}

// fold decodes one chunk into res; chat ends with [DONE], which consume takes.
func (chat) fold(st *streamState, s *settings, data []byte, res *Result, at time.Duration) (bool, error) {
	ch := &st.ch
	var err error
	if s.jsonOnly {
		err = ch.DecodeJSON(data)
	} else {
		err = ch.Decode(data)
	}
	if err != nil {
		return false, &Error{Kind: KindMalformed, Message: fmt.Sprintf("event %d is not a JSON chunk: %v", res.Events, err), Err: err}
	}
	if msg, ok := chunkError(ch); ok {
		return false, &Error{Kind: KindServerError, Message: "server error in stream: " + msg}
	}
	if res.Model == "" && ch.Model != "" {
		res.Model = st.name(ch.Model)
	}
	res.observe(ch, at)
	return false, nil
}
