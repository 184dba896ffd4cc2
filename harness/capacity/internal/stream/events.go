package stream

import (
	"fmt"
	"time"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// eventState is usage in storage of its own, for a typed API's counts to be read as
// chat's without an allocation per event; own is the protocol's own per-stream state (its
// event decoder, counts arriving in parts), recycled with the stream state.
type eventState struct {
	usage       wire.Usage
	details     wire.Details
	completions wire.CompletionDetails
	counts      [5]int
	own         any
}

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

// ownState is the protocol's per-stream state of type T the stream state holds, made anew
// only where it last served another protocol, so a stream of one API allocates none.
func ownState[T any](st *streamState) *T {
	if s, ok := st.ev.own.(*T); ok {
		return s
	}
	s := new(T)
	st.ev.own = s
	return s
}
