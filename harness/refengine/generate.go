package refengine

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// run is one validated generation request being simulated, on its handler's goroutine.
type run struct {
	s          *Server
	j          *job
	tr         *traceRec
	w          http.ResponseWriter
	rc         *http.ResponseController
	enc        encoder // streamed responses only
	id, object string
	created    int64
	per        int // tokens per chunk
	admitted   time.Time
	// scheduled is when the request's prefill could start (admitted plus QueueDelay);
	// firstToken when its first token chunk went out (streamed).
	scheduled, firstToken time.Time
	cached                int // prompt tokens served by the prefix cache
	u                     usageCounts

	headersSent, roleSent, contentSent, firstDone, toolSent bool
	// spec is the request's speculative decode; stepEnds whether the token just taken ends
	// its step.
	spec     specStep
	stepEnds bool
}

// callID is the id of the reply's tool call.
func (g *run) callID() string { return "call_" + g.id }

func (s *Server) newRun(w http.ResponseWriter, j *job, tr *traceRec) *run {
	index := tr.t.Index // immutable after newTrace
	g := &run{s: s, j: j, tr: tr, w: w, rc: http.NewResponseController(w),
		id: "chatcmpl-" + strconv.Itoa(index), object: "chat.completion",
		created: tr.t.Arrived.Unix(), per: s.opts.TokensPerChunk}
	if j.legacy {
		g.id, g.object = "cmpl-"+strconv.Itoa(index), "text_completion"
	}
	if j.stream {
		g.enc = surfaces[j.api].encoder(g, index)
	}
	return g
}

// generate simulates one validated request: admission, prefill, then one chunk per
// TokensPerChunk tokens at its absolute deadline. It returns when the response is complete,
// a fault ended it, or ctx is done (client gone, server closing).
func (s *Server) generate(ctx context.Context, w http.ResponseWriter, j *job, tr *traceRec) {
	g := s.newRun(w, j, tr)
	f := &j.faults
	if j.stream && !f.HeadersWithFirstToken {
		// Headers go out at once, as vLLM's do; the body waits for the first token.
		g.writeHeaders()
		if err := g.rc.Flush(); err != nil {
			tr.finish(0, "", true)
			return
		}
	}

	if err := s.gate.acquire(ctx, j.priority); err != nil {
		tr.finish(0, "", true)
		return
	}
	defer s.gate.release() // after tr.finish below: a waiter is admitted only once we are done

	admitted := time.Now()
	g.admitted = admitted
	limit, truncated := j.plan.tokens, false
	if t := f.TruncateAfter; t > 0 && t < limit {
		limit, truncated = t, true
	}
	// The prefill compute is booked now; like work already scheduled on a GPU, it is not
	// given back if the client leaves.
	scheduled := admitted.Add(time.Duration(float64(s.opts.QueueDelay) * s.pace.at(tr.t.Index, admitted)))
	g.scheduled = scheduled
	computeDone, cached := s.bookPrefill(scheduled, j, s.pace.at(tr.t.Index, admitted))
	g.cached = cached
	tr.set(func(t *RequestTrace) {
		t.Admitted, t.Scheduled = admitted, scheduled
		t.CachedTokens = cached
		if j.stream {
			t.ChunkTimes = make([]time.Time, 0, min(limit/g.per, 1<<12)+1)
		}
	})
	steps := newStepper(&s.opts, s.pace, &s.gate.running, tr.t.Index)
	steps.factor *= j.slowdown
	deadline := computeDone.Add(time.Duration(float64(s.opts.PrefillOverhead) * steps.factor * s.pace.at(tr.t.Index, admitted)))
	// An engine that decodes on after its client leaves sleeps past the client's going.
	decodeCtx := ctx
	if s.opts.DecodeOnAfterCancel {
		decodeCtx = context.WithoutCancel(ctx)
	}
	sleep := newSleeper(decodeCtx, true)
	defer sleep.close()
	gone := false // the client left; the engine decodes on, writing nothing

	var pending []byte // the chunk being assembled (streamed)
	var rp reply       // the whole reply (not streamed)
	finish := ""
	g.spec = specStep{spec: s.spec}
	defer g.recordSpec()
	for i := 0; i < limit; i++ {
		if g.spec.begins(i) && i > 0 {
			deadline = deadline.Add(steps.next())
		}
		g.stepEnds = g.spec.consume(i)
		n, reasoning, tok := i+1, j.plan.isReasoning(i), j.plan.text(i)
		switch {
		case j.stream:
			pending = append(pending, tok...)
		case j.plan.endless: // nothing to keep: the reply never ends
		case reasoning:
			rp.reasoning = append(rp.reasoning, tok...)
		default:
			rp.content, rp.hasContent = append(rp.content, tok...), true
		}
		last := n == limit
		if !last && !g.boundary(n) {
			continue
		}
		if err := sleep.until(deadline); err != nil {
			tr.finish(0, "", true)
			return
		}
		if !gone && ctx.Err() != nil && s.opts.DecodeOnAfterCancel {
			gone = true
		}
		if gone {
			g.produced(n)
			continue
		}
		if last && !truncated {
			finish = j.plan.finish
			if j.tool != "" && finish == finishStop {
				finish = finishToolCalls
			}
		}
		if j.stream {
			if err := g.emit(n, reasoning, pending, finish); err != nil {
				if s.opts.DecodeOnAfterCancel {
					gone = true
					continue
				}
				tr.finish(0, "", true)
				return
			}
			pending = pending[:0]
			if g.afterChunk(n) {
				return
			}
		} else {
			g.produced(n)
			if n == f.ResetAfter {
				g.reset()
				return
			}
		}
		if n == f.StallAfter {
			deadline = deadline.Add(f.StallFor)
		}
	}
	if gone {
		tr.finish(0, "", true)
		return
	}
	if j.stream {
		g.endStream(truncated, limit, finish)
		return
	}
	g.answer(&rp, truncated, limit, finish)
}

// boundary tells whether a chunk ends after token n (1-based) although the reply goes on:
// every TokensPerChunk tokens (under speculation, at the end of each decode step), where
// reasoning turns into content, and where a fault acts.
func (g *run) boundary(n int) bool {
	f := &g.j.faults
	grid := n%g.per == 0
	if g.spec.spec != nil {
		grid = g.stepEnds
	}
	return grid || g.j.plan.isReasoning(n-1) != g.j.plan.isReasoning(n) ||
		n == f.ResetAfter || n == f.CloseMidEvent || n == f.MalformedAfter || n == f.StallAfter
}

// recordSpec puts what the request's speculative steps drafted and accepted in its trace.
func (g *run) recordSpec() {
	if g.spec.spec == nil {
		return
	}
	p := g.spec
	g.tr.set(func(t *RequestTrace) {
		t.SpecDrafts, t.SpecDraftTokens, t.SpecAccepted, t.SpecAcceptedPerPos = p.drafts, p.drafted, p.accepted, p.perPos
	})
}

// usage is the usage after n completion tokens.
func (g *run) usage(n int) usageCounts {
	u := usageCounts{prompt: g.j.promptTokens, completion: n, cached: -1, reasoning: -1}
	if g.s.cache != nil {
		u.cached = g.cached
	}
	if g.j.think {
		u.reasoning = g.j.plan.reasoningProduced(n)
	}
	return u
}

// produced records n tokens of a non-streamed reply in the trace.
func (g *run) produced(n int) {
	reasoning := g.j.plan.reasoningProduced(n)
	g.tr.set(func(t *RequestTrace) {
		if t.FirstToken.IsZero() {
			t.FirstToken = time.Now()
		}
		t.CompletionTokens, t.ReasoningTokens = n, reasoning
	})
}

// answer sends a non-streamed response of limit tokens.
func (g *run) answer(rp *reply, truncated bool, limit int, finish string) {
	var u *usageCounts
	if !g.j.faults.NoUsage {
		uc := g.usage(limit)
		u = &uc
	}
	body := g.completionBody(rp, finish, u)
	if truncated {
		body = body[:len(body)/2] // a cut JSON document, as from a crashed server
	}
	g.w.Header().Set("Content-Type", "application/json")
	g.w.WriteHeader(http.StatusOK)
	_, err := g.w.Write(body)
	g.tr.finish(http.StatusOK, finish, err != nil)
}
