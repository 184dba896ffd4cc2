package capacity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
)

// The measured phase runs in blocks: each block is the kind's requests again, prepared and
// paced anew with a prompt nonce of its own, so a block is a run of the scenario and no
// block finds another's prompts in a prefix cache. A warm-up comes first. Both are the
// runner's, whatever the kind.

// block is what one block of the measured phase left: its plan, its requests' outcomes
// (request indices local to the block), what each could find cached, and its bounds.
type block struct {
	plan              []planned
	indices           []int
	outcomes          []outcome
	expected          []*cacheRange
	nonce             string
	started, finished time.Time
}

// executeBlocks runs the scenario's blocks one after another, once its StartAt has come,
// and returns the bounds of the measured phase.
func (r *run) executeBlocks(ctx context.Context) (started, finished time.Time, err error) {
	for j := range r.sc.Repeats {
		if err := r.prepareBlock(ctx, j); err != nil {
			return started, finished, err
		}
		if j == 0 {
			r.waitStart(ctx)
			defer r.progress.start(r.sc, r.sc.Repeats*len(r.indices))()
		}
		r.runBlock(ctx)
	}
	return r.blocks[0].started, r.blocks[len(r.blocks)-1].finished, nil
}

// prepareBlock has the kind prepare block j from its plan, its prompts under the block's
// nonce.
func (r *run) prepareBlock(ctx context.Context, j int) error {
	r.prompts.Nonce = blockNonce(r.nonce, j)
	r.plan, r.expected = slices.Clone(r.base), nil
	var err error
	r.indices, r.pacer, err = r.kind.prepare(ctx, r)
	r.outcomes = make([]outcome, len(r.indices))
	return err
}

// runBlock runs the prepared block and keeps what it left.
func (r *run) runBlock(ctx context.Context) {
	defer r.beginFeatures(ctx)()
	r.engine.Mark(ctx)
	started, finished := r.pacer.execute(ctx)
	r.engine.Mark(ctx)
	r.started = started
	r.kind.finish(r)
	r.blocks = append(r.blocks, block{plan: r.plan, indices: r.indices, outcomes: r.outcomes, expected: r.expected,
		nonce: r.prompts.Nonce, started: started, finished: finished})
}

// blockNonce is block j's prompt nonce: the run's for the first block (a run of one block
// sends the prompts it always sent), then the run's with block letters after it.
func blockNonce(nonce string, j int) string {
	if j == 0 {
		return nonce
	}
	var suffix []byte
	for ; j > 0; j /= 26 {
		suffix = append([]byte{byte('a' + j%26)}, suffix...)
	}
	return nonce + string(suffix)
}

// gatherBlocks makes the blocks' requests the run's: block j's request i is request
// j*R + i of the artifact, R the scenario's requests, in block order.
func (r *run) gatherBlocks() {
	per := len(r.base)
	var plan []planned
	var indices []int
	var outcomes []outcome
	expected := make([]*cacheRange, per*len(r.blocks))
	for j, bl := range r.blocks {
		plan = append(plan, bl.plan...)
		for k, o := range bl.outcomes {
			indices = append(indices, j*per+bl.indices[k])
			outcomes = append(outcomes, o.offset(j*per))
		}
		for i, x := range bl.expected {
			expected[j*per+i] = x
		}
	}
	r.plan, r.indices, r.outcomes, r.expected = plan, indices, outcomes, expected
}

// offset moves the outcome's request index by n, in its row or failure.
func (o outcome) offset(n int) outcome {
	if o.row != nil {
		row := *o.row
		row.RequestIndex += n
		o.row = &row
	}
	if o.failure != nil {
		f := *o.failure
		f.RequestIndex += n
		o.failure = &f
	}
	return o
}

// busy is the time the run's blocks kept the engine busy: the measured phase's wall clock,
// but for what ran between its blocks (an interleaved run's other engine).
func (r *run) busy() time.Duration {
	var d time.Duration
	for _, bl := range r.blocks {
		d += bl.finished.Sub(bl.started)
	}
	return d
}

// local is the index within its block of request i.
func (r *run) local(i int) int { return i % len(r.base) }

// blockRecord is the artifact's anvilbench.blocks: each block's bounds and each headline
// figure (artifact.Figure.Headline), and those of the engine's speculative decoding when it
// drafted, block by block and across the blocks.
func (r *run) blockRecord(b *artifact.Benchmark) *artifact.Blocks {
	per := len(r.base)
	out := &artifact.Blocks{Repeats: len(r.blocks), RequestsPerBlock: per, Figures: map[string]artifact.BlockFigures{}}
	values := map[string][]*artifact.Float{}
	for j, bl := range r.blocks {
		rows := blockRows(b.RequestTimings, j*per, (j+1)*per)
		failed := 0
		for _, o := range bl.outcomes {
			if o.failure != nil {
				failed++
			}
		}
		out.Blocks = append(out.Blocks, artifact.Block{Index: j, PromptNonce: bl.nonce,
			StartOffsetMs: artifact.Float(bl.started.Sub(r.blocks[0].started).Seconds() * 1000),
			DurationMs:    artifact.Float(bl.finished.Sub(bl.started).Seconds() * 1000),
			Completed:     len(rows), Failed: failed})
		m := buildMetrics(rows, nil, bl.finished.Sub(bl.started).Seconds(), failed == 0)
		block := &artifact.Benchmark{Metrics: m}
		for _, f := range artifact.HeadlineFigures() {
			values[f.Key] = append(values[f.Key], floatOf(f.Of(block)))
		}
	}
	if spec := r.engine.Blocks(); len(spec) > 0 {
		for _, f := range artifact.Figures() {
			if !f.Engine {
				continue
			}
			for _, d := range spec {
				block := &artifact.Benchmark{Extension: &artifact.Extension{EngineMetrics: artifact.EngineMetrics{SpecDecode: d}}}
				values[f.Key] = append(values[f.Key], floatOf(f.Of(block)))
			}
		}
	}
	for name, v := range values {
		out.Figures[name] = acrossBlocks(v)
	}
	return out
}

func floatOf(v *float64, _ int) *artifact.Float {
	if v == nil {
		return nil
	}
	return artifact.F(*v)
}

// blockRows are the rows of requests lo to hi-1.
func blockRows(rows []artifact.RequestTiming, lo, hi int) []artifact.RequestTiming {
	var out []artifact.RequestTiming
	for _, row := range rows {
		if row.RequestIndex >= lo && row.RequestIndex < hi {
			out = append(out, row)
		}
	}
	return out
}

// acrossBlocks summarizes a figure's block values: their mean, sample standard deviation,
// coefficient of variation and 95% t-interval of the mean, over the blocks with a value.
func acrossBlocks(values []*artifact.Float) artifact.BlockFigures {
	f := artifact.BlockFigures{Values: values}
	var xs []float64
	for _, v := range values {
		if v != nil {
			xs = append(xs, float64(*v))
		}
	}
	if len(xs) < 2 {
		return f
	}
	mean, sd := stats.MeanSD(xs)
	half := stats.TQuantile(0.975, float64(len(xs)-1)) * sd / math.Sqrt(float64(len(xs)))
	f.Mean, f.SD = artifact.F(mean), artifact.F(sd)
	if mean != 0 {
		f.CV = artifact.F(sd / mean)
	}
	f.CI95Low, f.CI95High = artifact.F(mean-half), artifact.F(mean+half)
	return f
}

// warm sends the scenario's warm-up (warmupSize, a shard's share) in a closed loop at its
// concurrency: prompts of its planned sizes under a nonce of their own and without the
// shared prefix, so none shares a prefix with a measured prompt, and records what they
// showed. Nothing of it reaches a figure.
func (r *run) warm(ctx context.Context) (*artifact.Warmup, error) {
	n := r.sc.warmupSize(len(r.base))
	if sh := r.sc.Shard; sh.sharded() {
		n = (n + sh.Count - 1) / sh.Count
	}
	if n <= 0 {
		return nil, nil
	}
	// The warm-up runs every request to its end: it warms the engine, and a request left
	// early is neither a success nor a failure of it.
	measured := r.prompts
	r.warming = true
	defer func() { r.prompts, r.progress, r.warming = measured, progress{}, false }()
	r.prompts.Nonce, r.prompts.SharedPrefix = "warmup"+measured.Nonce, ""
	r.plan = r.base
	r.indices, r.outcomes = make([]int, n), make([]outcome, n)
	for w := range r.indices {
		r.indices[w] = w % len(r.base)
	}
	units := requestUnits{r, func(dst []byte, r *run, i int) ([]byte, error) {
		// The words request i is scored on (a trace's vary by line), not the scenario's.
		p := r.prompts
		p.ResponseWords = r.plan[i].words
		return p.AppendPrompt(dst, i, r.plan[i].context)
	}}
	// The warm-up stops at the first sign the engine cannot serve the workload: a first
	// wave of failures (every request in flight, at least two) before any success.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	inFlight := min(r.concurrency, r.sc.inFlight(len(r.base)), n) // as the measured phase will load it
	limit := min(max(inFlight, 2), n)
	var failed, succeeded atomic.Int32
	start := func(ctx context.Context, k int, due, ready time.Time) time.Time {
		end := units.start(ctx, k, due, ready)
		if o := r.outcomes[k]; o.row != nil {
			succeeded.Add(1)
		} else if failed.Add(1) >= int32(limit) && succeeded.Load() == 0 && o.failure != nil {
			stop(fmt.Errorf("%w: its first %d requests failed and none succeeded (%s: %s): no measured request was sent",
				errWarmupStopped, limit, o.failure.ErrorType, firstLine(o.failure.ErrorMessage)))
		}
		return end
	}
	stopFeatures := r.beginFeatures(ctx)
	started, finished := closedLoop{units: n, concurrency: inFlight, start: start}.execute(ctx)
	stopFeatures()
	record := warmupRecord(r.outcomes, finished.Sub(started))
	if cause := context.Cause(ctx); errors.Is(cause, errWarmupStopped) {
		return record, cause
	}
	return record, nil
}

// errWarmupStopped is the warm-up's stop at a first wave of failures.
var errWarmupStopped = errors.New("the warm-up stopped")

// firstLine is a message up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// lastWarmup is how many of the warm-up's last successes the cold-start check compares: 8,
// and at most its later half, whose requests are the ones that must find the engine warm.
const lastWarmup = 8

// warmupRecord summarizes the warm-up's outcomes.
func warmupRecord(outcomes []outcome, took time.Duration) *artifact.Warmup {
	w := &artifact.Warmup{Requests: len(outcomes), DurationMs: artifact.Float(took.Seconds() * 1000)}
	var ok []outcome
	for _, o := range outcomes {
		if o.row == nil {
			w.Failed++
			continue
		}
		ok = append(ok, o)
		if p, c := o.row.PromptTokens, o.row.OutputTokens; p != nil && c != nil && o.row.OutputTokenSource == sourceUsage {
			w.PromptTokens, w.CompletionTokens, w.UsageReported = w.PromptTokens+*p, w.CompletionTokens+*c, w.UsageReported+1
		}
	}
	w.Completed = len(ok)
	slices.SortFunc(ok, func(a, b outcome) int { return a.sent.Compare(b.sent) })
	ttft, tpot := rowFigures(ok)
	w.TTFTMs, w.TPOTMs = percentiles(ttft), percentiles(tpot)
	last := ok[len(ok)-min(lastWarmup, (len(ok)+1)/2):]
	w.LastRequests = len(last)
	lastTTFT, lastTPOT := rowFigures(last)
	for _, v := range lastTPOT {
		w.LastTPOTMs = append(w.LastTPOTMs, artifact.Float(v))
	}
	if p := percentiles(lastTTFT); p != nil {
		w.LastTTFTP50Ms = artifact.F(float64(p.P50))
	}
	if p := percentiles(lastTPOT); p != nil {
		w.LastTPOTP50Ms = artifact.F(float64(p.P50))
	}
	return w
}

// rowFigures are the TTFT and TPOT of successful outcomes.
func rowFigures(outcomes []outcome) (ttft, tpot []float64) {
	for _, o := range outcomes {
		ttft = append(ttft, float64(o.row.TTFTMs))
		if o.row.TPOTMs != nil {
			tpot = append(tpot, float64(*o.row.TPOTMs))
		}
	}
	return ttft, tpot
}
