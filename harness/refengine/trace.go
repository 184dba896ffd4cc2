package refengine

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"
)

// RequestTrace is the server-side truth about one generation request (POST
// /v1/chat/completions or /v1/completions), for comparison with what a client measured.
// Times are wall-clock with Go's monotonic reading, taken on the server.
type RequestTrace struct {
	// Index is the 0-based arrival order since Start (ResetTraces does not reset it); the
	// response id is "chatcmpl-<Index>" ("cmpl-<Index>" for /v1/completions).
	Index int
	// Status is the HTTP status sent (0 while not yet decided).
	Status int
	// Stream tells whether the response was streamed.
	Stream bool
	// PromptTokens is usage.prompt_tokens: tokenizer count plus chat-template overhead.
	PromptTokens int
	// PromptHead is the first line of the request's instruction (the last user message, or
	// the prompt): anvilbench's "# anvil request <seed>:<index>", which joins a trace to the
	// client's request.
	PromptHead string
	// CachedTokens is usage.prompt_tokens_details.cached_tokens: prompt tokens the prefix
	// cache served (0 without Options.PrefixCache), known once admitted.
	CachedTokens int
	// Thinking tells whether the request reasons before answering.
	Thinking bool
	// CompletionTokens is the number of completion tokens produced so far (EOS included).
	CompletionTokens int
	// ReasoningTokens is the number of reasoning tokens among CompletionTokens.
	ReasoningTokens int
	// SpecDrafts, SpecDraftTokens and SpecAccepted count the request's speculative decode
	// steps, the tokens they drafted and those accepted; SpecAcceptedPerPos the accepted by
	// draft position (Options.SpecTokens).
	SpecDrafts, SpecDraftTokens, SpecAccepted int
	SpecAcceptedPerPos                        []int
	// FinishReason is "stop" or "length" once finished normally; "" while running, after a
	// fault that ends the response early (truncation, reset, ...), a cancellation or an error.
	FinishReason string
	// Cancelled is true when the client went away (or the server closed) mid-request.
	Cancelled bool
	// Arrived is when the handler started.
	Arrived time.Time
	// Admitted is when the request got a batch slot (zero if it never did).
	Admitted time.Time
	// Scheduled is when its prefill could start: Admitted plus Options.QueueDelay.
	Scheduled time.Time
	// Model is the model the request was served as: the base model, or the adapter it named.
	Model string
	// Priority is the priority the request sent (nil none).
	Priority *int
	// Images are the images the request carried, as the engine read them.
	Images []ImageSeen
	// TraceParent is the W3C traceparent header the request carried ("" without one).
	TraceParent string
	// FirstToken is when the first chunk was flushed (streamed) or produced (not streamed).
	FirstToken time.Time
	// ChunkTimes holds, for each token-carrying chunk (content chunks and the final chunk with
	// the finish reason; not the role or usage chunks), the time right after it was written
	// and flushed. Empty for non-streamed responses.
	ChunkTimes []time.Time
	// Finished is when the handler was done (last byte flushed, error sent or cancellation
	// noticed); zero while running.
	Finished time.Time
}

// traceRec is the live, lockable record behind one RequestTrace. Its lock is per request, so
// the per-chunk update is uncontended.
type traceRec struct {
	mu sync.Mutex
	t  RequestTrace
}

func (r *traceRec) set(f func(t *RequestTrace)) {
	r.mu.Lock()
	f(&r.t)
	r.mu.Unlock()
}

// chunk records one flushed chunk; tokens is the completion-token count so far, reasoning
// the reasoning tokens among them.
func (r *traceRec) chunk(at time.Time, tokens, reasoning int) {
	r.mu.Lock()
	if len(r.t.ChunkTimes) == 0 {
		r.t.FirstToken = at
	}
	r.t.ChunkTimes = append(r.t.ChunkTimes, at)
	r.t.CompletionTokens, r.t.ReasoningTokens = tokens, reasoning
	r.mu.Unlock()
}

// finish marks the end of the request.
func (r *traceRec) finish(status int, reason string, cancelled bool) {
	now := time.Now()
	r.mu.Lock()
	if status != 0 {
		r.t.Status = status
	}
	r.t.FinishReason = reason
	r.t.Cancelled = cancelled
	r.t.Finished = now
	r.mu.Unlock()
}

// newTrace registers a request that arrived at the given time.
func (s *Server) newTrace(arrived time.Time) *traceRec {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &traceRec{t: RequestTrace{Index: s.nextIndex, Arrived: arrived}}
	s.nextIndex++
	s.traces = append(s.traces, r)
	return r
}

// Traces returns a snapshot of the traces of every generation request since Start or the
// last ResetTraces, in arrival order. Requests still running appear with what they did so far.
func (s *Server) Traces() []RequestTrace {
	s.mu.Lock()
	recs := slices.Clone(s.traces)
	s.mu.Unlock()
	out := make([]RequestTrace, len(recs))
	for i, r := range recs {
		r.mu.Lock()
		out[i] = r.t
		out[i].ChunkTimes = slices.Clone(r.t.ChunkTimes)
		r.mu.Unlock()
	}
	return out
}

// ResetTraces forgets the traces recorded so far; requests in flight are forgotten too.
func (s *Server) ResetTraces() {
	s.mu.Lock()
	s.traces = nil
	s.mu.Unlock()
}

// wireTrace is a trace as GET /ref/traces serves it: wall-clock Unix nanoseconds, which
// another process on the host reads from the same clock.
type wireTrace struct {
	Index         int     `json:"index"`
	Status        int     `json:"status"`
	PromptHead    string  `json:"prompt_head"`
	PromptTokens  int     `json:"prompt_tokens"`
	ArrivedUnixNs int64   `json:"arrived_unix_ns"`
	FirstTokenNs  int64   `json:"first_token_unix_ns"`
	ChunkUnixNs   []int64 `json:"chunk_unix_ns"`
	FinishedNs    int64   `json:"finished_unix_ns"`
}

// handleTraces serves the traces (Options.ServeTraces), so a client in another process can
// join its figures to the engine's own flush times.
func (s *Server) handleTraces(w http.ResponseWriter, _ *http.Request) {
	traces := s.Traces()
	out := make([]wireTrace, len(traces))
	unix := func(t time.Time) int64 {
		if t.IsZero() {
			return 0
		}
		return t.UnixNano()
	}
	for i, t := range traces {
		out[i] = wireTrace{Index: t.Index, Status: t.Status, PromptHead: t.PromptHead, PromptTokens: t.PromptTokens,
			ArrivedUnixNs: unix(t.Arrived), FirstTokenNs: unix(t.FirstToken), FinishedNs: unix(t.Finished),
			ChunkUnixNs: make([]int64, len(t.ChunkTimes))}
		for k, c := range t.ChunkTimes {
			out[i].ChunkUnixNs[k] = c.UnixNano()
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
