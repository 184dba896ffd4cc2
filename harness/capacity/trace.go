package capacity

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/harness/stream"
)

// CheckTrace reads the scenario's trace file as Run will, and reports every problem it
// finds, each with its line: a configuration calls it to name them before any request.
func (sc Scenario) CheckTrace() error {
	_, err := readTrace(sc.withDefaults())
	return err
}

// readTrace reads and checks the scenario's trace file, every problem named with its line.
func readTrace(sc Scenario) (*workload.Trace, error) {
	f, err := os.Open(sc.Trace)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return workload.ReadTrace(f, workload.TraceSelection{FromMs: sc.TraceFromMs, UntilMs: sc.TraceUntilMs,
		First: sc.TraceLines, Speedup: sc.TraceSpeedup}, sc.TraceBlockTokens)
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
func (r *run) lengthenShortLines() (lines, most int) {
	for _, i := range r.indices {
		t := r.trace.Request(i)
		short := workload.MinBlockChars - r.blocks.LastBlockChars(i, len(t.HashIDs), r.plan[i], traceWords(t))
		if short <= 0 {
			continue
		}
		extra := int(math.Ceil(float64(short) / r.prompts.CharsPerToken))
		for r.blocks.LastBlockChars(i, len(t.HashIDs), r.plan[i]+extra, traceWords(t)) < workload.MinBlockChars {
			extra++
		}
		r.plan[i] += extra
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
func (r *run) traceExpectations() {
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
		for i := range r.trace.Len() {
			if !mine[i] {
				events = append(events, event{at: r.started.Add(r.trace.Request(i).Offset), i: i})
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
	block := r.sc.TraceBlockTokens
	for _, e := range events {
		t := r.trace.Request(e.i)
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
				x.Max = r.plan[e.i]
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

// traceReplay records how the trace was replayed (the artifact's anvilbench.trace).
func (r *run) traceReplay(spans []artifact.RequestSpan) *artifact.TraceReplay {
	if r.trace == nil {
		return nil
	}
	sc, tr := r.sc, r.trace
	out := &artifact.TraceReplay{
		File: filepath.Base(sc.Trace), SHA256: tr.SHA256, FileLines: tr.Lines, Selected: tr.Len(),
		FromMs: sc.TraceFromMs, UntilMs: sc.TraceUntilMs, FirstLines: sc.TraceLines,
		Speedup: artifact.Float(sc.TraceSpeedup), BlockTokens: sc.TraceBlockTokens,
		BlockChars: r.blocks.BlockChars, BlockCharsExact: r.blockExact,
		LengthenedLines: r.lengthened[0], LengthenedTokensMax: r.lengthened[1],
		ScheduleMs: artifact.Float(tr.Duration().Seconds() * 1000),
	}
	out.StartErrorMs = startErrors(spans)
	return out
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
