package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/anvilbench/anvilbench/internal/wire"
	"github.com/tmaxmax/go-sse"
)

// This file keeps the read loop as it was before the hand-rolled event reader and chunk
// scanner (go-sse's sse.Read, encoding/json into a reused struct, string capture), verbatim
// but for names, as the oracle the new path must match exactly.

type legacyChunk struct {
	Choices []legacyChoice  `json:"choices"`
	Usage   *legacyUsage    `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
}

type legacyChoice struct {
	Delta struct {
		Content          string `json:"content"`
		ReasoningContent string `json:"reasoning_content"`
		Reasoning        string `json:"reasoning"`
	} `json:"delta"`
	Text         string  `json:"text"`
	FinishReason *string `json:"finish_reason"`
}

type legacyUsage struct {
	PromptTokens        *int `json:"prompt_tokens"`
	CompletionTokens    *int `json:"completion_tokens"`
	TotalTokens         *int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (u *legacyUsage) usage() Usage {
	out := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.PromptTokensDetails != nil {
		out.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	return out
}

func (c *legacyChunk) decode(data string) error {
	choices := c.Choices[:cap(c.Choices)]
	clear(choices)
	*c = legacyChunk{Choices: choices[:0]}
	return json.Unmarshal([]byte(data), c)
}

func (c *legacyChunk) errorMessage() (string, bool) {
	if c.Object == "error" {
		return clip(c.Message), true
	}
	if len(c.Error) == 0 || string(c.Error) == "null" {
		return "", false
	}
	return errorBodyMessage([]byte(`{"error":` + strings.TrimSpace(string(c.Error)) + `}`)), true
}

// legacyConsume is the old body of Stream after the status and content-type checks.
func legacyConsume(ctx context.Context, s *settings, body io.Reader, res *Result, maxChunks int) error {
	sr := &stampReader{r: body, now: s.now}
	var ch legacyChunk
	events := 0
	for ev, err := range sse.Read(sr, &sse.ReadConfig{MaxEventSize: s.maxEvent}) {
		if err != nil {
			return classify(ctx, err, "read stream", s, events)
		}
		at := sr.last.Sub(res.Start)
		events++
		res.Events = events
		if ev.Type == "error" {
			return &Error{Kind: KindServerError, Message: "server sent an error event: " + clip(ev.Data)}
		}
		if ev.Data == "[DONE]" {
			res.Terminal = true
			res.End = at
			return nil
		}
		if ev.Data == "" {
			continue
		}
		if !utf8.ValidString(ev.Data) {
			return &Error{Kind: KindMalformed, Message: fmt.Sprintf("event %d is not valid UTF-8", events)}
		}
		if err := ch.decode(ev.Data); err != nil {
			return &Error{Kind: KindMalformed, Message: fmt.Sprintf("event %d is not a JSON chunk: %v", events, err), Err: err}
		}
		if msg, ok := ch.errorMessage(); ok {
			return &Error{Kind: KindServerError, Message: "server error in stream: " + msg}
		}
		legacyObserve(res, &ch, at)
		res.lag(sr.last)
		if maxChunks > 0 && len(res.Arrivals) > maxChunks {
			return &Error{Kind: KindOverrun, Message: fmt.Sprintf("stream sent %d output chunks, more than max_tokens allows; stopped reading", len(res.Arrivals))}
		}
	}
	res.End = time.Since(res.Start)
	if cause := context.Cause(ctx); cause != nil {
		return classify(ctx, cause, "read stream", s, events)
	}
	if !res.Complete() {
		return &Error{Kind: KindTruncated, Message: fmt.Sprintf("stream closed after %d events without [DONE] or a finish_reason", events)}
	}
	return nil
}

func legacyObserve(res *Result, ch *legacyChunk, at time.Duration) {
	if ch.Usage != nil {
		u := ch.Usage.usage()
		res.Usage = &u
	}
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if c.FinishReason != nil {
			res.FinishReasons = append(res.FinishReasons, *c.FinishReason)
		}
		reasoning := c.Delta.ReasoningContent
		if reasoning == "" {
			reasoning = c.Delta.Reasoning
		}
		content := c.Delta.Content
		if content == "" {
			content = c.Text
		}
		if reasoning == "" && content == "" {
			continue
		}
		res.Arrivals = append(res.Arrivals, at)
		legacyAttribute(res, ch.Usage)
		if !res.HasFirstOutput {
			res.HasFirstOutput, res.FirstOutput = true, at
		}
		if reasoning != "" {
			res.ReasoningChunks++
		}
		if content != "" {
			res.ContentChunks++
			if !res.HasFirstContent {
				res.HasFirstContent, res.FirstContent = true, at
			}
			legacyCapture(res, content)
		}
	}
}

// legacyAttribute attributes as the decoder does: the rule is the Result's, the usage the
// legacy decoding's.
func legacyAttribute(res *Result, u *legacyUsage) {
	if u == nil {
		res.attribute(nil)
		return
	}
	res.attribute(&wire.Usage{CompletionTokens: u.CompletionTokens})
}

func legacyCapture(res *Result, s string) {
	if res.ContentTruncated {
		return
	}
	have := utf8.RuneCountInString(res.Content)
	if n := utf8.RuneCountInString(s); have+n <= CaptureLimit {
		res.Content += s
		return
	}
	keep := CaptureLimit - have
	for i := range s {
		if keep == 0 {
			res.Content += s[:i]
			break
		}
		keep--
	}
	res.ContentTruncated = true
}

// describe renders everything of a Result and its error that does not depend on the
// wall clock (EventLag; End unless it is the arrival of [DONE]).
func describe(res *Result, err error) string {
	var b strings.Builder
	ptr := func(p *int) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	fmt.Fprintf(&b, "first output %v %v, first content %v %v\n", res.HasFirstOutput, res.FirstOutput, res.HasFirstContent, res.FirstContent)
	fmt.Fprintf(&b, "chunks %d content %d reasoning, events %d, terminal %v, status %d streamed %v\n", res.ContentChunks, res.ReasoningChunks, res.Events, res.Terminal, res.StatusCode, res.Streamed)
	if res.Terminal {
		fmt.Fprintf(&b, "end %v\n", res.End)
	}
	fmt.Fprintf(&b, "arrivals %v\narrival tokens %v (nil %v)\n", res.Arrivals, res.ArrivalTokens, res.ArrivalTokens == nil)
	if res.Usage != nil {
		u := res.Usage
		fmt.Fprintf(&b, "usage %s %s %s cached %s\n", ptr(u.PromptTokens), ptr(u.CompletionTokens), ptr(u.TotalTokens), ptr(u.CachedTokens))
	} else {
		b.WriteString("usage nil\n")
	}
	fmt.Fprintf(&b, "finish %q (nil %v)\ncontent %q truncated %v\n", res.FinishReasons, res.FinishReasons == nil, res.Content, res.ContentTruncated)
	if err != nil {
		var se *Error
		if e, ok := err.(*Error); ok {
			se = e
		}
		if se == nil {
			fmt.Fprintf(&b, "error (not *Error) %v\n", err)
		} else {
			fmt.Fprintf(&b, "error %s: %s\n", se.Kind, se.Message)
		}
	}
	return b.String()
}
