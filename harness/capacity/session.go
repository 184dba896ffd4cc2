package capacity

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/schedule"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/harness/stream"
)

// Sessions number their requests session by session: turn t of session s is request
// s*Turns + t.

// templateTokensPerMessage estimates what a chat template adds to each message of a
// conversation (role markers), for a session's planned context.
const templateTokensPerMessage = 4

// kindSessionEnded is the failure of a turn not sent because an earlier turn of its session
// failed.
const kindSessionEnded = "session_ended"

// sessionPlan is one session's fixed part: its system context and how its turns are sized.
type sessionPlan struct {
	index       int // the session's number
	system      string
	systemToks  int // its planned tokens (the first turn's context, without the user message)
	turnChars   int
	turnTokens  int
	answerWords int
}

// sessionSystemTokens draws each session's system context: ContextTokens, or a size from
// ContextBuckets (the original tool's sub-agent contexts) per session.
func sessionSystemTokens(sc Scenario) []int {
	return workload.PlanContexts(sc.Sessions, sc.ContextTokens, sc.ContextSeed, sc.ContextBuckets, 0)
}

// sessionPeak is the planned context of a session's last turn with system tokens of
// context: what the served window must hold, with max_tokens and the margin.
func sessionPeak(sc Scenario, system int) int {
	turns := sc.Turns
	return system + turns*(sc.TurnTokens+templateTokensPerMessage) + (turns-1)*(sc.ResponseWords+1+templateTokensPerMessage)
}

// sessionsOverWindow says why the sessions do not fit the served window, "" when they do.
func sessionsOverWindow(sc Scenario, systems []int, source string) string {
	if sc.MaxContextTokens <= 0 {
		return ""
	}
	over, largest := 0, 0
	for _, s := range systems {
		if need := sessionPeak(sc, s) + sc.MaxTokens + sc.ContextMargin; need > sc.MaxContextTokens {
			over++
			largest = max(largest, need)
		}
	}
	if over == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d sessions would outgrow the served window of %d tokens (%s) by their last turn: %d turns of %d tokens and %d-word answers on a system context need up to %d tokens with max_tokens %d and the margin %d; send fewer turns, shorter turns or a smaller context",
		over, sc.Sessions, sc.MaxContextTokens, source, sc.Turns, sc.TurnTokens, sc.ResponseWords, largest, sc.MaxTokens, sc.ContextMargin)
}

// sessionIndices are the sessions of the shard: session s belongs to segment s mod Count,
// so a session never spans shards.
func sessionIndices(sc Scenario) []int {
	var out []int
	for s := range sc.Sessions {
		if !sc.Shard.sharded() || s%sc.Shard.Count == sc.Shard.Index {
			out = append(out, s)
		}
	}
	return out
}

// executeSessions runs the shard's sessions, each a closed loop of its turns: Concurrency
// sessions in flight, or sessions opened at SessionRate. Outcome slot k*Turns+t is turn t
// of the shard's k-th session.
func (r *run) executeSessions(ctx context.Context, sessions []int) (started, finished time.Time) {
	started = time.Now()
	if r.sc.SessionRate > 0 {
		offsets, err := schedule.Arrivals(r.sc.Sessions, r.sc.SessionRate, schedule.Poisson, r.sc.ContextSeed)
		if err != nil { // validated: a positive rate and a known model
			panic(err)
		}
		mine := make([]time.Duration, len(sessions))
		for k, s := range sessions {
			mine[k] = offsets[s]
		}
		schedule.OpenLoop(ctx, started, mine, r.concurrency, func(ctx context.Context, k int, due, ready time.Time) {
			r.session(ctx, k, sessions[k], due, ready)
		})
		return started, time.Now()
	}
	schedule.ClosedLoop(ctx, len(sessions), r.concurrency, func(ctx context.Context, _, k int) {
		r.session(ctx, k, sessions[k], time.Time{}, time.Now())
	})
	return started, time.Now()
}

// session runs the turns of session s (the shard's k-th): each sends the conversation so
// far, the engine's own answers included, and a new user message. A failed turn ends the
// session; its later turns are failures that were never sent.
func (r *run) session(ctx context.Context, k, s int, due, ready time.Time) {
	sp := r.sessionPlan(s)
	turns := r.sc.Turns
	history := make([]stream.Message, 1, 1+2*turns)
	history[0] = stream.Message{Role: "system", Content: sp.system}
	think := r.thinkTimes(s)
	prev := -1 // the slot of the previous turn
	for t := range turns {
		i, slot := s*turns+t, k*turns+t
		if t > 0 {
			// The next turn can start once the answer is in and the user has thought.
			ready, due = r.outcomes[prev].end.Add(think()), time.Time{}
			pause(ctx, time.Until(ready))
		}
		r.plan[i] = r.turnPlanned(sp, t, prev)
		if t > 0 {
			r.expected[i] = r.turnExpected(prev)
		}
		user := r.prompts.SessionTurn(i, s, t, sp.turnChars, sp.answerWords)
		o := r.sendTurn(ctx, i, history, user, due)
		o.due, o.ready = due, ready
		r.outcomes[slot] = o
		r.progress.record(o)
		if o.row == nil {
			r.endSession(s, k, t, o)
			return
		}
		history = append(history, stream.Message{Role: "user", Content: user}, stream.Message{Role: "assistant", Content: o.answer})
		r.outcomes[slot].answer = "" // kept in the history only, until the session ends
		prev = slot
	}
}

// sessionPlan sizes session s: its system context and its turns.
func (r *run) sessionPlan(s int) sessionPlan {
	sc := r.sc
	sys := r.systemTokens[s]
	return sessionPlan{index: s, system: r.prompts.SessionSystem(s, r.prompts.Chars(sys)), systemToks: sys,
		turnChars: int(float64(sc.TurnTokens) * r.prompts.CharsPerToken), turnTokens: sc.TurnTokens, answerWords: sc.ResponseWords}
}

// turnPlanned is turn t's planned context: the previous turn's prompt as the engine counted
// it (else as planned), the answer it gave as the history sends it back (answerTokens),
// and the new user message, each message with its template's markers. The first turn is
// the system context and one user message.
func (r *run) turnPlanned(sp sessionPlan, t, prev int) int {
	if t == 0 {
		return sp.systemToks + sp.turnTokens + templateTokensPerMessage
	}
	o := r.outcomes[prev]
	previous := r.plan[r.indices[prev]]
	if o.promptTokens != nil {
		previous = *o.promptTokens
	}
	return previous + answerTokens(o, sp.answerWords) + 2*templateTokensPerMessage + sp.turnTokens
}

// answerTokens estimates the tokens of a turn's answer as the history sends it back: its
// visible content. That is the tokens the engine reported generating but the end token,
// less its reasoning, which completion_tokens counts and the history leaves out: the
// tokens are shared out by chunk, as the share of content chunks. Without a count, the
// words asked.
func answerTokens(o outcome, words int) int {
	if o.row == nil || o.row.OutputTokens == nil {
		return words
	}
	generated := max(*o.row.OutputTokens-1, 0)
	content, reasoning := o.row.ContentChunks, o.row.ReasoningChunks
	if reasoning == 0 || content+reasoning == 0 {
		return generated
	}
	return int(math.Round(float64(generated) * float64(content) / float64(content+reasoning)))
}

// turnExpected is what turn t can find cached: the whole previous prompt (its prompt
// tokens as the engine counted them, else as planned), and at most the answer after it,
// which an engine that caches generated tokens holds too.
func (r *run) turnExpected(prev int) *cacheRange {
	o := r.outcomes[prev]
	p := r.plan[r.indices[prev]]
	if o.promptTokens != nil {
		p = *o.promptTokens
	}
	x := &cacheRange{Min: p, Max: p}
	if o.row != nil && o.row.OutputTokens != nil {
		x.Max += *o.row.OutputTokens
	}
	return x
}

// sendTurn sends one turn: the history, then the new user message.
func (r *run) sendTurn(ctx context.Context, i int, history []stream.Message, user string, due time.Time) outcome {
	began := time.Now()
	if err := ctx.Err(); err != nil {
		return r.requestError(i, r.plan[i], began, stream.KindCancelled, "not sent: run interrupted: "+context.Cause(ctx).Error())
	}
	req := r.sc.request(user)
	req.History = history
	body := bodies.Get().(*[]byte)
	var err error
	if *body, err = req.AppendBody((*body)[:0]); err != nil {
		recycle(&bodies, body)
		return r.requestError(i, r.plan[i], began, kindPrompt, err.Error())
	}
	if due.IsZero() {
		due = began
	}
	return r.send(ctx, i, began, due, body)
}

// endSession records the turns after failed turn t of session s (the shard's k-th) as
// failures that were never sent.
func (r *run) endSession(s, k, t int, failed outcome) {
	why := "failed"
	if failed.failure != nil {
		why = "failed (" + failed.failure.ErrorType + ")"
	}
	for u := t + 1; u < r.sc.Turns; u++ {
		i := s*r.sc.Turns + u
		o := r.requestError(i, r.plan[i], time.Now(), kindSessionEnded, fmt.Sprintf("not sent: turn %d of session %d %s, which ended the session", t+1, s, why))
		r.outcomes[k*r.sc.Turns+u] = o
		r.progress.record(o)
	}
}

// thinkTimes draws session s's pauses between an answer and its next turn.
func (r *run) thinkTimes(s int) func() time.Duration {
	mean := r.sc.ThinkTime
	if r.sc.ThinkDistribution != ThinkExponential || mean <= 0 {
		return func() time.Duration { return mean }
	}
	rng := rand.New(rand.NewPCG(uint64(r.sc.ContextSeed), uint64(s)+0x7468696e6b))
	return func() time.Duration { return time.Duration(rng.ExpFloat64() * float64(mean)) }
}

// pause waits d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// sessionSummary gives the figures by turn (the artifact's anvilbench.sessions), from
// the timeline, which holds every turn of every session.
func (r *run) sessionSummary(spans []artifact.RequestSpan) *artifact.Sessions {
	if r.sc.Sessions == 0 {
		return nil
	}
	sc := r.sc
	out := &artifact.Sessions{Sessions: len(r.sessions), Turns: sc.Turns, TurnTokens: sc.TurnTokens,
		ThinkTimeMs: artifact.Float(sc.ThinkTime.Seconds() * 1000), ThinkDistribution: string(sc.ThinkDistribution)}
	if sc.SessionRate > 0 {
		out.SessionRate = artifact.F(sc.SessionRate)
	}
	out.ByTurn = turnFigures(spans, sc.Turns)
	return out
}

// turnFigures are the figures of each turn over the sessions of spans: TTFT, prompt and
// cached tokens, and the cache hit rate expected and observed.
func turnFigures(spans []artifact.RequestSpan, turns int) []artifact.TurnFigures {
	type sample struct{ ttft, prompt, cached, expected []float64 }
	by := make([]sample, turns)
	out := make([]artifact.TurnFigures, turns)
	for k := range out {
		out[k].Turn = k + 1
	}
	for _, sp := range spans {
		if sp.Turn == nil || *sp.Turn < 1 || *sp.Turn > turns {
			continue
		}
		t := *sp.Turn - 1
		out[t].Requests++
		if sp.Outcome != "ok" {
			out[t].Failed++
			continue
		}
		if sp.TTFTMs != nil {
			by[t].ttft = append(by[t].ttft, float64(*sp.TTFTMs))
		}
		if sp.PromptTokens == nil {
			continue
		}
		by[t].prompt = append(by[t].prompt, float64(*sp.PromptTokens))
		if sp.CachedTokens != nil {
			by[t].cached = append(by[t].cached, float64(*sp.CachedTokens))
		}
		if sp.ExpectedCachedMin != nil {
			by[t].expected = append(by[t].expected, float64(*sp.ExpectedCachedMin))
		}
	}
	for t, x := range by {
		out[t].TTFTMs = percentiles(x.ttft)
		out[t].PromptTokensMean = meanOf(x.prompt)
		out[t].CachedTokensMean = meanOf(x.cached)
		if len(x.prompt) > 0 {
			if len(x.cached) == len(x.prompt) {
				out[t].CacheHitRate = artifact.F(sum(x.cached) / sum(x.prompt))
			}
			out[t].ExpectedHitRate = artifact.F(sum(x.expected) / sum(x.prompt))
		}
	}
	return out
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

func meanOf(v []float64) *artifact.Float {
	if len(v) == 0 {
		return nil
	}
	return artifact.F(math.Round(sum(v)/float64(len(v))*10) / 10)
}
