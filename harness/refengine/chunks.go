package refengine

import (
	"strconv"
	"time"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// encoder builds the events of one streamed response: chat's chunks (chunkEncoder), or the
// typed events of the Responses and Messages APIs (typedEncoder).
func init() {
	registerSurface(surfaceChat, surfaceDef{path: "/v1/chat/completions", encoder: newChatEncoder})
	registerSurface(surfaceCompletions, surfaceDef{path: "/v1/completions", legacy: true, encoder: newChatEncoder})
}

// newChatEncoder writes chat's and completions' chunks.
func newChatEncoder(g *run, _ int) encoder {
	chunkObject := g.object
	if !g.j.legacy {
		chunkObject = "chat.completion.chunk"
	}
	enc := newChunkEncoder(g.id, chunkObject, g.j.model, g.created, g.j.legacy, g.j.includeUsage || g.j.continuousUsage)
	enc.setReasoningField(string(g.s.opts.ReasoningField))
	return enc
}

// encoder writes a streamed answer's events on one surface.
type encoder interface {
	// role opens the stream; u is its usage (nil: none).
	role(u *usageCounts) []byte
	// text carries reasoning or answer text; raw is appended unescaped inside the string.
	text(reasoning bool, text []byte, raw, finish string, u *usageCounts) []byte
	// toolCall carries a fragment of the reply's tool call.
	toolCall(first bool, id, name string, args []byte, finish string, u *usageCounts) []byte
	// usageChunk carries the final usage; done ends the stream.
	usageChunk(u usageCounts) []byte
	done() []byte
	// errorEvent is the ErrorEvent fault's event.
	errorEvent() []byte
}

func (e *chunkEncoder) text(reasoning bool, text []byte, raw, finish string, u *usageCounts) []byte {
	return delta(e, reasoning, text, raw, finish, u)
}

func (e *chunkEncoder) done() []byte       { return doneEvent }
func (e *chunkEncoder) errorEvent() []byte { return errorEvent }

// doneEvent ends every complete stream.
var doneEvent = []byte("data: [DONE]\n\n")

// chunkEncoder builds the SSE events of one streamed response, vLLM's byte layout, by
// appending into one reused buffer: this is the per-token hot path, so no json.Marshal and,
// after the first chunk, no allocation. The returned slice is valid until the next call.
type chunkEncoder struct {
	buf       []byte
	head      []byte // `data: {"id":...,"object":...,"created":...,"model":...,"choices":[`
	legacy    bool   // /v1/completions: choices[].text instead of choices[].delta
	usage     bool   // include_usage or continuous_usage_stats: every chunk has "usage"
	reasoning string // the delta member of reasoning text, e.g. `"reasoning_content":`
}

func newChunkEncoder(id, object, model string, created int64, legacy, usage bool) *chunkEncoder {
	h := make([]byte, 0, 96+len(id)+len(model))
	h = append(h, `data: {"id":`...)
	h = wire.AppendString(h, id)
	h = append(h, `,"object":`...)
	h = wire.AppendString(h, object)
	h = append(h, `,"created":`...)
	h = strconv.AppendInt(h, created, 10)
	h = append(h, `,"model":`...)
	h = wire.AppendString(h, model)
	h = append(h, `,"choices":[`...)
	return &chunkEncoder{buf: make([]byte, 0, len(h)+256), head: h, legacy: legacy, usage: usage,
		reasoning: `"` + string(reasoningContentField) + `":`}
}

// setReasoningField names the delta member of reasoning text (ReasoningContentField or
// ReasoningField).
func (e *chunkEncoder) setReasoningField(name string) {
	e.reasoning = `"` + name + `":`
}

// usageCounts are the figures of one usage object.
type usageCounts struct {
	prompt, completion int
	cached             int // prompt_tokens_details.cached_tokens; -1 writes null
	reasoning          int // completion_tokens_details.reasoning_tokens; -1 leaves it out
	// phases, on the final usage only, is the engine's account of the request's time, as
	// vLLM's metrics object (include_metrics) and as llama.cpp's timings; nil for neither.
	phases *phaseTimes
}

// phaseTimes are one request's instants as the engine saw them, and which of the engines'
// per-request accounts to write from them.
type phaseTimes struct {
	arrived, scheduled, firstToken, end time.Time
	metrics, timings                    bool
}

// appendPhases appends vLLM's "metrics" (queue_time_ms, time_to_first_token_ms,
// generation_time_ms, mean_itl_ms, tokens_per_second) and llama.cpp's "timings" (cache_n,
// prompt_n, prompt_ms, predicted_n, predicted_ms) members, as each engine writes them in its
// last chunk.
func appendPhases(b []byte, u usageCounts) []byte {
	p := u.phases
	if p == nil {
		return b
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	num := func(key string, v float64) {
		b = append(b, key...)
		b = strconv.AppendFloat(b, v, 'f', 3, 64)
	}
	generation := p.end.Sub(p.firstToken)
	if p.metrics {
		itl := 0.0
		if u.completion > 1 {
			itl = ms(generation) / float64(u.completion-1)
		}
		num(`,"metrics":{"time_to_first_token_ms":`, ms(p.firstToken.Sub(p.arrived)))
		num(`,"generation_time_ms":`, ms(generation))
		num(`,"queue_time_ms":`, ms(p.scheduled.Sub(p.arrived)))
		num(`,"mean_itl_ms":`, itl)
		num(`,"tokens_per_second":`, float64(u.completion)/p.end.Sub(p.arrived).Seconds())
		b = append(b, '}')
	}
	if p.timings {
		cached := max(u.cached, 0)
		b = append(b, `,"timings":{"cache_n":`...)
		b = strconv.AppendInt(b, int64(cached), 10)
		b = append(b, `,"prompt_n":`...)
		b = strconv.AppendInt(b, int64(u.prompt-cached), 10)
		num(`,"prompt_ms":`, ms(p.firstToken.Sub(p.scheduled)))
		b = append(b, `,"predicted_n":`...)
		b = strconv.AppendInt(b, int64(u.completion), 10)
		num(`,"predicted_ms":`, ms(generation))
		b = append(b, '}')
	}
	return b
}

// role is the chat stream's first event, sent just before the first token chunk; u is its
// usage (nil: null).
func (e *chunkEncoder) role(u *usageCounts) []byte {
	b := append(e.buf[:0], e.head...)
	b = append(b, `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`...)
	return e.end(b, u)
}

// delta is a chunk carrying text, as content or (reasoning) as reasoning text; raw is
// appended unescaped inside the JSON string (the InvalidUTF8 fault); finish is "" (null) or
// the finish reason; u is the chunk's usage (nil: null).
func delta[T ~string | ~[]byte](e *chunkEncoder, reasoning bool, text T, raw, finish string, u *usageCounts) []byte {
	b := append(e.buf[:0], e.head...)
	switch {
	case e.legacy:
		b = append(b, `{"index":0,"text":`...)
	case reasoning:
		b = append(b, `{"index":0,"delta":{`...)
		b = append(b, e.reasoning...)
	default:
		b = append(b, `{"index":0,"delta":{"content":`...)
	}
	b = wire.AppendString(b, text)
	if raw != "" {
		b = append(b[:len(b)-1], raw...)
		b = append(b, '"')
	}
	if !e.legacy {
		b = append(b, '}')
	}
	return e.end(appendFinish(b, finish), u)
}

// appendFinish closes a choice with its finish reason ("": null) and the choices.
func appendFinish(b []byte, finish string) []byte {
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = wire.AppendString(b, finish)
	}
	return append(b, "}]"...)
}

// toolCall is a chunk carrying a fragment of the reply's tool call, vLLM's layout: the
// first with the call's id, type and name, the others its arguments alone, and an empty
// fragment with the finish reason as an empty delta.
func (e *chunkEncoder) toolCall(first bool, id, name string, args []byte, finish string, u *usageCounts) []byte {
	b := append(e.buf[:0], e.head...)
	switch {
	case first:
		b = append(b, `{"index":0,"delta":{"tool_calls":[{"index":0,"id":`...)
		b = wire.AppendString(b, id)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = wire.AppendString(b, name)
		b = append(b, `,"arguments":`...)
		b = wire.AppendString(b, args)
		b = append(b, "}}]}"...)
	case len(args) == 0:
		b = append(b, `{"index":0,"delta":{}`...)
	default:
		b = append(b, `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":`...)
		b = wire.AppendString(b, args)
		b = append(b, "}}]}"...)
	}
	return e.end(appendFinish(b, finish), u)
}

// content is a content chunk without usage; finish is "" (null) or the finish reason.
func content[T ~string | ~[]byte](e *chunkEncoder, text T, finish string) []byte {
	return delta(e, false, text, "", finish, nil)
}

// usageChunk is the final chunk of an include_usage stream: no choices, the token counts.
func (e *chunkEncoder) usageChunk(u usageCounts) []byte {
	b := append(e.buf[:0], e.head...)
	b = append(b, `],"usage":`...)
	b = appendUsage(b, u)
	b = appendPhases(b, u)
	b = append(b, "}\n\n"...)
	e.buf = b
	return b
}

func (e *chunkEncoder) end(b []byte, u *usageCounts) []byte {
	switch {
	case u != nil:
		b = append(b, `,"usage":`...)
		b = appendUsage(b, *u)
	case e.usage:
		b = append(b, `,"usage":null`...)
	}
	b = append(b, "}\n\n"...)
	e.buf = b
	return b
}

// appendUsage appends u as vLLM's usage object.
func appendUsage(b []byte, u usageCounts) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(u.prompt), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.prompt+u.completion), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(u.completion), 10)
	if u.cached < 0 {
		b = append(b, `,"prompt_tokens_details":null`...)
	} else {
		b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
		b = strconv.AppendInt(b, int64(u.cached), 10)
		b = append(b, '}')
	}
	if u.reasoning >= 0 {
		b = append(b, `,"completion_tokens_details":{"reasoning_tokens":`...)
		b = strconv.AppendInt(b, int64(u.reasoning), 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

// errorEvent is the ErrorEvent fault's event.
var errorEvent = []byte(`data: {"error":{"message":"engine crashed","code":500}}` + "\n\n")

// malformedEvent is the MalformedAfter fault's event.
var malformedEvent = []byte("data: {not json}\n\n")

// halfEvent is what the CloseMidEvent fault writes before ending the response.
var halfEvent = []byte(`data: {"choices":[{"delta":`)
