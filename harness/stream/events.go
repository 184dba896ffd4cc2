package stream

import (
	"fmt"
	"time"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// eventState is what the Responses and Messages grammars keep across one stream's events:
// their decoders, and usage counts that arrive in parts, in storage of their own so that
// an event costs no allocation.
type eventState struct {
	rev         wire.ResponsesEvent
	mev         wire.MessagesEvent
	usage       wire.Usage
	details     wire.Details
	completions wire.CompletionDetails
	counts      [5]int
	// prompt, cached and completion are the Messages API's counts so far (-1 unknown).
	prompt, cached, completion int
}

func (e *eventState) reset() { e.prompt, e.cached, e.completion = -1, -1, -1 }

// output logs an event's arrival and counts its text.
func (res *Result) output(at time.Duration, reasoning, content string) {
	if reasoning == "" && content == "" {
		return
	}
	res.Arrivals = append(res.Arrivals, at)
	res.attribute(nil)
	res.arrived(at, reasoning, content, false)
}

// toolOpened registers the call an opening event names (a function_call item, a tool_use
// block): the first sign of the call, not yet an arrival of its arguments.
func (res *Result) toolOpened(at time.Duration, index int, id, name string) {
	if !res.HasFirstToolCall {
		res.HasFirstToolCall, res.FirstToolCall = true, at
	}
	res.toolFragment(index, id, name, "")
}

// toolOutput logs the arrival of a fragment of the arguments of the call at index.
func (res *Result) toolOutput(at time.Duration, index int, arguments string) {
	if arguments == "" {
		return
	}
	res.Arrivals = append(res.Arrivals, at)
	res.attribute(nil)
	res.arrived(at, "", "", true)
	res.toolFragment(index, "", "", arguments)
}

// addFinish records a finish reason.
func (res *Result) addFinish(reason string) {
	if res.FinishReasons == nil {
		res.FinishReasons = res.finishBuf[:0]
	}
	res.FinishReasons = append(res.FinishReasons, finishReason(reason))
}

func indexOf(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// eventDecoder is a typed event's decoder: the scanner where it can, encoding/json alone.
type eventDecoder interface {
	Decode(data []byte) error
	DecodeJSON(data []byte) error
}

// decodeEvent decodes event n's data into e (encoding/json alone under the jsonOnly test
// hook); the error is a malformed event's.
func (s *settings) decodeEvent(e eventDecoder, data []byte, n int) error {
	var err error
	if s.jsonOnly {
		err = e.DecodeJSON(data)
	} else {
		err = e.Decode(data) // no method value: it would cost an allocation an event
	}
	if err != nil {
		return &Error{Kind: KindMalformed, Message: fmt.Sprintf("event %d is not a JSON event: %v", n, err), Err: err}
	}
	return nil
}

// responses folds one Responses API event into res; terminal reports the event that ends
// the stream (response.completed or response.incomplete).
func (st *streamState) responses(s *settings, data []byte, res *Result, at time.Duration) (terminal bool, err error) {
	ev := &st.ev.rev
	if err := s.decodeEvent(ev, data, res.Events); err != nil {
		return false, err
	}
	switch ev.Type {
	case "response.output_text.delta", "response.refusal.delta":
		res.output(at, "", ev.Delta)
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		res.output(at, ev.Delta, "")
	case "response.output_item.added":
		if it := ev.Item; it != nil && it.Type == "function_call" {
			res.toolOpened(at, indexOf(ev.OutputIndex), it.CallID, it.Name)
		}
	case "response.function_call_arguments.delta":
		res.toolOutput(at, indexOf(ev.OutputIndex), ev.Delta)
	case "response.created", "response.in_progress":
		st.responseModel(res, ev.Response)
	case "response.completed", "response.incomplete":
		r := ev.Response
		st.responseModel(res, r)
		if r != nil && r.Usage != nil {
			st.responsesUsage(res, r.Usage)
		}
		switch {
		case ev.Type == "response.completed" && len(res.ToolCalls) > 0:
			res.addFinish("tool_calls")
		case ev.Type == "response.completed":
			res.addFinish("stop")
		case r != nil && r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "max_output_tokens":
			res.addFinish(r.IncompleteDetails.Reason)
		default:
			res.addFinish("length")
		}
		return true, nil
	case "response.failed":
		msg := "the response failed"
		if r := ev.Response; r != nil && len(r.Error) > 0 && string(r.Error) != "null" {
			msg += ": " + clip(string(r.Error))
		}
		return false, &Error{Kind: KindServerError, Message: "server error in stream: " + msg}
	case "error":
		return false, &Error{Kind: KindServerError, Message: "server error in stream: " + clip(ev.Message)}
	}
	return false, nil
}

func (st *streamState) responseModel(res *Result, r *wire.ResponsesResponse) {
	if r != nil && res.Model == "" && r.Model != "" {
		res.Model = st.name(r.Model)
	}
}

// responsesUsage sets res's usage from the Responses API's: input tokens are the prompt.
func (st *streamState) responsesUsage(res *Result, u *wire.ResponsesUsage) {
	e := &st.ev
	var cached, reasoning *int
	if d := u.InputTokensDetails; d != nil {
		cached = d.CachedTokens
	}
	if d := u.OutputTokensDetails; d != nil {
		reasoning = d.ReasoningTokens
	}
	res.setUsage(e.chatUsage(u.InputTokens, u.OutputTokens, u.TotalTokens, cached, reasoning))
}

// chatUsage is a typed API's counts as chat's usage object, in the state's own storage,
// for Result.setUsage to copy: nil counts stay absent.
func (e *eventState) chatUsage(prompt, completion, total, cached, reasoning *int) *wire.Usage {
	e.usage = wire.Usage{}
	set := func(dst **int, k int, v *int) {
		if v != nil {
			e.counts[k], *dst = *v, &e.counts[k]
		}
	}
	set(&e.usage.PromptTokens, 0, prompt)
	set(&e.usage.CompletionTokens, 1, completion)
	set(&e.usage.TotalTokens, 2, total)
	if cached != nil {
		e.details = wire.Details{}
		set(&e.details.CachedTokens, 3, cached)
		e.usage.PromptTokensDetails = &e.details
	}
	if reasoning != nil {
		e.completions = wire.CompletionDetails{}
		set(&e.completions.ReasoningTokens, 4, reasoning)
		e.usage.CompletionTokensDetails = &e.completions
	}
	return &e.usage
}

// messages folds one Messages API event into res; terminal reports message_stop.
func (st *streamState) messages(s *settings, data []byte, res *Result, at time.Duration) (terminal bool, err error) {
	ev := &st.ev.mev
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
	e := &st.ev
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
	res.setUsage(e.chatUsage(known(e.prompt), known(e.completion), total, known(e.cached), nil))
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
