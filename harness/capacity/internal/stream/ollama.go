package stream

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// APIOllama is Ollama's native chat API, POST /api/chat beside its /v1: a JSON object a
// line, and in the last the engine's own token counts and phase durations.
const APIOllama API = "ollama"

func init() { register(APIOllama, ollama{}, 4) }

// ollama is Ollama's native chat API: chat's messages in, options for the sampling and the
// output length, one JSON object a line out, done: true on the last.
type ollama struct{ openAIStyle }

func (ollama) path() string      { return "/api/chat" }
func (ollama) rooted() bool      { return true }
func (ollama) mediaType() string { return ndjson }

// supports: tools and a schema (format), no reasoning effort (think is switched by
// thinking_mode).
func (ollama) supports() Support {
	return Support{Conversation: true, Tools: true, Images: true, ProbeTokens: 1}
}

// ollamaState is an Ollama stream's own state: its line decoder.
type ollamaState struct{ line wire.OllamaLine }

func (ollama) start(st *streamState) { ownState[ollamaState](st) }

// body appends the messages, stream, the tools in chat's form, the schema as format, think
// from the thinking switch, and the sampling and max_tokens as options (num_predict).
func (ollama) body(r ChatRequest, dst []byte) ([]byte, error) {
	dst = append(dst, `,"messages":`...)
	dst = r.appendConversation(dst, true, imageForm{beside: true})
	dst = append(dst, `,"stream":true`...)
	dst, err := r.appendToolList(dst, chatTools)
	if err != nil {
		return nil, err
	}
	if f := r.ResponseFormat; f != nil {
		if !json.Valid(f.Schema) {
			return nil, fmt.Errorf("encode ollama request: response format %q: the schema is not JSON", f.Name)
		}
		dst = append(dst, `,"format":`...)
		dst = append(dst, f.Schema...)
	}
	if think, ok := r.ChatTemplateKwargs["enable_thinking"].(bool); ok {
		dst = append(dst, `,"think":`...)
		dst = strconv.AppendBool(dst, think)
	}
	dst = append(dst, `,"options":{"num_predict":`...)
	dst = strconv.AppendInt(dst, int64(r.MaxTokens), 10)
	if dst, err = r.appendSampling(dst); err != nil {
		return nil, err
	}
	return append(dst, "}}"...), nil
}

// fold folds one line into res; terminal reports done: true.
func (ollama) fold(st *streamState, s *settings, data []byte, res *Result, at time.Duration) (bool, error) {
	l := &ownState[ollamaState](st).line
	if err := s.decodeEvent(l, data, res.Events); err != nil {
		return false, err
	}
	if len(l.Error) > 0 && string(l.Error) != "null" {
		return false, &Error{Kind: KindServerError, Message: "server error in stream: " + clip(string(l.Error))}
	}
	if res.Model == "" && l.Model != "" {
		res.Model = st.name(l.Model)
	}
	m := &l.Message
	res.output(at, m.Thinking, m.Content)
	for i, c := range m.ToolCalls {
		index := i
		if c.Function.Index != nil {
			index = *c.Function.Index
		}
		res.toolOpened(at, index, "", c.Function.Name)
		res.toolOutput(at, index, string(c.Function.Arguments))
	}
	if !l.Done {
		return false, nil
	}
	var total *int
	if l.PromptEvalCount != nil && l.EvalCount != nil {
		total = new(*l.PromptEvalCount + *l.EvalCount)
	}
	res.setUsage(st.ev.chatUsage(l.PromptEvalCount, l.EvalCount, total, nil, nil))
	ns := func(v *int64) time.Duration {
		if v == nil {
			return -1
		}
		return time.Duration(*v)
	}
	res.phases = Phases{Source: PhasesOllama, Queue: unstated, FirstToken: unstated,
		Load: ns(l.LoadDuration), PromptEval: ns(l.PromptEvalDuration), Eval: ns(l.EvalDuration), Total: ns(l.TotalDuration)}
	res.Phases = &res.phases
	switch {
	case len(res.ToolCalls) > 0 && (l.DoneReason == "" || l.DoneReason == "stop"):
		res.addFinish("tool_calls")
	case l.DoneReason == "":
		res.addFinish("stop")
	default:
		res.addFinish(l.DoneReason)
	}
	return true, nil
}
