package refengine

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// ollamaRequest is the subset of an Ollama native chat body (POST /api/chat) that
// matters; it is read into a genRequest, which the rest of the engine serves.
type ollamaRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	// Stream is true when absent, as Ollama has it.
	Stream *bool      `json:"stream"`
	Tools  []chatTool `json:"tools"`
	// Format is "json" or a JSON schema.
	Format  json.RawMessage `json:"format"`
	Think   *bool           `json:"think"`
	Options struct {
		NumPredict  *int     `json:"num_predict"`
		Temperature *float64 `json:"temperature"`
		TopP        *float64 `json:"top_p"`
	} `json:"options"`
}

func init() {
	registerSurface(surfaceOllama, surfaceDef{path: "/api/chat", ndjson: true, read: (*Server).readOllama,
		encoder: func(g *run, _ int) encoder { return newOllamaEncoder(g) }})
}

// readOllama reads an Ollama native chat body into the chat request it stands for.
func (s *Server) readOllama(w http.ResponseWriter, r *http.Request, _ surface) (genRequest, error) {
	var o ollamaRequest
	if ae := s.readRequest(w, r, &o, &o.Model); ae != nil {
		return genRequest{}, ae
	}
	if o.Stream != nil && !*o.Stream {
		return genRequest{}, errBadRequest("this engine serves Ollama's native chat streamed only: leave stream out or set it to true.")
	}
	req := genRequest{Model: o.Model, Messages: o.Messages, MaxTokens: o.Options.NumPredict,
		Temperature: o.Options.Temperature, TopP: o.Options.TopP, Stream: true}
	req.StreamOptions = &struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	}{IncludeUsage: true}
	req.Tools = o.Tools
	switch f := string(o.Format); {
	case f == "" || f == "null" || f == `""`:
	case f == `"json"`:
		req.ResponseFormat = &struct {
			Type string `json:"type"`
		}{Type: "json_object"}
	case f[0] == '{':
		req.ResponseFormat = &struct {
			Type string `json:"type"`
		}{Type: "json_schema"}
	default:
		return genRequest{}, errBadRequest("format must be \"json\" or a JSON schema.")
	}
	if o.Think != nil {
		req.ChatTemplateKwargs = map[string]any{"enable_thinking": *o.Think}
	}
	return req, nil
}

// ollamaEncoder builds the lines of an Ollama native chat stream, one JSON object each:
// a message delta a chunk, a tool call whole once its arguments are, and a last line with
// done, the token counts and the engine's phases in nanoseconds (loading, as a model kept
// loaded has none: 0; prompt evaluation from when its prefill could start to the first
// token; generation from there to the end; and the whole request from its arrival). The
// returned slice is valid until the next call.
type ollamaEncoder struct {
	g         *run
	buf, args []byte
	finish    string
}

func newOllamaEncoder(g *run) *ollamaEncoder { return &ollamaEncoder{g: g, buf: make([]byte, 0, 256)} }

// line opens a line: the model, created_at and the message's role.
func (e *ollamaEncoder) line() []byte {
	b := append(e.buf[:0], `{"model":`...)
	b = wire.AppendString(b, e.g.j.model)
	b = append(b, `,"created_at":`...)
	b = wire.AppendString(b, time.Now().UTC().Format(time.RFC3339Nano))
	return append(b, `,"message":{"role":"assistant","content":`...)
}

// role sends nothing: Ollama's first line carries the first token.
func (e *ollamaEncoder) role(*usageCounts) []byte { return nil }

func (e *ollamaEncoder) text(reasoning bool, text []byte, raw, finish string, _ *usageCounts) []byte {
	if finish != "" {
		e.finish = finish
	}
	b := e.line()
	if reasoning {
		b = append(b, `"","thinking":`...)
	}
	b = wire.AppendString(b, string(text))
	if raw != "" {
		b = append(b[:len(b)-1], raw...)
		b = append(b, '"')
	}
	e.buf = append(b, "},\"done\":false}\n"...)
	return e.buf
}

// toolCall keeps the call's fragments and sends it whole when the reply finishes, as
// Ollama does (it parses a call before sending it; one that does not parse is text).
func (e *ollamaEncoder) toolCall(first bool, _, name string, args []byte, finish string, _ *usageCounts) []byte {
	e.args = append(e.args, args...)
	if finish == "" {
		return nil
	}
	e.finish = finish
	b := e.line()
	if !json.Valid(e.args) {
		// Cut short (max_tokens), the call does not parse: Ollama sends its text instead.
		b = wire.AppendString(b, string(e.args))
		e.buf = append(b, "},\"done\":false}\n"...)
		return e.buf
	}
	b = append(b, `"","tool_calls":[{"function":{"index":0,"name":`...)
	b = wire.AppendString(b, name)
	b = append(b, `,"arguments":`...)
	b = append(b, e.args...)
	e.buf = append(b, "}}]},\"done\":false}\n"...)
	return e.buf
}

// usageChunk is the last line: done, its reason, the counts and the phases.
func (e *ollamaEncoder) usageChunk(u usageCounts) []byte {
	now := time.Now()
	reason := e.finish
	if reason == "" || reason == finishToolCalls {
		reason = finishStop
	}
	b := e.line()
	b = append(b, `""},"done":true,"done_reason":`...)
	b = wire.AppendString(b, reason)
	field := func(key string, v int64) {
		b = append(b, `,"`...)
		b = append(b, key...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, v, 10)
	}
	first := e.g.firstToken // when the first line went out; now if none did
	if first.IsZero() {
		first = now
	}
	admitted := e.g.scheduled // its prefill starts after the scheduler's share
	if admitted.IsZero() {
		admitted = first
	}
	field("total_duration", int64(now.Sub(e.g.tr.t.Arrived)))
	field("load_duration", 0)
	field("prompt_eval_count", int64(u.prompt))
	field("prompt_eval_duration", int64(first.Sub(admitted)))
	field("eval_count", int64(u.completion))
	field("eval_duration", int64(now.Sub(first)))
	e.buf = append(b, "}\n"...)
	return e.buf
}

// done sends nothing: the last line ends the stream.
func (e *ollamaEncoder) done() []byte { return nil }

func (e *ollamaEncoder) errorEvent() []byte {
	return []byte(`{"error":"the engine failed mid-stream"}` + "\n")
}
