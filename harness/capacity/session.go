package capacity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/schedule"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
)

// Sessions, when Count is above 0, runs that many multi-turn conversations in place of a
// scenario's Requests independent prompts. Turn k of a session sends its system context
// (the scenario's ContextTokens, or drawn from its ContextBuckets per session), every
// earlier user message and the engine's own earlier answers, and a new user message of
// TurnTokens tokens asking for the scenario's ResponseWords code words. Concurrency
// sessions are in flight, each a closed loop of its turns, or sessions open at Rate per
// second; ThinkTime passes between an answer and the next turn (ThinkDistribution fixed or
// exponential). A turn that fails ends its session: its later turns are failures.
//
// Sessions number their requests session by session: turn t of session s is request
// s*Turns + t.
type Sessions struct {
	Count             int           `key:"sessions" range:"[0,100000]" default:"0"`
	Turns             int           `key:"turns" range:"[0,64]" default:"6"`
	TurnTokens        int           `key:"turn_tokens" range:"[0,1048576]" default:"256"`
	ThinkTime         time.Duration `key:"think_time" default:"0s"`
	ThinkDistribution ThinkTime     `key:"think_distribution" default:"fixed" zero:"default"`
	Rate              float64       `key:"session_rate" range:"[0,100000]" default:"0"`
}

// held reports whether the scenario holds sessions.
func (s Sessions) held() bool { return s.Count > 0 }

// problems are the sessions' own problems in sc: what they cannot be combined with, since
// they set their own schedule and sharing and answer in text, and fields that mean nothing
// without them.
func (s Sessions) problems(sc Scenario) []error {
	var errs []error
	add := problemsInto(&errs)
	if s.ThinkTime < 0 || s.ThinkTime > time.Hour {
		add("Sessions.ThinkTime", s.ThinkTime, "want a duration in [0, 1h]")
	}
	if !s.held() {
		if s.Rate > 0 {
			add("Sessions.Rate", s.Rate, "needs %s > 0", "Sessions.Count")
		}
		return errs
	}
	errs = append(errs, conflicts("Sessions.Count", s.Count, sc)...)
	if s.Turns == 0 {
		add("Sessions.Turns", 0, "a session needs at least one turn")
	}
	if sc.Output != "" && sc.Output != OutputText {
		add("Output", string(sc.Output), "a session's turns answer in text; %s is for single requests and traces", "Sessions.Count")
	}
	if sh := sc.Shard; sh.sharded() && s.Count < sh.Count {
		add("Shard", fmt.Sprintf("%d/%d", sh.Index, sh.Count), fmt.Sprintf("more shards than the %d sessions: a session never spans shards", s.Count))
	}
	return errs
}

// templateTokensPerMessage estimates what a chat template adds to each message of a
// conversation (role markers), for a session's planned context.
const templateTokensPerMessage = 4

// kindSessionEnded is the failure of a turn not sent because an earlier turn of its session
// failed.
const kindSessionEnded = "session_ended"

// sessionKind holds sessions of turns, each a closed loop.
type sessionKind struct {
	// sessions are the session numbers the run holds (a shard's share), systemTokens each
	// session's planned system context, by session number.
	sessions     []int
	systemTokens []int
}

// The turns are the requests.
func (*sessionKind) replaces(_ Scenario, field string) bool { return field == "Requests" }

func (*sessionKind) requests(sc Scenario) int { return sc.Sessions.Count * sc.Sessions.Turns }

// plan draws each session's system context and plans every turn at it: a turn's planned
// context grows with the conversation, and is set as the turn is sent. Sessions that would
// outgrow the served window by their last turn are refused.
func (k *sessionKind) plan(r *run) ([]planned, error) {
	sc := r.sc
	k.systemTokens = sessionSystemTokens(sc)
	if msg := sessionsOverWindow(sc, k.systemTokens, windowSource(r.caps)); msg != "" {
		return nil, errors.New(msg)
	}
	plan := make([]planned, k.requests(sc))
	for i := range plan {
		plan[i] = planned{context: k.systemTokens[i/sc.Sessions.Turns], maxTokens: sc.MaxTokens, words: sc.ResponseWords}
	}
	return plan, nil
}

// prepare takes the shard's sessions, every turn of each, and starts them Concurrency at a
// time, or at the sessions' rate.
func (k *sessionKind) prepare(_ context.Context, r *run) ([]int, pacer, error) {
	s := r.sc.Sessions
	k.sessions = sessionIndices(r.sc)
	var indices []int
	for _, n := range k.sessions {
		for t := range s.Turns {
			indices = append(indices, n*s.Turns+t)
		}
	}
	r.expected = make([]*cacheRange, len(r.plan))
	r.keepAnswers = true
	start := func(ctx context.Context, j int, due, ready time.Time) time.Time {
		return k.session(ctx, r, j, due, ready)
	}
	if s.Rate <= 0 {
		return indices, closedLoop{units: len(k.sessions), concurrency: r.concurrency, start: start}, nil
	}
	all, err := schedule.Arrivals(s.Count, s.Rate, schedule.Poisson, r.sc.ContextSeed)
	if err != nil {
		return nil, nil, err
	}
	offsets := make([]time.Duration, len(k.sessions))
	for j, n := range k.sessions {
		offsets[j] = all[n]
	}
	return indices, openLoop{offsets: offsets, concurrency: r.concurrency, start: start}, nil
}

// finish has nothing left to work out: a turn's expectation is set as it is sent.
func (*sessionKind) finish(*run) {}

// record gives the figures by turn (the artifact's anvilbench.sessions), and the session
// and turn of each request.
func (k *sessionKind) record(r *run, b *artifact.Benchmark) {
	x, s := b.Extension, r.sc.Sessions
	for j := range x.Timeline {
		i := r.local(x.Timeline[j].RequestIndex)
		x.Timeline[j].Session, x.Timeline[j].Turn = new(i/s.Turns), new(i%s.Turns+1)
	}
	out := &artifact.Sessions{Sessions: len(k.sessions) * r.sc.Repeats, Turns: s.Turns, TurnTokens: s.TurnTokens,
		ThinkTimeMs: artifact.Float(s.ThinkTime.Seconds() * 1000), ThinkDistribution: string(s.ThinkDistribution)}
	if s.Rate > 0 {
		out.SessionRate = artifact.F(s.Rate)
	}
	out.ByTurn = turnFigures(x.Timeline, s.Turns)
	x.Sessions = out
}

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
	return workload.PlanContexts(sc.Sessions.Count, sc.ContextTokens, sc.ContextSeed, sc.ContextBuckets, 0)
}

// sessionPeak is the planned context of a session's last turn with system tokens of
// context: what the served window must hold, with max_tokens and the margin.
func sessionPeak(sc Scenario, system int) int {
	turns := sc.Sessions.Turns
	return system + turns*(sc.Sessions.TurnTokens+templateTokensPerMessage) + (turns-1)*(sc.ResponseWords+1+templateTokensPerMessage)
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
		over, sc.Sessions.Count, sc.MaxContextTokens, source, sc.Sessions.Turns, sc.Sessions.TurnTokens, sc.ResponseWords, largest, sc.MaxTokens, sc.ContextMargin)
}

// sessionIndices are the sessions of the shard: session s belongs to segment s mod Count,
// so a session never spans shards.
func sessionIndices(sc Scenario) []int {
	var out []int
	for s := range sc.Sessions.Count {
		if !sc.Shard.sharded() || s%sc.Shard.Count == sc.Shard.Index {
			out = append(out, s)
		}
	}
	return out
}

// session runs the turns of the shard's k-th session: each sends the conversation so far,
// the engine's own answers included, and a new user message. A failed turn ends the
// session; its later turns are failures that were never sent. It returns when its last
// turn sent ended.
func (k *sessionKind) session(ctx context.Context, r *run, j int, due, ready time.Time) (end time.Time) {
	s := k.sessions[j]
	sp := k.sessionPlan(r, s)
	turns := r.sc.Sessions.Turns
	history := make([]stream.Message, 1, 1+2*turns)
	history[0] = stream.Message{Role: "system", Content: sp.system}
	think := r.thinkTimes(s)
	prev := -1 // the slot of the previous turn
	for t := range turns {
		i, slot := s*turns+t, j*turns+t
		if t > 0 {
			// The next turn can start once the answer is in and the user has thought.
			ready, due = r.outcomes[prev].end.Add(think()), time.Time{}
			pause(ctx, time.Until(ready))
		}
		r.plan[i].context = r.turnPlanned(sp, t, prev)
		if t > 0 {
			r.expected[i] = r.turnExpected(prev)
		}
		user := r.prompts.SessionTurn(i, s, t, sp.turnChars, sp.answerWords)
		o := r.sendTurn(ctx, i, history, user, due)
		o.due, o.ready = due, ready
		r.outcomes[slot] = o
		r.progress.record(o)
		if o.row == nil {
			r.endSession(s, j, t, o)
			return o.end
		}
		history = append(history, stream.Message{Role: "user", Content: user}, stream.Message{Role: "assistant", Content: o.answer})
		r.outcomes[slot].answer = "" // kept in the history only, until the session ends
		prev = slot
	}
	return r.outcomes[prev].end
}

// sessionPlan sizes session s: its system context and its turns.
func (k *sessionKind) sessionPlan(r *run, s int) sessionPlan {
	sc := r.sc
	sys := k.systemTokens[s]
	return sessionPlan{index: s, system: r.prompts.SessionSystem(s, r.prompts.Chars(sys)), systemToks: sys,
		turnChars: int(float64(sc.Sessions.TurnTokens) * r.prompts.CharsPerToken), turnTokens: sc.Sessions.TurnTokens, answerWords: sc.ResponseWords}
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
	previous := r.plan[r.indices[prev]].context
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
	p := r.plan[r.indices[prev]].context
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
		return r.requestError(i, r.plan[i].context, began, stream.KindCancelled, "not sent: run interrupted: "+context.Cause(ctx).Error())
	}
	req := r.sc.request(user)
	req.History = history
	body := bodies.Get().(*[]byte)
	var err error
	if *body, err = req.AppendBody((*body)[:0]); err != nil {
		recycle(&bodies, body)
		return r.requestError(i, r.plan[i].context, began, kindPrompt, err.Error())
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
	turns := r.sc.Sessions.Turns
	for u := t + 1; u < turns; u++ {
		i := s*turns + u
		o := r.requestError(i, r.plan[i].context, time.Now(), kindSessionEnded, fmt.Sprintf("not sent: turn %d of session %d %s, which ended the session", t+1, s, why))
		r.outcomes[k*turns+u] = o
		r.progress.record(o)
	}
}

// thinkTimes draws session s's pauses between an answer and its next turn.
func (r *run) thinkTimes(s int) func() time.Duration {
	mean := r.sc.Sessions.ThinkTime
	if r.sc.Sessions.ThinkDistribution != ThinkExponential || mean <= 0 {
		return func() time.Duration { return mean }
	}
	rng := rand.New(rand.NewPCG(uint64(r.sc.ContextSeed), uint64(s)+0x7468696e6b))
	return func() time.Duration { return time.Duration(rng.ExpFloat64() * float64(mean)) }
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
