package capacity

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/enginemetrics"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/schedule"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/harness/stream"
)

// Run executes the scenario against the target and returns its artifact. Request failures
// are recorded in the artifact, never returned: every request index ends in exactly one of
// request_timings or failures. The error is for what prevents a run from starting (an
// unreachable endpoint, no model to name, no room in the context window); it is reported
// once instead of as one identical failure per request.
func Run(ctx context.Context, target Target, sc Scenario) (*artifact.Benchmark, error) {
	if err := errors.Join(target.Validate(), sc.Validate()); err != nil {
		return nil, fmt.Errorf("invalid scenario %q: %w", sc.Name, err)
	}
	sc, target = sc.withDefaults(), target.withDefaults()
	var trace *workload.Trace
	if sc.Trace != "" {
		var err error
		if trace, err = readTrace(sc); err != nil {
			return nil, fmt.Errorf("invalid scenario %q: trace %s: %w", sc.Name, sc.Trace, err)
		}
		sc.Requests = trace.Len()
	}
	if sc.Sessions > 0 {
		sc.Requests = sc.Sessions * sc.Turns
	}
	client := stream.New(stream.Options{
		BaseURL:         target.BaseURL,
		APIKey:          target.APIKey,
		Timeout:         target.Timeout,
		StallTimeout:    target.StallTimeout,
		Connections:     sc.Concurrency,
		UserSpaceStamps: target.UserSpaceStamps,
		TransmitStamps:  target.TransmitStamps,
	})
	defer client.Close()
	san := newSanitizer(target)

	caps, err := discover(ctx, client, &sc)
	if err != nil {
		return nil, errors.New(san.clean(err.Error()))
	}
	capTokens := 0
	var systems []int
	switch {
	case trace != nil:
		if msg := traceOverWindow(trace, sc, windowSource(caps)); msg != "" {
			return nil, errors.New(msg)
		}
	case sc.Sessions > 0:
		systems = sessionSystemTokens(sc)
		if msg := sessionsOverWindow(sc, systems, windowSource(caps)); msg != "" {
			return nil, errors.New(msg)
		}
	case sc.MaxContextTokens > 0:
		capTokens = sc.MaxContextTokens - sc.MaxTokens - sc.ContextMargin
		if capTokens < workload.MinPromptTokens {
			return nil, fmt.Errorf("context window %d leaves %d prompt tokens after max_tokens %d and margin %d: need at least %d",
				sc.MaxContextTokens, capTokens, sc.MaxTokens, sc.ContextMargin, workload.MinPromptTokens)
		}
		if sc.ContextTokens > capTokens && !sc.ClampToWindow {
			return nil, errors.New(WindowTooSmall(sc.ContextTokens, sc.MaxContextTokens, windowSource(caps), sc.MaxTokens, sc.ContextMargin))
		}
	}

	var plan []int
	var clamp *artifact.ContextClamp
	switch {
	case trace != nil:
		plan = make([]int, trace.Len())
		for i := range plan {
			plan[i] = trace.Request(i).InputTokens
		}
	case sc.Sessions > 0:
		// A turn's planned context depends on the answers before it: set as it is sent.
		plan = make([]int, sc.Requests)
		for i := range plan {
			plan[i] = systems[i/sc.Turns]
		}
	default:
		plan = workload.PlanContexts(sc.Requests, sc.ContextTokens, sc.ContextSeed, sc.ContextBuckets, capTokens)
		clamp = clampOf(sc, plan, capTokens, caps)
	}
	if clamp != nil && sc.Progress != nil {
		fmt.Fprintf(sc.Progress, "[%s] %s\n", sc.Name, clamp.Note)
	}
	prompts := workload.Prompts{
		Seed:          sc.ContextSeed,
		CharsPerToken: sc.CharsPerToken,
		ResponseWords: sc.ResponseWords,
		Canaries:      sc.RequestCanaries,
		Output:        sc.Output,
		Nonce:         promptNonce(sc),
		IndexWidth:    len(strconv.Itoa(max(sc.Requests-1, 0))),
	}
	cal := Calibration{Method: CalibrationNone, CharsPerToken: sc.CharsPerToken}
	if sc.Calibrate {
		cal = calibrate(ctx, client, sc, prompts, slices.Max(plan))
		prompts.CharsPerToken, prompts.OverheadTokens = cal.CharsPerToken, cal.OverheadTokens
	}
	if sc.shared() {
		prompts.SharedPrefix = prompts.SharedPrefixText(sc.SharedPrefixTokens)
	}
	indices := sc.Shard.indices(sc.Requests)
	var sessions []int
	if sc.Sessions > 0 {
		sessions, indices = sessionIndices(sc), nil
		for _, s := range sessions {
			for t := range sc.Turns {
				indices = append(indices, s*sc.Turns+t)
			}
		}
	}
	if cal.Method == CalibrationTokenize && trace == nil && sessions == nil && sc.Output == OutputText {
		cal.Fitted = fitSizes(ctx, client, sc, prompts, plan, indices)
	}
	if sc.Calibrate {
		caps.Tokenize = new(cal.Method == CalibrationTokenize)
	}
	r := &run{sc: sc, client: client, san: san, plan: plan, prompts: prompts, calibration: cal, caps: caps, path: sc.request("").Path(),
		indices: indices, concurrency: sc.Shard.concurrency(sc.Concurrency), trace: trace, sessions: sessions, systemTokens: systems}
	if sessions != nil {
		r.expected = make([]*cacheRange, sc.Requests)
	}
	if trace != nil {
		r.blocks = workload.BlockPlan{Prompts: prompts}
		r.blocks.BlockChars, r.blockExact = fitBlock(ctx, client, sc, prompts, sc.TraceBlockTokens)
		r.expected = make([]*cacheRange, sc.Requests)
		r.lengthened[0], r.lengthened[1] = r.lengthenShortLines()
		all := trace.Offsets()
		for _, i := range r.indices {
			r.offsets = append(r.offsets, all[i])
		}
	}
	if sc.RequestRate > 0 {
		all, err := schedule.Arrivals(sc.Requests, sc.RequestRate, sc.Arrival, sc.ContextSeed)
		if err != nil {
			return nil, err
		}
		// A shard keeps its requests' places in the run's schedule.
		for _, i := range r.indices {
			r.offsets = append(r.offsets, all[i])
		}
	}
	r.outcomes = make([]outcome, len(r.indices))

	watch := r.watchEngine(ctx, target)
	cpu, gcs := cpuTime(), gcCycles()
	wait, waitKnown := cpuWait()
	restore := quietCollector()
	started, finished := r.execute(ctx)
	r.started = started
	restore()
	gcs = gcCycles() - gcs
	if trace != nil {
		r.traceExpectations()
	}
	b := r.assemble(target, started, finished)
	var waited *time.Duration
	if after, ok := cpuWait(); ok && waitKnown {
		waited = new(after - wait)
	}
	stampsHeld := b.Extension.Clock.Source == ClockKernel && b.Extension.ITL.SharedReadGaps == 0
	b.Extension.ClientOverhead = r.overhead(finished.Sub(started), cpuTime()-cpu, waited, stampsHeld)
	b.Extension.ClientOverhead.GCCycles = new(int(gcs))
	b.Extension.EngineMetrics = watch()
	b.Extension.ContextClamp = clamp
	// An interrupted run (Ctrl-C, a spec timeout) still yields its artifact, marked
	// incomplete; the requests it cut are failures of type cancelled.
	b.Extension.Complete = ctx.Err() == nil
	return b, nil
}

// promptNonce is the run's prompt nonce (see workload.Prompts.Nonce): eight lowercase
// letters, random, or derived from what the shards of a run share (start instant, scenario,
// seed, shard count), so all shards send one run's prompts; shards without a start instant
// share a fixed one. Without a nonce every scenario and every run of one seed sent the same
// prompts, and an engine's prefix cache (on by default in vLLM and SGLang) served later ones
// from earlier ones: against refserver 99% of every ladder rung's prompt tokens came from
// its cache.
func promptNonce(sc Scenario) string {
	if sc.PromptNonce != "" {
		return sc.PromptNonce
	}
	var n uint64
	if sc.StartAt.IsZero() && sc.Shard.Count <= 1 {
		n = rand.Uint64()
	} else {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d/%s/%d/%d", sc.StartAt.UnixNano(), sc.Name, sc.ContextSeed, sc.Shard.Count)
		n = h.Sum64()
	}
	var b [8]byte
	for i := range b {
		b[i] = 'a' + byte(n%26)
		n /= 26
	}
	return string(b[:])
}

// promptNoncePattern is what a chosen nonce may be: letters only, since digit runs are
// where tokenizers differ most.
var promptNoncePattern = regexp.MustCompile(`^[a-z]{1,16}$`)

// execute sends the run's requests (every one, or the shard's), closed-loop, open-loop or as
// one burst, and returns the bounds of the request phase. Outcome k is request
// r.indices[k]'s. One time.Now gives both the Unix reading and the monotonic origin.
func (r *run) execute(ctx context.Context) (started, finished time.Time) {
	r.waitStart(ctx)
	stop := r.progress.start(r.sc, len(r.indices))
	defer stop()
	n := len(r.indices)
	if r.sessions != nil {
		return r.executeSessions(ctx, r.sessions)
	}
	if r.offsets != nil {
		started = time.Now()
		schedule.OpenLoop(ctx, started, r.offsets, r.concurrency, func(ctx context.Context, k int, due, ready time.Time) {
			i, began := r.indices[k], time.Now()
			var o outcome
			if body, failed := r.prepare(i, began); failed != nil {
				o = *failed
			} else {
				o = r.send(ctx, i, began, due, body)
			}
			o.due, o.ready = due, ready
			r.outcomes[k] = o
			r.progress.record(o)
		})
		return started, time.Now()
	}
	if r.sc.Burst == 0 {
		started = time.Now()
		// A worker could start its next request the moment its previous response ended.
		free := make([]time.Time, r.concurrency)
		schedule.ClosedLoop(ctx, n, r.concurrency, func(ctx context.Context, w, k int) {
			o := r.one(ctx, r.indices[k])
			o.ready = free[w]
			if o.ready.IsZero() {
				o.ready = started
			}
			free[w] = o.end
			r.outcomes[k] = o
			r.progress.record(o)
		})
		return started, time.Now()
	}
	prepared := make([]*[]byte, n)
	began := make([]time.Time, n)
	schedule.Burst(ctx, n, func(_ context.Context, k int) {
		began[k] = time.Now()
		if body, failed := r.prepare(r.indices[k], began[k]); failed != nil {
			r.outcomes[k] = *failed
		} else {
			prepared[k] = body
		}
		if k == n-1 {
			started = time.Now()
		}
	}, func(ctx context.Context, k int) {
		if prepared[k] != nil {
			r.outcomes[k] = r.send(ctx, r.indices[k], began[k], started, prepared[k])
			r.outcomes[k].ready = started
		}
		r.progress.record(r.outcomes[k])
	})
	return started, time.Now()
}

// waitStart holds the request phase until the scenario's StartAt, everything before it
// (discovery, calibration, the plan) done, so that shards on several hosts start together.
func (r *run) waitStart(ctx context.Context) {
	if r.sc.StartAt.IsZero() {
		return
	}
	if d := time.Until(r.sc.StartAt); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
}

// discover fills in the model and the context window when the scenario leaves them open:
// the model from GET /v1/models, the window from /v1/models, else from the engine's own
// endpoints (llama.cpp, Ollama, SGLang), recording which answered. A server that cannot
// list models is fine when neither is needed; one that cannot be reached is not.
func discover(ctx context.Context, client *stream.Client, sc *Scenario) (artifact.Capabilities, error) {
	var caps artifact.Capabilities
	if sc.MaxContextTokens > 0 {
		caps.MaxContextTokens, caps.MaxContextSource = sc.MaxContextTokens, new(WindowConfigured)
		if sc.Model != "" {
			return caps, nil
		}
	}
	models, err := client.Models(ctx)
	caps.ModelsEndpoint = new(err == nil)
	if err := refused(err); err != nil {
		// Every request would fail the same way: say so once, before sending any.
		return caps, err
	}
	if sc.Model == "" {
		if err != nil {
			return caps, fmt.Errorf("no model to request: name one in the scenario (GET /models: %v)", err)
		}
		m, err := onlyModel(models)
		if err != nil {
			return caps, fmt.Errorf("%w; name one in the scenario", err)
		}
		sc.Model = m
	}
	if sc.MaxContextTokens > 0 {
		return caps, nil
	}
	for _, m := range models {
		if m.ID == sc.Model && m.MaxContextTokens > 0 {
			sc.MaxContextTokens = m.MaxContextTokens
			caps.MaxContextTokens, caps.MaxContextSource = m.MaxContextTokens, new(stream.WindowFromModels)
			return caps, nil
		}
	}
	if w, err := client.NativeWindow(ctx, sc.Model); err == nil {
		sc.MaxContextTokens = w.Tokens
		caps.MaxContextTokens, caps.MaxContextSource, caps.MaxContextNote = w.Tokens, new(w.Source), w.Note
	}
	return caps, nil
}

// metricsInterval is how often the engine's metrics are scraped during a run, for peaks.
const metricsInterval = 2 * time.Second

// watchEngine starts scraping the engine's Prometheus metrics (see enginemetrics) and
// returns the function that stops and summarizes them. The last scrape happens even after
// an interrupt, bounded by a few seconds.
func (r *run) watchEngine(ctx context.Context, target Target) func() artifact.EngineMetrics {
	url := target.MetricsURL
	switch url {
	case MetricsOff:
		return func() artifact.EngineMetrics { return artifact.EngineMetrics{Error: "not scraped (off)"} }
	case "":
		url = enginemetrics.URL(target.BaseURL)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	w := enginemetrics.Start(ctx, client, url, metricsInterval)
	return func() artifact.EngineMetrics {
		final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		m := w.Finish(final)
		m.URL = recordedURL(m.URL)
		m.Error = r.san.clean(m.Error)
		return m
	}
}

// WindowConfigured is the window source of a scenario that set MaxContextTokens.
const WindowConfigured = "configured"

// run is the state of one Run. outcomes[i] is written only by the worker of index i.
type run struct {
	sc          Scenario
	client      *stream.Client
	san         sanitizer
	plan        []int
	prompts     workload.Prompts
	calibration Calibration
	caps        artifact.Capabilities
	path        string
	offsets     []time.Duration // open-loop intended starts, per outcome
	progress    progress
	// indices are the request indices the run sends (all, or a shard's), concurrency its
	// share of the streams; outcomes[k] is request indices[k]'s.
	indices     []int
	concurrency int
	outcomes    []outcome
	// trace is the trace replayed, nil for independent prompts; blocks builds its prompts
	// (blockExact: /tokenize fitted a block exactly), and expected[i] is request i's range
	// of cached tokens, found once the run is over (traceExpectations).
	trace      *workload.Trace
	blocks     workload.BlockPlan
	blockExact bool
	lengthened [2]int // lines planned longer than their input_length, and the most added
	expected   []*cacheRange
	// sessions are the session numbers the run holds (a shard's share), systemTokens each
	// session's planned system context, by session number; nil outside sessions.
	sessions     []int
	systemTokens []int
	// started is when the request phase started.
	started time.Time
}

// maxTokens is request i's max_tokens.
func (r *run) maxTokens(i int) int {
	if r.trace != nil {
		return traceMaxTokens(r.trace.Request(i))
	}
	return r.sc.MaxTokens
}

// words is how many code words request i asks for (0: a summary).
func (r *run) words(i int) int {
	if r.trace != nil {
		return traceWords(r.trace.Request(i))
	}
	return r.sc.ResponseWords
}
