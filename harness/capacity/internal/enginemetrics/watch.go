package enginemetrics

import (
	"context"
	"io"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// Watch scrapes the engine's metrics for the length of a run: once before, every interval
// during and once after, so that peaks (KV cache, queue) are seen and counters and
// histograms can be differenced.
type Watch struct {
	client   *http.Client
	url      string
	first    snapshot
	kvPeak   float64
	runPeak  float64
	waitPeak float64
	// specLength sums SGLang's accept length gauge over specLengths scrapes.
	specLength  float64
	specLengths int
	// marks are the speculative decoding counters at each block's start and end (Mark),
	// read by counters.
	marks    []specCount
	counters *lineReader
	scrapes  int
	err      error
	stop     chan struct{}
	done     chan struct{}
}

// Start scrapes url once and, when it answers, keeps scraping every interval until
// Finish. A failed first scrape (no metrics served, a 404) makes Finish report why.
func Start(ctx context.Context, client *http.Client, url string, interval time.Duration) *Watch {
	w := &Watch{client: client, url: url, kvPeak: math.Inf(-1), runPeak: math.Inf(-1), waitPeak: math.Inf(-1)}
	first, err := scrape(ctx, client, url)
	if err != nil {
		w.err = err
		return w
	}
	w.first = first
	w.note(first)
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	gauges := newGaugeReader()
	go func() {
		defer close(w.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				var s snapshot
				if err := fetch(ctx, client, url, func(body io.Reader) (err error) {
					s, err = gauges.read(body)
					return err
				}); err == nil {
					w.note(s)
				}
			}
		}
	}()
	return w
}

// note keeps the peaks of one scrape; only the watch goroutine calls it after Start.
func (w *Watch) note(s snapshot) {
	w.scrapes++
	if v, ok := s.peak(kvUsageNames); ok {
		w.kvPeak = math.Max(w.kvPeak, v)
	}
	if v, ok := s.total(runningNames); ok {
		w.runPeak = math.Max(w.runPeak, v)
	}
	if v, ok := s.total(waitingNames); ok {
		w.waitPeak = math.Max(w.waitPeak, v)
	}
	if v, ok := s.peak(specLengthNames); ok && v > 0 {
		w.specLength += v
		w.specLengths++
	}
}

// Serves reports whether the engine's metrics answered the watch's first scrape.
func (w *Watch) Serves() bool { return w.err == nil }

// Drained polls the engine's running and waiting requests gauges until both read none, at
// most until bound after since, and returns when they did, after since; known is false when
// the engine exports no running gauge (or its metrics could not be read). An engine that
// stopped what its clients left reads none as soon as their last request ended.
func (w *Watch) Drained(ctx context.Context, since time.Time, bound time.Duration) (after time.Duration, drained, known bool) {
	if w.err != nil {
		return 0, false, false
	}
	for {
		s, err := scrape(ctx, w.client, w.url)
		if err != nil {
			return time.Since(since), false, false
		}
		running, ok := s.total(runningNames)
		if !ok {
			return 0, false, false
		}
		waiting, _ := s.total(waitingNames)
		after = time.Since(since)
		if running == 0 && waiting == 0 {
			return after, true, true
		}
		if after >= bound || ctx.Err() != nil {
			return after, false, true
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Reading is one scrape of what tells whether the engine is working: its running and
// waiting requests gauges and its generated-tokens counter, each with whether the engine
// exports it.
type Reading struct {
	Running, Waiting, Generated float64
	HasRunning, HasGenerated    bool
}

// Idle reports whether the engine's gauges read no request running or waiting.
func (r Reading) Idle() bool { return r.HasRunning && r.Running == 0 && r.Waiting == 0 }

// Read scrapes the engine once, for a probe after the run (Finish need not have run).
func (w *Watch) Read(ctx context.Context) (Reading, error) {
	if w.err != nil {
		return Reading{}, w.err
	}
	s, err := scrape(ctx, w.client, w.url)
	if err != nil {
		return Reading{}, err
	}
	var r Reading
	r.Running, r.HasRunning = s.total(runningNames)
	r.Waiting, _ = s.total(waitingNames)
	r.Generated, r.HasGenerated = s.total(generationNames)
	return r, nil
}

// Finish stops the watch, scrapes once more and returns the run's deltas.
func (w *Watch) Finish(ctx context.Context) artifact.EngineMetrics {
	out := artifact.EngineMetrics{URL: w.url}
	if w.err != nil {
		out.Error = w.err.Error()
		return out
	}
	close(w.stop)
	<-w.done
	last, err := scrape(ctx, w.client, w.url)
	if err != nil {
		out.Error = "final scrape: " + err.Error()
		return out
	}
	w.note(last)
	out.Scraped, out.Scrapes = true, w.scrapes
	out.TTFTMs = latency(w.first, last, ttftNames)
	out.InterTokenMs = latency(w.first, last, interTokenNames)
	out.E2EMs = latency(w.first, last, e2eNames)
	out.QueueMs = latency(w.first, last, queueNames)
	out.PrefillMs = latency(w.first, last, prefillNames)
	out.DecodeMs = latency(w.first, last, decodeNames)
	out.Preemptions = delta(w.first, last, preemptNames)
	out.PromptTokens = delta(w.first, last, promptNames)
	out.GenerationTokens = delta(w.first, last, generationNames)
	if q, h := delta(w.first, last, cacheQueryNames), delta(w.first, last, cacheHitNames); q != nil && h != nil && *q > 0 {
		out.PrefixCacheHitRate = artifact.F(float64(*h) / float64(*q))
	}
	out.KVCacheUsagePeak = finite(w.kvPeak)
	out.RunningPeak = finite(w.runPeak)
	out.WaitingPeak = finite(w.waitPeak)
	if v, ok := w.first.total(runningNames); ok {
		out.RunningAtStart = artifact.F(v)
	}
	if v, ok := w.first.total(waitingNames); ok {
		out.WaitingAtStart = artifact.F(v)
	}
	out.SpecDecode = w.specDecode(last)
	return out
}

// specCount is vLLM's speculative decoding counters at one scrape; ok is false when the
// scrape failed or the engine does not export them.
type specCount struct {
	drafts, tokens, accepted float64
	perPos                   map[string]float64
	ok                       bool
}

func specOf(s snapshot) specCount {
	d, ok1 := s.total(specDraftsNames)
	t, ok2 := s.total(specDraftTokensNames)
	a, ok3 := s.total(specAcceptedNames)
	if !ok1 || !ok2 || !ok3 {
		return specCount{}
	}
	return specCount{drafts: d, tokens: t, accepted: a, perPos: s.byLabel(specPerPosNames, "position"), ok: true}
}

// Mark reads the speculative decoding counters now, at a block's start or end: Blocks and
// Finish then count the measured blocks only, not the warm-up nor, in an interleaved run,
// the other engine's turns. One synchronous scrape between blocks, and none at all for an
// engine that does not export the counters.
func (w *Watch) Mark(ctx context.Context) {
	if w == nil || w.err != nil || !specOf(w.first).ok {
		return
	}
	if w.counters == nil {
		w.counters = newLineReader(specCounters)
	}
	var s snapshot
	if err := fetch(ctx, w.client, w.url, func(body io.Reader) (err error) {
		s, err = w.counters.read(body)
		return err
	}); err != nil {
		w.marks = append(w.marks, specCount{})
		return
	}
	w.marks = append(w.marks, specOf(s))
}

// Blocks is the speculative decoding of each block between Marks (a start and an end
// each), nil for a block a scrape missed or that drafted nothing; nil when nothing was
// marked.
func (w *Watch) Blocks() []*artifact.SpecDecode {
	if w == nil || len(w.marks) < 2 {
		return nil
	}
	out := make([]*artifact.SpecDecode, len(w.marks)/2)
	for j := range out {
		out[j] = specBetween(w.marks[2*j], w.marks[2*j+1], "")
	}
	return out
}

// specBetween is the speculative decoding between two reads of the counters; nil when a
// read failed or nothing was drafted.
func specBetween(before, after specCount, source string) *artifact.SpecDecode {
	drafts, tokens, accepted := after.drafts-before.drafts, after.tokens-before.tokens, after.accepted-before.accepted
	if !before.ok || !after.ok || !(drafts > 0) || !(tokens > 0) {
		return nil
	}
	d := &artifact.SpecDecode{Source: source, Drafts: artifact.F(drafts), DraftTokens: artifact.F(tokens), AcceptedTokens: artifact.F(accepted),
		AcceptanceRate:     artifact.F(accepted / tokens),
		MeanAcceptedLength: artifact.F(1 + accepted/drafts)}
	for pos := 0; ; pos++ {
		v, ok := after.perPos[strconv.Itoa(pos)]
		if !ok {
			break
		}
		d.PerPosition = append(d.PerPosition, artifact.Float((v-before.perPos[strconv.Itoa(pos)])/drafts))
	}
	return d
}

// specDecode is the run's speculative decoding: vLLM's counters differenced over the
// marked blocks (acceptance over drafted tokens, 1 + accepted per draft, by position), or
// over the whole watch, warm-up included, when no block was marked; else SGLang's accept
// length averaged over the scrapes; nil when the engine exports neither or drafted nothing.
func (w *Watch) specDecode(last snapshot) *artifact.SpecDecode {
	source := specDraftsNames[0] + ", " + specDraftTokensNames[0] + ", " + specAcceptedNames[0]
	if blocks := w.Blocks(); len(blocks) > 0 {
		var before, after specCount
		before.ok, after.ok = true, true
		before.perPos, after.perPos = map[string]float64{}, map[string]float64{}
		for j := range blocks {
			b, a := w.marks[2*j], w.marks[2*j+1]
			if !b.ok || !a.ok {
				continue // a missed scrape loses its block, not the run
			}
			after.drafts, after.tokens, after.accepted = after.drafts+a.drafts-b.drafts, after.tokens+a.tokens-b.tokens, after.accepted+a.accepted-b.accepted
			for pos, v := range a.perPos {
				after.perPos[pos] += v - b.perPos[pos]
			}
		}
		if d := specBetween(before, after, source+" (the measured blocks)"); d != nil {
			return d
		}
	}
	if d := specBetween(specOf(w.first), specOf(last), source+" (the whole watch, warm-up included)"); d != nil {
		return d
	}
	if w.specLengths > 0 {
		return &artifact.SpecDecode{Source: specLengthNames[0] + " (mean of the scrapes)", MeanAcceptedLength: artifact.F(w.specLength / float64(w.specLengths))}
	}
	return nil
}

func finite(v float64) *artifact.Float {
	if math.IsInf(v, 0) {
		return nil
	}
	return artifact.F(v)
}

// delta is a counter's increase over the run; nil when the engine does not export it.
func delta(before, after snapshot, names []string) *artifact.Float {
	a, ok := after.total(names)
	if !ok {
		return nil
	}
	b, _ := before.total(names)
	return artifact.F(a - b)
}

// latency summarizes a seconds histogram's observations over the run, in milliseconds.
func latency(before, after snapshot, names []string) *artifact.ServerLatency {
	a, name, ok := after.histogram(names)
	if !ok {
		return nil
	}
	b, _, _ := before.histogram(names)
	d := a
	if b.bounds != nil {
		d = a.minus(b)
	}
	out := &artifact.ServerLatency{Metric: name, Count: int(math.Round(d.count))}
	if d.count <= 0 {
		return out
	}
	out.MeanMs = artifact.F(1000 * d.sum / d.count)
	for _, q := range []struct {
		q    float64
		into **artifact.Float
	}{{0.5, &out.P50Ms}, {0.9, &out.P90Ms}, {0.99, &out.P99Ms}} {
		if v, _, _, ok := d.quantile(q.q); ok {
			*q.into = artifact.F(1000 * v)
		}
	}
	if _, low, high, ok := d.quantile(0.5); ok && !math.IsInf(high, 1) {
		out.P50BucketMs = []artifact.Float{artifact.Float(1000 * low), artifact.Float(1000 * high)}
	}
	return out
}
