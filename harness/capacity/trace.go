package capacity

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/internal/fields"
)

// Trace, when File names one, replays a trace file in the Mooncake format (one JSON object
// a line: timestamp in ms, input_length, output_length, hash_ids) in place of a scenario's
// Requests independent prompts. Each selected line is one request, started open-loop at
// its timestamp divided by Speedup (the scenario's Concurrency caps those in flight), with
// input_length prompt tokens built of blocks of BlockTokens (equal hash ids are
// byte-identical blocks, different ones share nothing, so the engine's prefix cache sees
// exactly the trace's sharing), asking for output_length-1 code words with max_tokens
// output_length. Lines keeps the first lines of the window [FromMs, UntilMs) (0: all, and
// open ends). Zero numbers take their defaults.
type Trace struct {
	File        string  `key:"trace" env:"TRACE_FILE"`
	Speedup     float64 `key:"trace_speedup" range:"[0,100000]" default:"1" zero:"default"`
	BlockTokens int     `key:"trace_block_size" range:"[0,65536]" default:"512" zero:"default"`
	Lines       int     `key:"trace_lines" range:"[0,200000]" default:"0"`
	FromMs      int64   `key:"trace_from_ms" range:"[0,]" default:"0"`
	UntilMs     int64   `key:"trace_until_ms" range:"[0,]" default:"0"`
}

// replayed reports whether the scenario replays a trace.
func (t Trace) replayed() bool { return t.File != "" }

// Check reads the trace file as Run will, and reports every problem it finds, each with
// its line: a configuration calls it to name them before any request. Without a file there
// is nothing to check.
func (t Trace) Check() error {
	if !t.replayed() {
		return nil
	}
	_, err := t.read()
	return err
}

// read reads and checks the trace file, every problem named with its line.
func (t Trace) read() (*workload.Trace, error) {
	if err := fields.FillZeros(&t); err != nil {
		return nil, err
	}
	f, err := os.Open(t.File)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return workload.ReadTrace(f, workload.TraceSelection{FromMs: t.FromMs, UntilMs: t.UntilMs,
		First: t.Lines, Speedup: t.Speedup}, t.BlockTokens)
}

// problems are the trace's own problems in sc: a block too small, and what a replay, which
// sets its own schedule and sharing, cannot be combined with.
func (t Trace) problems(sc Scenario) []error {
	var errs []error
	if t.BlockTokens > 0 && t.BlockTokens < 16 {
		errs = append(errs, &fields.FieldError{Field: "Trace.BlockTokens", Value: t.BlockTokens, Problem: "want 0 (the default, 512) or at least 16 tokens"})
	}
	if !t.replayed() {
		return errs
	}
	return append(errs, conflicts("Trace.File", t.File, sc)...)
}

// traceKind replays a trace: each selected line one request, started open-loop at its
// timestamp.
type traceKind struct {
	trace *workload.Trace
	// blocks builds the prompts (blockExact: /tokenize fitted a block exactly);
	// lengthened counts the lines planned longer than their input_length, and the most
	// tokens added to one.
	blocks     workload.BlockPlan
	blockExact bool
	lengthened [2]int
}

// A line sets its request's max_tokens and words; the lines are the requests.
func (*traceKind) replaces(_ Scenario, field string) bool {
	return field == "Requests" || field == "MaxTokens" || field == "ResponseWords"
}

// requests is 0: the lines are counted when the file is read.
func (*traceKind) requests(Scenario) int { return 0 }

// plan reads the trace and plans each selected line as its request: input_length prompt
// tokens, output_length max_tokens. A line the served window cannot hold is refused.
func (k *traceKind) plan(r *run) ([]planned, error) {
	sc := r.sc
	tr, err := sc.Trace.read()
	if err != nil {
		return nil, fmt.Errorf("invalid scenario %q: trace %s: %w", sc.Name, sc.Trace.File, err)
	}
	if msg := traceOverWindow(tr, sc, windowSource(r.caps)); msg != "" {
		return nil, errors.New(msg)
	}
	k.trace = tr
	plan := make([]planned, tr.Len())
	for i := range plan {
		line := tr.Request(i)
		plan[i] = planned{context: line.InputTokens, maxTokens: traceMaxTokens(line), words: traceWords(line)}
	}
	return plan, nil
}

// prepare fits a block to the endpoint's tokenizer, lengthens the lines too short for
// their last block, and starts each of the shard's lines at its timestamp.
func (k *traceKind) prepare(ctx context.Context, r *run) ([]int, pacer, error) {
	indices := r.sc.Shard.indices(len(r.plan))
	k.blocks = workload.BlockPlan{Prompts: r.prompts}
	k.blocks.BlockChars, k.blockExact = fitBlock(ctx, r.client, r.sc, r.prompts, r.sc.Trace.BlockTokens)
	r.expected = make([]*cacheRange, len(r.plan))
	k.lengthened[0], k.lengthened[1] = k.lengthenShortLines(r, indices)
	all := k.trace.Offsets()
	offsets := make([]time.Duration, len(indices))
	for j, i := range indices {
		offsets[j] = all[i]
	}
	return indices, openLoop{offsets: offsets, concurrency: r.concurrency, start: requestUnits{r, k.prompt}.start}, nil
}

// prompt appends request i's prompt: its line's blocks, then its instruction.
func (k *traceKind) prompt(dst []byte, r *run, i int) ([]byte, error) {
	return k.blocks.AppendTracePrompt(dst, i, k.trace.Request(i).HashIDs, r.plan[i].context, r.plan[i].words)
}

// record says how the trace was replayed (the artifact's anvilbench.trace) and which line
// each request was. The lines plan each request's context: the run has no one context.
func (k *traceKind) record(r *run, b *artifact.Benchmark) {
	b.ContextTokens = nil
	x := b.Extension
	for j := range x.Timeline {
		x.Timeline[j].TraceLine = new(k.trace.Request(r.local(x.Timeline[j].RequestIndex)).Line)
	}
	t, tr := r.sc.Trace, k.trace
	x.Trace = &artifact.TraceReplay{
		File: filepath.Base(t.File), SHA256: tr.SHA256, FileLines: tr.Lines, Selected: tr.Len(),
		FromMs: t.FromMs, UntilMs: t.UntilMs, FirstLines: t.Lines,
		Speedup: artifact.Float(t.Speedup), BlockTokens: t.BlockTokens,
		BlockChars: k.blocks.BlockChars, BlockCharsExact: k.blockExact,
		LengthenedLines: k.lengthened[0], LengthenedTokensMax: k.lengthened[1],
		ScheduleMs:   artifact.Float(tr.Duration().Seconds() * 1000),
		StartErrorMs: startErrors(x.Timeline),
	}
}

// traceMaxTokens is max_tokens of a trace request: its output_length, and room for one
// word and the end token at least.
func traceMaxTokens(r workload.TraceRequest) int { return max(r.OutputTokens, 2) }

// traceWords is how many code words a trace request asks for: one token short of its
// output_length, for the end token.
func traceWords(r workload.TraceRequest) int { return max(r.OutputTokens-1, 1) }

// maxListedLines bounds the lines an error lists.
const maxListedLines = 10

// traceOverWindow lists the trace lines whose prompt and answer the served window cannot
// hold with the margin, "" when all fit: a replay that truncated them silently would not
// be the trace.
func traceOverWindow(tr *workload.Trace, sc Scenario, source string) string {
	if sc.MaxContextTokens <= 0 {
		return ""
	}
	var lines []string
	over := 0
	for i := range tr.Len() {
		r := tr.Request(i)
		if r.InputTokens+traceMaxTokens(r)+sc.ContextMargin > sc.MaxContextTokens {
			over++
			if len(lines) < maxListedLines {
				lines = append(lines, fmt.Sprintf("%d (%d+%d)", r.Line, r.InputTokens, traceMaxTokens(r)))
			}
		}
	}
	if over == 0 {
		return ""
	}
	return fmt.Sprintf("%d of the trace's %d selected lines ask more than the served window of %d tokens (%s) holds with the margin of %d: lines %s (input+output); select other lines (trace_lines, trace_from_ms, trace_until_ms) or serve a larger window",
		over, tr.Len(), sc.MaxContextTokens, source, sc.ContextMargin, strings.Join(lines, ", "))
}

// fitBlock finds the bytes of a full block the endpoint counts as exactly tokens tokens,
// with /tokenize (the block on its own, as plain text: a block starts and ends a line, so
// its tokens are the same inside a prompt). Without /tokenize, or when no size within a few
// tries counts exactly, it is the calibrated estimate; the note says which.
func fitBlock(ctx context.Context, client *stream.Client, sc Scenario, p workload.Prompts, tokens int) (chars int, exact bool) {
	estimate := int(math.Round(float64(tokens) * p.CharsPerToken))
	count := func(chars int) (int, error) {
		return client.Tokenize(ctx, sc.Model, string(p.AppendBlock(nil, probeIndex, chars, true)), false)
	}
	build, best, bestOff := estimate, estimate, math.MaxInt
	for range 4 {
		n, err := count(build)
		if err != nil {
			return estimate, false
		}
		off := n - tokens
		if abs(off) < abs(bestOff) {
			best, bestOff = build, off
		}
		if off == 0 {
			return build, true
		}
		// Move by the calibrated rate, at least a byte, toward the target.
		step := int(math.Round(float64(off) * p.CharsPerToken))
		if step == 0 {
			step = off
		}
		build -= step
	}
	// Tokens grow in steps as bytes are added: search the bytes around the best size.
	for d := 1; d <= fitSearchBytes; d++ {
		for _, c := range []int{best - d, best + d} {
			if n, err := count(c); err == nil && n == tokens {
				return c, true
			}
		}
	}
	return best, false
}

// fitSearchBytes is how far around its estimate fitBlock looks for a block's exact size.
const fitSearchBytes = 16

// lengthenShortLines plans more prompt tokens for the selected lines whose input_length
// leaves too little after their whole blocks for the last block's first line and the
// instruction (a line 10 tokens past a block boundary): just enough, so that every line is
// replayed, its whole blocks intact, and the artifact says how many were lengthened and by
// how much.
func (k *traceKind) lengthenShortLines(r *run, indices []int) (lines, most int) {
	for _, i := range indices {
		p := &r.plan[i]
		ids := len(k.trace.Request(i).HashIDs)
		short := workload.MinBlockChars - k.blocks.LastBlockChars(i, ids, p.context, p.words)
		if short <= 0 {
			continue
		}
		extra := int(math.Ceil(float64(short) / r.prompts.CharsPerToken))
		for k.blocks.LastBlockChars(i, ids, p.context+extra, p.words) < workload.MinBlockChars {
			extra++
		}
		p.context += extra
		lines, most = lines+1, max(most, extra)
	}
	return lines, most
}

// traceExpectations computes what each request of the replay could find cached, from when
// requests were sent and answered. An engine caches a prompt's blocks once its prefill is
// done, which is before its first output arrives, and looks them up for a request before
// that request's first output. So request r finds at least the leading blocks that
// requests whose first output arrived before r was sent held whole (a prompt's last block
// is never whole: the instruction takes its end), and at most the blocks of requests sent
// before r's own first output (the whole prompt when every block, the partial last one
// too, was). Requests far enough apart make the two equal; requests sent in the same
// instant may reach the engine in either order, which the upper bound allows.
func (k *traceKind) finish(r *run) {
	type event struct {
		at     time.Time
		i      int
		answer bool
	}
	var events []event
	if r.sc.Shard.sharded() {
		// The other shards' lines reach the same engine: as sent when they were due, which
		// is before they were sent, so the upper bound stays one.
		mine := make(map[int]bool, len(r.indices))
		for _, i := range r.indices {
			mine[i] = true
		}
		for i := range k.trace.Len() {
			if !mine[i] {
				events = append(events, event{at: r.started.Add(k.trace.Request(i).Offset), i: i})
			}
		}
	}
	for k, o := range r.outcomes {
		i := r.indices[k]
		if !o.sent.IsZero() {
			events = append(events, event{at: o.sent, i: i})
		}
		if !o.firstOutput.IsZero() {
			events = append(events, event{at: o.firstOutput, i: i, answer: true})
		}
	}
	// Sends before answers at the same instant: an answer counts only when it came first.
	slices.SortStableFunc(events, func(a, b event) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return cmp.Compare(boolInt(a.answer), boolInt(b.answer))
	})
	sent, done := map[int64]int{}, map[int64]int{}
	block := r.sc.Trace.BlockTokens
	for _, e := range events {
		t := k.trace.Request(e.i)
		ids := t.HashIDs
		whole := ids[:len(ids)-1]
		if !e.answer {
			lo := block * leading(whole, done, nil)
			r.expected[e.i] = &cacheRange{Min: lo, Max: lo}
			addAll(sent, ids)
			continue
		}
		if x := r.expected[e.i]; x != nil {
			x.Max = max(x.Min, block*leading(whole, sent, ids))
			if leading(ids, sent, ids) == len(ids) {
				x.Max = r.plan[e.i].context
			}
		}
		addAll(done, whole)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addAll counts ids into set.
func addAll(set map[int64]int, ids []int64) {
	for _, id := range ids {
		set[id]++
	}
}

// leading is how many of ids, from the first, set holds, beyond what own (a request's own
// ids, counted in set already) put there.
func leading(ids []int64, set map[int64]int, own []int64) int {
	for k, id := range ids {
		if set[id]-count(own, id) <= 0 {
			return k
		}
	}
	return len(ids)
}

func count(ids []int64, id int64) int {
	n := 0
	for _, x := range ids {
		if x == id {
			n++
		}
	}
	return n
}

// cacheRange is the prompt tokens a request may find cached, as the workload shares them.
type cacheRange struct{ Min, Max int }

// expectedAt is request i's expected range of cached tokens, nil when none was planned.
func (r *run) expectedAt(i int) *cacheRange {
	if r.expected == nil {
		return nil
	}
	return r.expected[i]
}

// startErrors summarizes each request's start after its due time, from the timeline.
func startErrors(spans []artifact.RequestSpan) *artifact.Percentiles {
	var late []float64
	for _, s := range spans {
		if s.StartOffsetMs != nil && s.IntendedStartOffsetMs != nil {
			late = append(late, float64(*s.StartOffsetMs)-float64(*s.IntendedStartOffsetMs))
		}
	}
	return percentiles(late)
}
