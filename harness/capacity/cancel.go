package capacity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
)

// cancelling is the scenario's requests the client leaves (embedded in Scenario).
type cancelling struct {
	// CancelRate is the share of the requests the client abandons, as a user who closes the
	// tab does: each of them is left after CancelAfterTokens output chunks (tokens, from an
	// engine that sends one a chunk), recorded apart from completed and failed requests, out
	// of every latency figure, and the run checks that the engine stopped them. Which ones
	// is fixed by ContextSeed.
	CancelRate        float64 `key:"cancel_rate" range:"[0,1]" default:"0"`
	CancelAfterTokens int     `key:"cancel_after_tokens" range:"[0,1048576]" default:"4" zero:"default"`
}

func init() { registerFeature(func() feature { return &leaving{} }, 30) }

// leaving is the feature of requests the client leaves: which ones, whether the engine
// stopped them (its metrics over the run, a request left on the idle engine after it, or a
// probe), and what the artifact records. abandon[i] is whether request i of a block is
// left; drain what the engine showed after the measured phase.
type leaving struct {
	noFeatureHooks
	abandon []bool
	drain   drained
}

func (leaving) on(sc *Scenario) bool { return sc.CancelRate > 0 }
func (leaving) off(sc *Scenario)     { sc.cancelling = cancelling{} }

func (leaving) validate(sc *Scenario, k kind, add addProblem) {
	independentOnly(k, add, "CancelRate", sc.CancelRate, "a trace's lines and a session's turns are not abandoned")
	if sc.MaxTokens > 0 && sc.CancelAfterTokens >= sc.MaxTokens {
		add("CancelAfterTokens", sc.CancelAfterTokens, fmt.Sprintf("must be below %%s (%d): a request is left before it ends", sc.MaxTokens), "MaxTokens")
	}
}

func (l *leaving) prepare(_ context.Context, r *run) error {
	l.abandon = abandonPlan(len(r.plan), r.sc.CancelRate, r.sc.ContextSeed)
	return nil
}

func (l *leaving) call(r *run, i int, c *stream.Call) {
	if l.abandons(r, i) {
		c.AbandonAfter = r.sc.CancelAfterTokens
	}
}

func (l *leaving) settle(ctx context.Context, r *run, b *artifact.Benchmark) {
	// The measured phase's end as its last block stamped it, on the monotonic clock.
	l.drain = l.drained(ctx, r, b, r.blocks[len(r.blocks)-1].finished)
}

// record asks the idle engine (after the watch's last scrape: the request left to ask is in
// none of the run's counts) and writes anvilbench.cancellation.
func (l *leaving) record(ctx context.Context, r *run, b *artifact.Benchmark) {
	l.drain.asked = l.askLeave(ctx, r, b)
	b.Extension.Cancellation = l.cancellation(r, b)
}

func (leaving) merge(shards []NamedArtifact, _ []artifact.RequestSpan, b *artifact.Benchmark) {
	b.Extension.Cancellation = mergedCancellation(shards)
}

// abandonPlan picks round(rate × n) of n requests to abandon, by seed: the same ones in
// every run of the scenario.
func abandonPlan(n int, rate float64, seed int64) []bool {
	k := int(math.Round(rate * float64(n)))
	if k == 0 {
		return nil
	}
	out := make([]bool, n)
	for _, i := range rand.New(rand.NewPCG(uint64(seed), 0xab4d0)).Perm(n)[:k] {
		out[i] = true
	}
	return out
}

// abandons reports whether request i is one the client leaves.
func (l *leaving) abandons(r *run, i int) bool {
	return l.abandon != nil && l.abandon[r.local(i)]
}

// stopTolerance is how long after the measured phase's end an engine may still report a
// running request and be said to have stopped what its clients left: its gauges are
// scraped, not pushed.
const stopTolerance = time.Second

// drained is what the engine's gauges showed after a run that left requests: how long
// after the measured phase's end it still ran some, and whether it ran none by the bound.
// Without gauges, probe is what a probe found (see leaveProbe).
type drained struct {
	after          time.Duration
	stopped, known bool
	probe          *leftProbe
	asked          *leftAsked
}

// leftAsked is what the engine's metrics showed of one request left on the idle engine
// after the run (askLeave): when its gauges read none again after the leave (idle, within
// the bound), and what its generated-tokens counter grew by meanwhile.
type leftAsked struct {
	idleAfter           time.Duration
	idle, gauge         bool
	tokens              float64
	counter             bool
	err                 error
	expected, bound     time.Duration
	afterTokens, answer int
}

// probeTells is the least rest of an answer whose decode a probe can tell from the noise of
// its own timing on a busy machine (against Ollama, waits of up to 21 ms were seen beside an
// engine that stopped).
const probeTells = 150 * time.Millisecond

// leftProbe is a probe of an engine that exports no metrics: a request left after the
// scenario's tokens and, right after, one of a single token, timed against the same token
// asked of the idle engine. An engine of one slot that decodes on makes the second wait for
// the first's remaining answer (expected, at the run's TPOT); one that stopped does not.
type leftProbe struct {
	waited, expected time.Duration
	err              error
}

// drained polls the engine's running and waiting gauges from the measured phase's end until
// both read none, at most until twice the longest completed request (5 s to a minute) has
// passed; nothing when the run left no request or the metrics are not scraped.
func (l *leaving) drained(ctx context.Context, r *run, b *artifact.Benchmark, finished time.Time) drained {
	if l.abandon == nil || r.abandoned() == 0 {
		return drained{}
	}
	if r.engine == nil || !r.engine.Serves() {
		return drained{probe: r.leaveProbe(ctx, b)}
	}
	bound := 5 * time.Second
	if d := b.Metrics.E2E.Max; d != nil {
		bound = min(time.Minute, max(bound, 2*time.Duration(float64(*d)*float64(time.Millisecond))))
	}
	after, stopped, known := r.engine.Drained(ctx, finished, bound)
	return drained{after: after, stopped: stopped, known: known}
}

// askLeave asks an engine that exports metrics whether it stops a request its client
// leaves: on the idle engine, after the run, one request of the scenario's is left after
// its CancelAfterTokens, and the engine's gauges are read until they show none running or
// waiting (an engine that decodes on holds the request running until its answer would
// have ended), then its generated-tokens counter. A gauge at none when the run ended says
// nothing of a request left earlier that the engine decoded on and finished meanwhile;
// this asks. nil when the run left none or the engine serves no metrics.
func (l *leaving) askLeave(ctx context.Context, r *run, b *artifact.Benchmark) *leftAsked {
	if l.abandon == nil || r.abandoned() == 0 || r.engine == nil || !r.engine.Serves() {
		return nil
	}
	if ctx.Err() != nil {
		return &leftAsked{err: errors.New("the run was interrupted before the engine was asked")}
	}
	a := &leftAsked{afterTokens: r.sc.CancelAfterTokens, answer: r.base[0].words + 1}
	// An answer long enough that one decoded on is held a second, within the plan's
	// max_tokens (which its window holds).
	words := r.base[0].words
	if tpot := b.Metrics.TPOT.P50; tpot != nil && *tpot > 0 {
		words = min(max(words, int(float64(time.Second)/(float64(*tpot)*float64(time.Millisecond)))+a.afterTokens), r.base[0].maxTokens-2)
		words = max(words, r.base[0].words)
		a.answer = words + 1
	}
	before, err := r.engine.Read(ctx)
	switch {
	case err != nil:
		a.err = fmt.Errorf("asking it failed: the engine's metrics: %w", err)
		return a
	case !before.HasRunning && !before.HasGenerated:
		return nil
	case before.HasRunning && !before.Idle():
		a.err = fmt.Errorf("it could not be asked: the engine was not idle (%.0f running, %.0f waiting) %.1f s after the run", before.Running, before.Waiting, l.drain.after.Seconds())
		return a
	}
	if tpot := b.Metrics.TPOT.P50; tpot != nil {
		a.expected = time.Duration(float64(max(a.answer-a.afterTokens, 0)) * float64(*tpot) * float64(time.Millisecond))
	}
	// Long enough to see an engine that decodes on finish its answer, so that the next
	// scenario finds it idle; short for one that stops.
	a.bound = min(max(3*stopTolerance, a.expected*3/2+stopTolerance), time.Minute)
	left, err := r.leaveOne(ctx, words)
	if err != nil {
		a.err = fmt.Errorf("asking it failed: %w", err)
		return a
	}
	now := before
	for {
		if now, err = r.engine.Read(ctx); err != nil {
			a.err = fmt.Errorf("asking it failed: the engine's metrics after the leave: %w", err)
			return a
		}
		since := time.Since(left)
		if now.HasRunning {
			a.gauge = true
			if now.Idle() {
				a.idle, a.idleAfter = true, since
				break
			}
		}
		if since >= a.bound || ctx.Err() != nil || !now.HasRunning && since >= a.expected+stopTolerance {
			a.idleAfter = since
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(25 * time.Millisecond):
		}
	}
	if now.HasGenerated && before.HasGenerated {
		a.counter, a.tokens = true, now.Generated-before.Generated
	}
	return a
}

// leaveOne sends one request of the scenario's first plan asking for words, under a nonce
// of its own, and leaves it after CancelAfterTokens output events; it returns when it left.
func (r *run) leaveOne(ctx context.Context, words int) (time.Time, error) {
	p := r.prompts
	p.Nonce, p.ResponseWords = "probe"+p.Nonce, words
	// Numbered apart from the run's requests, as the usage probes are.
	prompt, err := p.AppendPrompt(nil, probeIndex+1, r.base[0].context)
	if err != nil {
		return time.Time{}, err
	}
	req := r.sc.request(string(prompt))
	req.MaxTokens = r.base[0].maxTokens
	body, err := req.AppendBody(nil)
	if err != nil {
		return time.Time{}, err
	}
	res, err := r.client.StreamRecycled(ctx, req.API, body, req.MaxTokens, stream.Call{AbandonAfter: r.sc.CancelAfterTokens}, func() {})
	if err != nil || !res.Abandoned {
		return time.Time{}, fmt.Errorf("the request to leave was not left: %v", err)
	}
	res.Release()
	return time.Now(), nil
}

// cancellation records what a run that left requests planned and saw, and whether the
// engine stopped them, by what the engine was asked and what it counted: one request left
// on the idle engine after the run (askLeave: its running gauge read none before half the
// answer left would have run, and its generated-tokens counter grew by no more than the
// tokens read before leaving and a few in flight); the tokens its counter holds over the
// run beyond the usage of the requests that ran to their end, per request left; and
// requests still running well after the measured phase. Any sign against it says it did not
// stop. Without metrics, a probe (leaveProbe). nil for a run that planned to leave none.
func (l *leaving) cancellation(r *run, b *artifact.Benchmark) *artifact.Cancellation {
	d := l.drain
	if l.abandon == nil {
		return nil
	}
	c := &artifact.Cancellation{Rate: r.sc.CancelRate, AfterTokens: r.sc.CancelAfterTokens, Abandoned: r.abandoned()}
	for k := range r.outcomes {
		if l.abandons(r, r.indices[k]) {
			c.Planned++
		}
	}
	if c.Abandoned == 0 {
		c.StopSource = "no request was left: nothing to stop"
		return c
	}
	var signs []string
	stopped, known := true, false
	if per, ok := tokensPerLeft(b, c.Abandoned); ok {
		c.TokensPerLeft = artifact.F(per)
		known = true
		// The tokens read, and as many again in flight when the client left.
		if per > 2*float64(c.AfterTokens)+4 {
			stopped = false
		}
		signs = append(signs, fmt.Sprintf("its generated-tokens counter: %.1f tokens per request left after %d", per, c.AfterTokens))
	}
	if d.known && (!d.stopped || d.after > stopTolerance) {
		// Still running well after the run: what it left, decoded on. (None at the end says
		// nothing of a request left earlier: that is asked below.)
		c.DecodedOnMs = artifact.F(d.after.Seconds() * 1000)
		known, stopped = true, false
		sign := fmt.Sprintf("its running requests gauge: none only %.1f s after the last request ended", d.after.Seconds())
		if !d.stopped {
			sign = fmt.Sprintf("its running requests gauge: still some %.1f s after the last request ended", d.after.Seconds())
		}
		signs = append(signs, sign)
	}
	if a := d.asked; a != nil && a.err == nil {
		var told []string
		switch {
		case a.gauge && a.expected < probeTells && a.idle && a.idleAfter < a.expected:
			// Idle before the answer would have ended, but too soon after for a scrape to
			// tell a stop from an answer run to its end.
			told = append(told, fmt.Sprintf("its running gauge read none %.0f ms after the leave, which cannot tell: the answer left would have ended within %.0f ms (ask more words: max_tokens)",
				a.idleAfter.Seconds()*1000, a.expected.Seconds()*1000))
		case a.gauge:
			// An engine that decodes on holds the request running for the rest of its
			// answer; one that stops, for a scrape or two.
			known = true
			held := !a.idle || a.idleAfter >= max(a.expected/2, stopTolerance/10)
			if held {
				stopped = false
				c.DecodedOnMs = artifact.F(a.idleAfter.Seconds() * 1000)
			}
			if a.idle {
				told = append(told, fmt.Sprintf("its running gauge read none %.0f ms after the leave", a.idleAfter.Seconds()*1000))
			} else {
				told = append(told, fmt.Sprintf("its running gauge still read it running %.1f s after the leave", a.idleAfter.Seconds()))
			}
		}
		if a.counter {
			known = true
			if a.tokens > 2*float64(a.afterTokens)+4 {
				stopped = false
			}
			told = append(told, fmt.Sprintf("its generated-tokens counter grew by %.0f tokens for it", a.tokens))
		}
		if len(told) > 0 {
			end := ""
			if a.expected > 0 {
				end = fmt.Sprintf(" (its answer would have run %d tokens more, about %.0f ms)", max(a.answer-a.afterTokens, 0), a.expected.Seconds()*1000)
			}
			signs = append(signs, fmt.Sprintf("a request left on the idle engine after the run, after %d tokens%s: %s", a.afterTokens, end, strings.Join(told, ", ")))
		}
	}
	if p := d.probe; !known && p != nil && p.err == nil {
		if p.expected < probeTells {
			c.StopSource = fmt.Sprintf("the engine exports no metrics, and the probe cannot tell: the rest of the answer it left would take about %.0f ms, under the %.0f ms a probe can tell from the noise of its own timing (ask more words)",
				p.expected.Seconds()*1000, probeTells.Seconds()*1000)
			return c
		}
		// An engine of one slot that decoded on would have made the probe wait about
		// expected; more than half of it says it did. An engine of more slots runs the probe
		// beside what it decodes on, so a probe that did not wait says it stopped only if
		// the engine serves one request at a time, which the source says.
		known = true
		stopped = p.waited < p.expected/2
		c.DecodedOnMs = artifact.F(p.waited.Seconds() * 1000)
		signs = append(signs, fmt.Sprintf("a probe: a single token asked right after a request was left waited %.0f ms beyond the idle engine's; an engine of one slot decoding on would make it wait about %.0f ms (an engine of more slots runs it beside, and cannot be told this way)",
			p.waited.Seconds()*1000, p.expected.Seconds()*1000))
	}
	if !known {
		c.StopSource = "the engine exports neither a generated-tokens counter nor a running-requests gauge (or its metrics were not scraped): nothing tells whether it stopped"
		if p := d.probe; p != nil && p.err != nil {
			c.StopSource += "; the probe failed: " + p.err.Error()
		}
		if a := d.asked; a != nil && a.err != nil {
			c.StopSource = "nothing tells whether it stopped: " + a.err.Error()
		}
		return c
	}
	c.EngineStopped = new(stopped)
	c.StopSource = strings.Join(signs, "; ")
	return c
}

// tokensPerLeft is the engine's generated tokens over the run (its warm-up included) beyond
// the usage of every request that ran to its end, per request left; false when the engine
// counts none or some request's usage is unknown.
func tokensPerLeft(b *artifact.Benchmark, left int) (float64, bool) {
	m := b.Extension.EngineMetrics
	_, own, unknown, _ := b.ReportedUsage()
	if m.GenerationTokens == nil || left == 0 || unknown > 0 {
		return 0, false
	}
	return (float64(*m.GenerationTokens) - float64(own)) / float64(left), true
}

// leaveProbe probes whether an engine without metrics stopped a request its client left:
// a single token asked of the idle engine (the quicker of two), then a request of the scenario's words left
// after its CancelAfterTokens, and at once the single token again. Its wait beyond the
// first is what the engine did for the request left.
func (r *run) leaveProbe(ctx context.Context, b *artifact.Benchmark) *leftProbe {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	one := func() (time.Duration, error) {
		p, err := probe(ctx, r.client, r.sc.Model, r.sc.API)
		if err == nil && p.ttft == 0 {
			err = errors.New("the probe's answer held no output")
		}
		return p.ttft, err
	}
	// Twice: an engine that decodes on may still hold the run's last request left, which
	// the first waits for; the second finds it idle.
	idle := time.Duration(math.MaxInt64)
	for range 2 {
		ttft, err := one()
		if err != nil {
			return &leftProbe{err: fmt.Errorf("the idle probe: %w", err)}
		}
		idle = min(idle, ttft)
	}
	if _, err := r.leaveOne(ctx, r.base[0].words); err != nil {
		return &leftProbe{err: err}
	}
	after, err := one()
	if err != nil {
		return &leftProbe{err: fmt.Errorf("the probe after: %w", err)}
	}
	expected := time.Duration(0)
	if tpot := b.Metrics.TPOT.P50; tpot != nil {
		remaining := max(r.base[0].words+1-r.sc.CancelAfterTokens, 0)
		expected = time.Duration(float64(remaining) * float64(*tpot) * float64(time.Millisecond))
	}
	return &leftProbe{waited: max(after-idle, 0), expected: expected}
}

// mergedCancellation adds the shards' cancellations: their plans and abandoned requests;
// the engine stopped when it stopped on every shard, and did not when it did not on one.
func mergedCancellation(shards []NamedArtifact) *artifact.Cancellation {
	var out *artifact.Cancellation
	for _, sh := range shards {
		c := sh.Extension.Cancellation
		if c == nil {
			continue
		}
		if out == nil {
			out = &artifact.Cancellation{Rate: c.Rate, AfterTokens: c.AfterTokens, EngineStopped: c.EngineStopped, StopSource: c.StopSource}
		}
		out.Planned += c.Planned
		out.Abandoned += c.Abandoned
		if stopRank(c.EngineStopped) < stopRank(out.EngineStopped) {
			out.EngineStopped, out.StopSource = c.EngineStopped, c.StopSource
		}
		if c.DecodedOnMs != nil && (out.DecodedOnMs == nil || *c.DecodedOnMs > *out.DecodedOnMs) {
			out.DecodedOnMs = c.DecodedOnMs
		}
	}
	return out
}

// stopRank orders what shards say of the engine's stop: did not, cannot tell, did.
func stopRank(stopped *bool) int {
	switch {
	case stopped == nil:
		return 1
	case *stopped:
		return 2
	}
	return 0
}
