package capacity

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/enginemetrics"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/gpumetrics"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
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
	target = target.withDefaults()
	r := newRun(sc.withDefaults(), target)
	defer r.client.Close()
	if err := r.prepare(ctx); err != nil {
		return nil, err
	}
	return r.measure(ctx, target)
}

// newRun is the run of sc against target, its kind chosen and its client ready.
func newRun(sc Scenario, target Target) *run {
	client := stream.New(stream.Options{
		BaseURL:         target.BaseURL,
		APIKey:          target.APIKey,
		Timeout:         target.Timeout,
		StallTimeout:    target.StallTimeout,
		Connections:     sc.Concurrency,
		UserSpaceStamps: target.UserSpaceStamps,
		TransmitStamps:  target.TransmitStamps,
	})
	return &run{sc: sc, kind: sc.kind(), client: client, baseURL: target.BaseURL, san: newSanitizer(target),
		concurrency: sc.Shard.concurrency(sc.Concurrency)}
}

// prepare does everything before the first request: it discovers the model and the window,
// has the kind plan every request and sizes the prompts.
func (r *run) prepare(ctx context.Context) error {
	var err error
	if r.caps, err = discover(ctx, r.client, r.baseURL, &r.sc); err != nil {
		return errors.New(r.san.clean(err.Error()))
	}
	// The build measured, as the engine states it: a baseline's and the change's runs are
	// told apart without anyone typing a version.
	if v, err := r.client.EngineVersion(ctx); err == nil {
		r.caps.EngineVersion, r.caps.EngineVersionSource = new(v.Version), new(v.Source)
		if r.sc.Engine == "" {
			r.sc.Engine = v.Engine
		}
	}
	if err := r.checkAdapters(ctx); err != nil {
		return err
	}
	if r.imageRecord, err = r.probeImages(ctx); err != nil {
		return err
	}
	if r.plan, err = r.kind.plan(r); err != nil {
		return err
	}
	sc := &r.sc
	sc.Requests = len(r.plan)
	r.prompts = workload.Prompts{
		Seed:          sc.ContextSeed,
		CharsPerToken: sc.CharsPerToken,
		ResponseWords: sc.ResponseWords,
		Canaries:      sc.RequestCanaries,
		Output:        workload.Output(sc.Output),
		Nonce:         promptNonce(*sc),
		IndexWidth:    len(strconv.Itoa(max(sc.Requests-1, 0))),
	}
	r.nonce, r.base = r.prompts.Nonce, r.plan
	r.abandon = abandonPlan(len(r.plan), sc.CancelRate, sc.ContextSeed)
	if len(sc.Adapters) > 0 {
		r.adapterOf = sc.Adapters.Assign(len(r.plan), sc.AdapterMix, sc.ContextSeed)
	}
	if !sc.SkipEnginePhases {
		r.traceBase = fmt.Sprintf("%016x", rand.Uint64())
	}
	r.calibrate(ctx)
	return nil
}

// calibrate sizes prompts from the endpoint's own count of characters per token, when the
// scenario asks, and builds the shared prefix at that size.
func (r *run) calibrate(ctx context.Context) {
	r.calibration = calibration{Method: calibrationNone, CharsPerToken: r.sc.CharsPerToken}
	if r.sc.Calibrate {
		largest := slices.Max(contexts(r.plan))
		r.calibration = calibrate(ctx, r.client, r.sc, r.prompts, largest)
		r.prompts.CharsPerToken, r.prompts.OverheadTokens = r.calibration.CharsPerToken, r.calibration.OverheadTokens
		r.caps.Tokenize = new(r.calibration.Method == calibrationTokenize)
	}
	if r.sc.shared() {
		r.prompts.SharedPrefix = r.prompts.SharedPrefixText(r.sc.SharedPrefixTokens)
	}
}

// measure warms the engine, runs the measured phase's blocks, with the engine's metrics
// scraped around both and the client's own cost counted around the blocks, and assembles
// the artifact. An interrupted run (Ctrl-C, a spec timeout) still yields its artifact,
// marked incomplete; the requests it cut are failures of type cancelled.
func (r *run) measure(ctx context.Context, target Target) (*artifact.Benchmark, error) {
	w := r.begin(ctx, target)
	if w.stopped != nil {
		// Nothing is sent: every measured request is recorded as not sent, saying why.
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		cancel(w.stopped)
	}
	c := startCounting()
	started, finished, err := r.executeBlocks(ctx)
	cost := c.stop()
	if err != nil {
		w.watch()
		w.gpus.Finish(ctx, started, finished)
		return nil, err
	}
	return r.finish(ctx, target, w, cost, started, finished), nil
}

// warmed is what a run's engine showed before its measured phase: the watch of its metrics
// and its warm-up.
type warmed struct {
	watch  func() artifact.EngineMetrics
	gpus   *gpumetrics.Watch
	warmup *artifact.Warmup
	// stopped is why the warm-up stopped early: the engine could not serve the workload.
	stopped error
}

// begin starts watching the engine's metrics and its GPUs, and warms it.
func (r *run) begin(ctx context.Context, target Target) warmed {
	src, note := gpumetrics.Source(target.GPUMetricsURL)
	w := warmed{watch: r.watchEngine(ctx, target), gpus: gpumetrics.Start(ctx, src, note, gpuInterval)}
	w.warmup, w.stopped = r.warm(ctx)
	return w
}

// counting is the client's own cost from its start: CPU, waits for a core, collections;
// the collector stays quiet until stop.
type counting struct {
	cpu, wait time.Duration
	waitKnown bool
	gcs       uint32
	restore   func()
}

// cost is the client's own cost over a measured phase.
type cost struct {
	cpu    time.Duration
	waited *time.Duration
	gcs    int
}

func startCounting() counting {
	c := counting{cpu: cpuTime(), gcs: gcCycles()}
	c.wait, c.waitKnown = cpuWait()
	c.restore = quietCollector()
	return c
}

func (c counting) stop() cost {
	c.restore()
	out := cost{cpu: cpuTime() - c.cpu, gcs: int(gcCycles() - c.gcs)}
	if after, ok := cpuWait(); ok && c.waitKnown {
		out.waited = new(after - c.wait)
	}
	return out
}

// finish gathers the blocks and assembles the artifact of the measured phase from started
// to finished: its figures, its warm-up and blocks, the client's cost, the engine's
// metrics.
func (r *run) finish(ctx context.Context, target Target, w warmed, c cost, started, finished time.Time) *artifact.Benchmark {
	r.gatherBlocks()
	b := r.assemble(target, started, finished)
	b.Extension.Warmup, b.Extension.Blocks = w.warmup, r.blockRecord(b)
	stampsHeld := b.Extension.Clock.Source == clockSourceKernel && b.Extension.ITL.SharedReadGaps == 0
	b.Extension.ClientOverhead = r.overhead(finished.Sub(started), c.cpu, c.waited, stampsHeld)
	b.Extension.ClientOverhead.GCCycles = new(c.gcs)
	drain := r.drain(ctx, b, finished)
	b.Extension.EngineMetrics = w.watch()
	// After the watch's last scrape: the request left to ask is in none of the run's counts.
	drain.asked = r.askLeave(ctx, b, drain)
	b.Extension.Cancellation = r.cancellation(b, drain)
	b.Extension.Adapters = r.adapterRecord(b)
	if b.Extension.Adapters != nil {
		b.Extension.AdapterMix = string(r.sc.AdapterMix)
	}
	if rec := r.imageRecord; rec != nil {
		r.imageTally(rec, b.Extension.Timeline)
		b.Extension.Images = rec
	}
	b.Extension.GPU = w.gpus.Finish(ctx, started, finished)
	if b.GPU == nil {
		b.GPU = gpuModel(b.Extension.GPU)
	}
	b.Extension.Complete = ctx.Err() == nil
	return b
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

// discover fills in the model and the context window when the scenario leaves them open:
// the model from GET /v1/models, the window from /v1/models, else from the engine's own
// endpoints (llama.cpp, Ollama, SGLang), recording which answered. A server that cannot
// list models is fine when neither is needed; one that cannot be reached is not.
func discover(ctx context.Context, client *stream.Client, base string, sc *Scenario) (artifact.Capabilities, error) {
	var caps artifact.Capabilities
	if sc.MaxContextTokens > 0 {
		caps.MaxContextTokens, caps.MaxContextSource = sc.MaxContextTokens, new(WindowConfigured)
		if sc.Model != "" {
			return caps, nil
		}
	}
	models, err := client.Models(ctx)
	caps.ModelsEndpoint = new(err == nil)
	if err := refused(err, base); err != nil {
		// Every request would fail the same way: say so once, before sending any.
		return caps, err
	}
	if sc.Model == "" {
		if err != nil {
			return caps, fmt.Errorf("no model to request: name one in the scenario (GET /models: %v)", err)
		}
		// An engine lists the LoRA adapters it serves beside their base model.
		m, err := onlyModel(slices.DeleteFunc(slices.Clone(models), func(m stream.Model) bool {
			return slices.ContainsFunc(sc.Adapters, func(a workload.Adapter) bool { return a.Name == m.ID })
		}))
		if err != nil {
			return caps, fmt.Errorf("%w; name one in the scenario", err)
		}
		sc.Model = m
	}
	if sc.MaxContextTokens > 0 {
		return caps, nil
	}
	if w := listedWindow(models, sc.Model); w > 0 {
		sc.MaxContextTokens = w
		caps.MaxContextTokens, caps.MaxContextSource = w, new(stream.WindowFromModels)
		return caps, nil
	}
	if w, err := client.NativeWindow(ctx, sc.Model); err == nil {
		sc.MaxContextTokens = w.Tokens
		caps.MaxContextTokens, caps.MaxContextSource, caps.MaxContextNote = w.Tokens, new(w.Source), w.Note
	}
	return caps, nil
}

// listedWindow is the window GET /models gives model: its own entry's, else that of the
// id it stands for untagged (Ollama serves "name" for the listed "name:latest"); 0 none.
func listedWindow(models []stream.Model, model string) int {
	for _, id := range []string{model, model + ":latest"} {
		for _, m := range models {
			if m.ID == id && m.MaxContextTokens > 0 {
				return m.MaxContextTokens
			}
		}
	}
	return 0
}

// gpuModel is the model the GPU telemetry names, its GPUs counted when several ("8x NVIDIA
// H100 80GB HBM3"); nil when it names none.
func gpuModel(t *artifact.GPUTelemetry) *string {
	if t == nil || len(t.GPUs) == 0 || t.GPUs[0].Model == "" {
		return nil
	}
	name := t.GPUs[0].Model
	for _, g := range t.GPUs[1:] {
		if g.Model != name {
			return nil // a mix: the operator names it (ANVIL_GPU)
		}
	}
	if len(t.GPUs) > 1 {
		name = fmt.Sprintf("%dx %s", len(t.GPUs), name)
	}
	return &name
}

// gpuInterval is how often the GPUs are sampled during a run: a throttle that lasts a
// second is seen, and a read is one small request (or one nvidia-smi).
const gpuInterval = 500 * time.Millisecond

// metricsInterval is how often the engine's metrics are scraped during a run, for peaks.
const metricsInterval = 2 * time.Second

// watchEngine starts scraping the engine's Prometheus metrics (see enginemetrics) and
// returns the function that stops and summarizes them. The last scrape happens even after
// an interrupt, bounded by a few seconds.
func (r *run) watchEngine(ctx context.Context, target Target) func() artifact.EngineMetrics {
	url := target.MetricsURL
	switch url {
	case metricsOff:
		return func() artifact.EngineMetrics { return artifact.EngineMetrics{Error: "not scraped (off)"} }
	case "":
		url = enginemetrics.URL(target.BaseURL)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	w := enginemetrics.Start(ctx, client, url, metricsInterval)
	r.engine = w
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

// run is the state of one Run. outcomes[k] is written only by the worker of unit k.
type run struct {
	sc          Scenario
	kind        kind
	client      *stream.Client
	baseURL     string // the endpoint's, named when it cannot be reached
	san         sanitizer
	calibration calibration
	caps        artifact.Capabilities
	prompts     workload.Prompts
	// plan is every request of the current block, every shard's, by request index, as
	// the kind planned it from base (a session sets each turn's context as it is sent);
	// once the blocks are gathered, of every block.
	plan, base []planned
	// indices are the request indices the run sends (all, or a shard's), concurrency its
	// share of the streams, pacer when it sends them; outcomes[k] is request indices[k]'s.
	indices     []int
	concurrency int
	pacer       pacer
	outcomes    []outcome
	progress    progress
	// expected[i] is request i's range of cached tokens, for the kinds whose requests
	// share prompts (a trace, sessions); nil otherwise.
	expected []*cacheRange
	// keepAnswers keeps each answer's text, which a session's next turn sends back.
	keepAnswers bool
	// started is when the current block's requests started; blocks are the blocks run so
	// far; nonce is the run's prompt nonce, of its first block.
	started time.Time
	blocks  []block
	nonce   string
	// abandon[i] is whether request i of a block is left after CancelAfterTokens.
	abandon []bool
	// traceBase is the first half of every request's trace id, random per run; "" sends
	// no traceparent.
	traceBase string
	// engine watches the engine's metrics; each block marks its counters (nil when off).
	engine *enginemetrics.Watch
	// imageRecord is what the image probe found, before the run; nil without images.
	imageRecord *artifact.Images
	// ahead makes the current requests' images ahead of their turn; nil when none is made.
	ahead *imageAhead
	// adapterOf[i] is the adapter request i of a block names (an index into the scenario's
	// Adapters); nil without adapters.
	adapterOf []int
}

// traceID is request i's W3C trace id: the run's random half, then its index; "" when the
// run sends none.
func (r *run) traceID(i int) string {
	if r.traceBase == "" {
		return ""
	}
	return r.traceBase + fmt.Sprintf("%016x", uint64(i))
}

// traceParent is request i's traceparent header (version 00, sampled): its trace id and a
// span id of its own; "" when the run sends none.
func (r *run) traceParent(i int) string {
	if r.traceBase == "" {
		return ""
	}
	return "00-" + r.traceID(i) + "-" + fmt.Sprintf("%016x", uint64(i)+1) + "-01"
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
func (r *run) abandons(i int) bool {
	return r.abandon != nil && r.abandon[r.local(i)]
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

// drain polls the engine's running and waiting gauges from the measured phase's end until
// both read none, at most until twice the longest completed request (5 s to a minute) has
// passed; nothing when the run left no request or the metrics are not scraped.
func (r *run) drain(ctx context.Context, b *artifact.Benchmark, finished time.Time) drained {
	if r.abandon == nil || r.abandoned() == 0 {
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
func (r *run) askLeave(ctx context.Context, b *artifact.Benchmark, d drained) *leftAsked {
	if r.abandon == nil || r.abandoned() == 0 || r.engine == nil || !r.engine.Serves() {
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
		a.err = fmt.Errorf("it could not be asked: the engine was not idle (%.0f running, %.0f waiting) %.1f s after the run", before.Running, before.Waiting, d.after.Seconds())
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
func (r *run) cancellation(b *artifact.Benchmark, d drained) *artifact.Cancellation {
	if r.abandon == nil {
		return nil
	}
	c := &artifact.Cancellation{Rate: r.sc.CancelRate, AfterTokens: r.sc.CancelAfterTokens, Abandoned: r.abandoned()}
	for k := range r.outcomes {
		if r.abandons(r.indices[k]) {
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
