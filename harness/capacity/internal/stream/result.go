// Package stream sends one streamed chat completion and times it: every event is stamped
// when the read that delivered its bytes returns, on the monotonic clock, before any JSON
// is decoded.
package stream

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// Usage is the server's token accounting of one request. Nil counts were absent.
type Usage struct {
	PromptTokens     *int `json:"prompt_tokens"`
	CompletionTokens *int `json:"completion_tokens"`
	TotalTokens      *int `json:"total_tokens"`
	// CachedTokens is usage.prompt_tokens_details.cached_tokens.
	CachedTokens *int `json:"-"`
	// ReasoningTokens is usage.completion_tokens_details.reasoning_tokens (the Responses
	// API's output_tokens_details.reasoning_tokens): the part of the completion tokens that
	// was thought, not answer.
	ReasoningTokens *int `json:"-"`
}

// Phases is an engine's account of one request's time, as it measured it and stated it in
// the stream (Source): waiting to be scheduled (Queue), loading the model, evaluating the
// prompt (the prefill), generating the answer (the decode), its first token from the
// request's arrival (FirstToken), and the whole request. A phase the engine did not state
// is negative.
type Phases struct {
	Source                                           string
	Queue, Load, PromptEval, Eval, FirstToken, Total time.Duration
}

// The sources of Phases.
const (
	PhasesVLLM     = "vLLM metrics (include_metrics)"
	PhasesLlamaCpp = "llama.cpp timings"
	PhasesOllama   = "Ollama durations"
)

// unstated is a phase the engine did not state.
const unstated = time.Duration(-1)

// vllmMetrics and llamaTimings are the two per-request accounts an OpenAI-style stream can
// end with, in milliseconds.
type vllmMetrics struct {
	Queue      *float64 `json:"queue_time_ms"`
	FirstToken *float64 `json:"time_to_first_token_ms"`
	Generation *float64 `json:"generation_time_ms"`
}

type llamaTimings struct {
	Prompt    *float64 `json:"prompt_ms"`
	Predicted *float64 `json:"predicted_ms"`
}

func msDuration(v *float64) time.Duration {
	if v == nil || *v < 0 {
		return unstated
	}
	return time.Duration(*v * float64(time.Millisecond))
}

// statePhases reads the engine's account from the chunk that carries it: vLLM's metrics,
// else llama.cpp's timings. It runs once per stream, on its last chunk.
func (res *Result) statePhases(ch *wire.Chunk) {
	p := Phases{Queue: unstated, Load: unstated, PromptEval: unstated, Eval: unstated, FirstToken: unstated, Total: unstated}
	var m vllmMetrics
	var t llamaTimings
	switch {
	case len(ch.Metrics) > 0 && json.Unmarshal(ch.Metrics, &m) == nil && m.FirstToken != nil:
		p.Source, p.Queue, p.FirstToken, p.Eval = PhasesVLLM, msDuration(m.Queue), msDuration(m.FirstToken), msDuration(m.Generation)
		if p.Queue >= 0 && p.FirstToken >= p.Queue {
			p.PromptEval = p.FirstToken - p.Queue
		}
		if p.Eval >= 0 {
			p.Total = p.FirstToken + p.Eval
		}
	case len(ch.Timings) > 0 && json.Unmarshal(ch.Timings, &t) == nil && t.Prompt != nil:
		p.Source, p.PromptEval, p.Eval = PhasesLlamaCpp, msDuration(t.Prompt), msDuration(t.Predicted)
	default:
		return
	}
	res.phases = p
	res.Phases = &res.phases
}

// Result is what one request's stream showed. Durations are offsets from Start, the
// instant just before the serialized request was handed to a connection (taking an idle
// one or dialing one, and the write, come after it).
type Result struct {
	Start time.Time
	// FirstOutput is the arrival of the first non-empty reasoning or content delta;
	// FirstContent of the first non-empty content delta. Each is valid only when its Has
	// flag is set.
	FirstOutput, FirstContent       time.Duration
	HasFirstOutput, HasFirstContent bool
	// End is the arrival of [DONE], or the end of the body when there was none.
	End time.Duration
	// ContentChunks and ReasoningChunks count events with a non-empty delta of each kind.
	ContentChunks, ReasoningChunks int
	// Arrivals holds the arrival offset of every event that carried a non-empty delta, in
	// order: the raw material of per-chunk inter-arrival times.
	Arrivals []time.Duration
	// ArrivalTokens holds, per entry of Arrivals, the cumulative completion tokens the
	// server reported in that chunk's own usage (vLLM continuous_usage_stats); nil when
	// chunks carry no usage, so tokens cannot be attributed to chunks.
	ArrivalTokens []int
	// Usage is the last usage block the stream carried, nil when none.
	Usage *Usage
	// FinishReasons lists every non-null finish_reason seen.
	FinishReasons []string
	// Terminal reports that data: [DONE] was seen.
	Terminal bool
	// Model is the model the stream's first chunk naming one named: what the engine says
	// served it, "" when no chunk said. Engines differ in what they put there (the
	// requested name, the model's path, a fixed "default").
	Model string
	// Content is the visible content, capped at CaptureLimit characters.
	Content string
	// ToolCalls are the tool calls the stream delivered, each joined from its fragments
	// (their arguments capped at CaptureLimit characters in all); ToolCallChunks counts the
	// events that carried a fragment, and FirstToolCall is the arrival of the first, valid
	// when HasFirstToolCall. A tool-call fragment is output: it counts as content for the
	// first output, TTFT and the arrivals.
	ToolCalls        []ToolCall
	ToolCallChunks   int
	FirstToolCall    time.Duration
	HasFirstToolCall bool
	// ContentTruncated reports that visible content went beyond the cap.
	ContentTruncated bool
	// StatusCode is the HTTP status, 0 when no response arrived.
	StatusCode int
	// Streamed reports that a 200 event stream was being read (a response was received).
	Streamed bool

	// EventLag is the total, and EventLagMax the largest, time from the read that delivered
	// an event to the end of its processing (parse, decode, bookkeeping): the client's own
	// delay, which coalesced events queue behind.
	EventLag, EventLagMax time.Duration
	// Events counts every event read, keep-alives and usage chunks included.
	Events int
	// KernelStampedReads and UserStampedReads count the socket reads of the response body
	// whose bytes were stamped by the kernel on arrival, or when the read returned.
	KernelStampedReads, UserStampedReads int
	// Sent is when the request's last byte left this host: the kernel's transmit stamp
	// (SO_TIMESTAMPING, software, Linux), valid when HasSent. It splits TTFT in two: the
	// client's send (connection, request writing, the kernel's send path) up to Sent, and
	// the network, the engine's queue and prefill after it.
	Sent    time.Duration
	HasSent bool
	// Abandoned is set when the client left the stream as asked (Call.AbandonAfter), at End.
	Abandoned bool
	// Phases is the engine's own account of the request's time, where its API reports one
	// (a native API that measures its phases); nil otherwise.
	Phases *Phases

	noPerChunkUsage bool
	phases          Phases // backs Phases
	// content backs Content, which is a view of it: bytes below its length never change, so
	// every Content handed out stays valid while capture appends without copying. It comes
	// from contentBox, recycled by Release.
	content      []byte
	contentBox   *[]byte
	contentRunes int
	toolRunes    int // the runes of every call's Arguments
	// finishBuf backs FinishReasons: one finish reason per stream costs no allocation.
	finishBuf [2]string
	// usage backs Usage, so a chunk's usage costs no allocation.
	usage struct {
		u      Usage
		counts [5]int
	}
}

// ToolCall is one tool call of a response: its id, the function's name, and its arguments
// as the engine wrote them (JSON, when it kept to the protocol).
type ToolCall struct {
	Index              int
	ID, Name           string
	Arguments          string
	ArgumentsTruncated bool
}

// Complete reports whether the stream ended the way the protocol says it should: with
// [DONE] or at least a finish_reason. A clean close before either is a truncation.
func (r *Result) Complete() bool { return r.Terminal || len(r.FinishReasons) > 0 }

// observe folds one decoded chunk into the result. at is the arrival of its bytes. Nothing
// of ch is kept: it may be a view of the read buffer.
func (res *Result) observe(ch *wire.Chunk, at time.Duration) {
	if ch.Usage != nil {
		res.setUsage(ch.Usage)
	}
	if ch.Metrics != nil || ch.Timings != nil {
		res.statePhases(ch)
	}
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if c.FinishReason != nil {
			if res.FinishReasons == nil {
				res.FinishReasons = res.finishBuf[:0]
			}
			res.FinishReasons = append(res.FinishReasons, finishReason(*c.FinishReason))
		}
		reasoning := c.Delta.ReasoningContent
		if reasoning == "" {
			reasoning = c.Delta.Reasoning
		}
		content := c.Delta.Content
		if content == "" {
			content = c.Text // the legacy completions endpoint
		}
		tools := len(c.Delta.ToolCalls) > 0
		if reasoning == "" && content == "" && !tools {
			continue
		}
		res.Arrivals = append(res.Arrivals, at)
		res.attribute(ch.Usage)
		res.arrived(at, reasoning, content, tools)
		if tools {
			res.addToolCalls(c.Delta.ToolCalls)
		}
	}
}

// arrived counts an output event that just arrived at at (its arrival already logged):
// reasoning or content text, or a tool-call fragment (tool).
func (res *Result) arrived(at time.Duration, reasoning, content string, tool bool) {
	if !res.HasFirstOutput {
		res.HasFirstOutput, res.FirstOutput = true, at
	}
	if reasoning != "" {
		res.ReasoningChunks++
	}
	if content != "" || tool {
		res.ContentChunks++
		if !res.HasFirstContent {
			res.HasFirstContent, res.FirstContent = true, at
		}
	}
	if content != "" {
		res.capture(content)
	}
	if tool {
		res.ToolCallChunks++
		if !res.HasFirstToolCall {
			res.HasFirstToolCall, res.FirstToolCall = true, at
		}
	}
}

// addToolCalls joins tool-call fragments into the result's calls: a fragment names its
// call by index; without one, a new id starts a call and anything else continues the last.
func (res *Result) addToolCalls(fragments []wire.ToolCall) {
	for _, f := range fragments {
		k := len(res.ToolCalls) - 1
		switch {
		case f.Index != nil:
			k = res.callAt(*f.Index)
		case k < 0 || (f.ID != "" && f.ID != res.ToolCalls[k].ID && res.ToolCalls[k].ID != ""):
			res.ToolCalls = append(res.ToolCalls, ToolCall{Index: len(res.ToolCalls)})
			k = len(res.ToolCalls) - 1
		}
		c := &res.ToolCalls[k]
		if c.ID == "" {
			c.ID = strings.Clone(f.ID)
		}
		if f.Function.Name != "" && f.Function.Name != c.Name {
			c.Name += f.Function.Name // a name sent whole, or in pieces
		}
		res.appendArguments(c, f.Function.Arguments)
	}
}

// callAt is the position of the call named by index, a new call's when none is yet.
func (res *Result) callAt(index int) int {
	k := slices.IndexFunc(res.ToolCalls, func(c ToolCall) bool { return c.Index == index })
	if k < 0 {
		res.ToolCalls = append(res.ToolCalls, ToolCall{Index: index})
		k = len(res.ToolCalls) - 1
	}
	return k
}

// toolFragment adds a fragment of the call at index: its id and name when they come,
// its arguments in pieces (typed APIs name calls by their item or block index).
func (res *Result) toolFragment(index int, id, name, arguments string) {
	c := &res.ToolCalls[res.callAt(index)]
	if c.ID == "" {
		c.ID = strings.Clone(id)
	}
	if c.Name == "" {
		c.Name = strings.Clone(name)
	}
	res.appendArguments(c, arguments)
}

// appendArguments adds a fragment of a call's arguments, within CaptureLimit characters
// over all calls.
func (res *Result) appendArguments(c *ToolCall, fragment string) {
	n := utf8.RuneCountInString(fragment)
	if room := CaptureLimit - res.toolRunes; n > room {
		n = room
		c.ArgumentsTruncated = true
		for i := range fragment {
			if room == 0 {
				fragment = fragment[:i]
				break
			}
			room--
		}
	}
	res.toolRunes += n
	c.Arguments += fragment
}

// setUsage makes a copy of u the result's Usage, in storage the result owns.
func (res *Result) setUsage(u *wire.Usage) {
	st := &res.usage
	st.u = Usage{}
	if u.PromptTokens != nil {
		st.counts[0], st.u.PromptTokens = *u.PromptTokens, &st.counts[0]
	}
	if u.CompletionTokens != nil {
		st.counts[1], st.u.CompletionTokens = *u.CompletionTokens, &st.counts[1]
	}
	if u.TotalTokens != nil {
		st.counts[2], st.u.TotalTokens = *u.TotalTokens, &st.counts[2]
	}
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil {
		st.counts[3], st.u.CachedTokens = *u.PromptTokensDetails.CachedTokens, &st.counts[3]
	}
	if u.CompletionTokensDetails != nil && u.CompletionTokensDetails.ReasoningTokens != nil {
		st.counts[4], st.u.ReasoningTokens = *u.CompletionTokensDetails.ReasoningTokens, &st.counts[4]
	}
	res.Usage = &st.u
}

// lag accounts for the time since the read that delivered the event just processed.
func (res *Result) lag(read time.Time) {
	d := time.Since(read)
	res.EventLag += d
	res.EventLagMax = max(res.EventLagMax, d)
}

// attribute records the cumulative completion tokens of the latest arrival when its chunk
// carried usage; one chunk without it makes attribution impossible for the whole stream.
func (res *Result) attribute(u *wire.Usage) {
	n := len(res.Arrivals)
	if u == nil || u.CompletionTokens == nil {
		res.ArrivalTokens = nil
		res.noPerChunkUsage = true
		return
	}
	if res.noPerChunkUsage {
		return
	}
	if res.ArrivalTokens == nil {
		res.ArrivalTokens = make([]int, 0, cap(res.Arrivals))
	}
	if len(res.ArrivalTokens) == n-1 {
		res.ArrivalTokens = append(res.ArrivalTokens, *u.CompletionTokens)
	}
}

// captures recycles content captures between results (see Result.Release).
var captures = sync.Pool{New: func() any {
	b := make([]byte, 0, captureStart)
	return &b
}}

// Release gives the result's content capture back for reuse by the next stream: call it
// once Content has been judged; Content is invalid after.
func (res *Result) Release() {
	if res.contentBox == nil {
		return
	}
	*res.contentBox = res.content[:0]
	captures.Put(res.contentBox)
	res.contentBox, res.content, res.Content = nil, nil, ""
}

// captureStart is the first capacity of the capture: a 32-word answer fits.
const captureStart = 256

// capture appends visible content up to CaptureLimit characters. Content is a view of the
// capture buffer, so appending copies only s.
func (res *Result) capture(s string) {
	if res.ContentTruncated {
		return
	}
	if res.content == nil {
		res.contentBox = captures.Get().(*[]byte)
		res.content = (*res.contentBox)[:0]
	}
	n := utf8.RuneCountInString(s)
	if res.contentRunes+n > CaptureLimit {
		keep := CaptureLimit - res.contentRunes
		for i := range s {
			if keep == 0 {
				s = s[:i]
				break
			}
			keep--
		}
		n = CaptureLimit - res.contentRunes
		res.ContentTruncated = true
	}
	res.content = append(res.content, s...)
	res.contentRunes += n
	res.Content = unsafe.String(unsafe.SliceData(res.content), len(res.content))
}
