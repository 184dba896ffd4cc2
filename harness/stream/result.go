// Package stream sends one streamed chat completion and times it: every event is stamped
// when the read that delivered its bytes returns, on the monotonic clock, before any JSON
// is decoded.
package stream

import (
	"time"
)

// Usage is the server's token accounting of one request. Nil counts were absent.
type Usage struct {
	PromptTokens     *int `json:"prompt_tokens"`
	CompletionTokens *int `json:"completion_tokens"`
	TotalTokens      *int `json:"total_tokens"`
	// CachedTokens is usage.prompt_tokens_details.cached_tokens.
	CachedTokens *int `json:"-"`
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

	noPerChunkUsage bool
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
		counts [4]int
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
