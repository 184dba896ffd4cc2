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
	return &run{sc: sc, kind: sc.kind(), features: featuresOf(&sc), client: client, baseURL: target.BaseURL, san: newSanitizer(target),
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
	if r.plan, err = r.kind.plan(r); err != nil {
		return err
	}
	for _, f := range r.features {
		if err := f.prepare(ctx, r); err != nil {
			return err
		}
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
	b.Extension.Steady = steadyState(b, r.concurrency, r.sc.RequestRate == 0)
	stampsHeld := b.Extension.Clock.Source == clockSourceKernel && b.Extension.ITL.SharedReadGaps == 0
	b.Extension.ClientOverhead = r.overhead(finished.Sub(started), c.cpu, c.waited, stampsHeld)
	b.Extension.ClientOverhead.GCCycles = new(c.gcs)
	for _, f := range r.features {
		f.settle(ctx, r, b)
	}
	b.Extension.EngineMetrics = w.watch()
	for _, f := range r.features {
		f.record(ctx, r, b)
	}
	b.Extension.GPU = w.gpus.Finish(ctx, started, finished)
	if target.GPUPricePerHour > 0 {
		b.Extension.GPU.PricePerHour = artifact.F(target.GPUPricePerHour)
	}
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
	// traceBase is the first half of every request's trace id, random per run; "" sends
	// no traceparent.
	traceBase string
	// engine watches the engine's metrics; each block marks its counters (nil when off).
	engine *enginemetrics.Watch
	// features are the traffic features the scenario uses, each with its run's state;
	// warming is set while the warm-up runs, which sends no feature's call.
	features []feature
	warming  bool
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
