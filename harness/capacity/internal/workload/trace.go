package workload

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// DefaultTraceBlockTokens is the Mooncake trace format's block size: each hash id stands for
// 512 prompt tokens.
const DefaultTraceBlockTokens = 512

// maxTraceRequests bounds the lines one replay selects: its artifact (about 1.6 KiB a
// request) stays readable (the 512 MiB an artifact may hold).
const maxTraceRequests = 200_000

// maxTraceProblems bounds the problems a trace's error lists.
const maxTraceProblems = 10

// maxTraceLineBytes bounds one line of a trace: a million-token request has some 2,000
// hash ids.
const maxTraceLineBytes = 1 << 20

// Trace is a request trace in the Mooncake format, one JSON object a line:
//
//	{"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, ...]}
//
// timestamp is when the request arrives, in milliseconds; input_length and output_length
// are its prompt and answer tokens; hash_ids names the blocks of BlockTokens prompt tokens
// its prompt is made of, in order, the last one partial: two requests with equal leading
// ids share that much prefix. Other members are ignored. A Trace holds the selected lines
// compactly (no prompt text): about 30 bytes a line and 8 a hash id.
type Trace struct {
	// BlockTokens is the tokens a hash id stands for.
	BlockTokens int
	// Lines is how many lines the file has; SHA256 its digest.
	Lines  int
	SHA256 string
	// Skipped is how many lines the selection left out.
	Skipped int
	lines   []traceLine
	ids     []int64
}

type traceLine struct {
	line          int32
	offset        time.Duration
	input, output int32
	first, end    int32 // the line's ids are ids[first:end]
}

// TraceRequest is one selected line of a trace.
type TraceRequest struct {
	// Line is its line number in the file, from 1.
	Line int
	// Offset is when it is due after the first selected line, the speedup applied.
	Offset time.Duration
	// InputTokens and OutputTokens are input_length and output_length.
	InputTokens, OutputTokens int
	// HashIDs are its blocks' ids, a view into the trace.
	HashIDs []int64
}

// TraceSelection picks the lines of a trace to replay and how fast.
type TraceSelection struct {
	// FromMs and UntilMs keep the lines whose timestamp lies in [FromMs, UntilMs); 0 leaves
	// an end open.
	FromMs, UntilMs int64
	// First keeps only the first First lines of that window; 0 keeps them all.
	First int
	// Speedup divides the gaps between timestamps; 0 means 1.
	Speedup float64
}

// Len is the number of selected lines.
func (t *Trace) Len() int { return len(t.lines) }

// Request returns selected line i.
func (t *Trace) Request(i int) TraceRequest {
	l := t.lines[i]
	return TraceRequest{Line: int(l.line), Offset: l.offset, InputTokens: int(l.input), OutputTokens: int(l.output),
		HashIDs: t.ids[l.first:l.end:l.end]}
}

// Offsets lists the selected lines' due times, in order.
func (t *Trace) Offsets() []time.Duration {
	out := make([]time.Duration, len(t.lines))
	for i, l := range t.lines {
		out[i] = l.offset
	}
	return out
}

// Duration is the selected lines' span, the speedup applied: when the last is due.
func (t *Trace) Duration() time.Duration {
	if len(t.lines) == 0 {
		return 0
	}
	return t.lines[len(t.lines)-1].offset
}

// traceRecord is one line as written.
type traceRecord struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *int64   `json:"input_length"`
	OutputLength *int64   `json:"output_length"`
	HashIDs      *[]int64 `json:"hash_ids"`
}

// traceError lists what is wrong with a trace, each problem with its line number.
type traceError struct {
	Problems []string
	// More is how many problems beyond those listed were found.
	More int
}

func (e *traceError) Error() string {
	msg := strings.Join(e.Problems, "; ")
	if e.More > 0 {
		msg += fmt.Sprintf("; and %d more", e.More)
	}
	return msg
}

// ReadTrace reads a Mooncake-format trace from r in one pass, keeping the lines sel selects.
// Every line is checked, selected or not, and every problem is reported (a traceError) with
// its line number: a line that is not a JSON object, a missing or negative member, a
// timestamp before the previous line's, hash ids that do not cover input_length at
// blockTokens tokens a block.
func ReadTrace(r io.Reader, sel TraceSelection, blockTokens int) (*Trace, error) {
	if blockTokens < 1 {
		return nil, fmt.Errorf("trace block size %d: want at least 1 token", blockTokens)
	}
	speedup, err := sel.speedup()
	if err != nil {
		return nil, err
	}
	tr := traceReader{t: &Trace{BlockTokens: blockTokens}, sel: sel, speedup: speedup, prev: math.Inf(-1), first: math.NaN()}
	digest := sha256.New()
	sc := bufio.NewScanner(io.TeeReader(r, digest))
	sc.Buffer(make([]byte, 64<<10), maxTraceLineBytes)
	for n := 1; sc.Scan(); n++ {
		tr.t.Lines = n
		tr.line(n, bytes.TrimSpace(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line %d is longer than %d bytes", tr.t.Lines+1, maxTraceLineBytes)
		}
		return nil, fmt.Errorf("read trace: %w", err)
	}
	if len(tr.problems.Problems) > 0 {
		return nil, &tr.problems
	}
	if err := tr.t.selected(sel, tr.over); err != nil {
		return nil, err
	}
	tr.t.SHA256 = hex.EncodeToString(digest.Sum(nil))
	return tr.t, nil
}

// traceReader is ReadTrace's state: the trace so far, the previous and first selected
// timestamps, the lines over the limit, and the problems found.
type traceReader struct {
	t           *Trace
	sel         TraceSelection
	speedup     float64
	prev, first float64
	over        int
	problems    traceError
}

// line checks line n, and keeps it when the selection does.
func (tr *traceReader) line(n int, text []byte) {
	if len(text) == 0 {
		return
	}
	var rec traceRecord
	if err := json.Unmarshal(text, &rec); err != nil {
		tr.problems.add(n, "not a JSON object with timestamp, input_length, output_length and hash_ids: %v", err)
		return
	}
	t := tr.t
	in, out, ts, ok := checkRecord(rec, t.BlockTokens, func(format string, args ...any) { tr.problems.add(n, format, args...) })
	if !ok {
		return
	}
	if ts < tr.prev {
		tr.problems.add(n, "timestamp %g is before the previous line's %g: a trace is in time order", ts, tr.prev)
		return
	}
	tr.prev = ts
	if !tr.sel.keeps(ts, len(t.lines)) {
		t.Skipped++
		return
	}
	if len(t.lines) == maxTraceRequests {
		tr.over++ // counted, not kept: the error says how many
		return
	}
	if math.IsNaN(tr.first) {
		tr.first = ts
	}
	ids := *rec.HashIDs
	t.lines = append(t.lines, traceLine{line: int32(n), offset: time.Duration((ts - tr.first) / tr.speedup * float64(time.Millisecond)),
		input: int32(in), output: int32(out), first: int32(len(t.ids)), end: int32(len(t.ids) + len(ids))})
	t.ids = append(t.ids, ids...)
}

// add notes a problem of a line; past maxTraceProblems it is only counted.
func (e *traceError) add(line int, format string, args ...any) {
	if len(e.Problems) == maxTraceProblems {
		e.More++
		return
	}
	e.Problems = append(e.Problems, fmt.Sprintf("line %d: ", line)+fmt.Sprintf(format, args...))
}

// speedup is the selection's speedup, 1 when zero.
func (sel TraceSelection) speedup() (float64, error) {
	speedup := sel.Speedup
	if speedup == 0 {
		speedup = 1
	}
	if !(speedup > 0) || math.IsInf(speedup, 0) {
		return 0, fmt.Errorf("trace speedup %v: want a positive number", sel.Speedup)
	}
	return speedup, nil
}

// selected says why the lines sel kept cannot be replayed: more than a replay takes (over
// of them were counted, not kept), or none.
func (t *Trace) selected(sel TraceSelection, over int) error {
	if over > 0 {
		return fmt.Errorf("the selection holds %d lines; a replay takes at most %d (select fewer with trace_lines, trace_from_ms, trace_until_ms)",
			len(t.lines)+over, maxTraceRequests)
	}
	if len(t.lines) == 0 {
		return fmt.Errorf("the trace's %d lines hold no request the selection keeps (from %d ms, until %d ms, first %d)",
			t.Lines, sel.FromMs, sel.UntilMs, sel.First)
	}
	return nil
}

// checkRecord validates one line's members, reporting each problem through add.
func checkRecord(rec traceRecord, blockTokens int, add func(string, ...any)) (in, out int64, ts float64, ok bool) {
	ok = true
	missing := func(name string) { add("no %s", name); ok = false }
	switch {
	case rec.Timestamp == nil:
		missing("timestamp")
	case *rec.Timestamp < 0 || math.IsNaN(*rec.Timestamp):
		add("timestamp %g: want milliseconds, at least 0", *rec.Timestamp)
		ok = false
	default:
		ts = *rec.Timestamp
	}
	for _, m := range []struct {
		name string
		v    *int64
		dst  *int64
	}{{"input_length", rec.InputLength, &in}, {"output_length", rec.OutputLength, &out}} {
		switch {
		case m.v == nil:
			missing(m.name)
		case *m.v < 1 || *m.v > maxBucketTokens:
			add("%s %d: want 1..%d tokens", m.name, *m.v, maxBucketTokens)
			ok = false
		default:
			*m.dst = *m.v
		}
	}
	if rec.HashIDs == nil {
		missing("hash_ids")
		return in, out, ts, false
	}
	if ok {
		if want := (in + int64(blockTokens) - 1) / int64(blockTokens); int64(len(*rec.HashIDs)) != want {
			add("%d hash ids for input_length %d: at %d tokens a block it takes %d (is trace_block_size the trace's?)",
				len(*rec.HashIDs), in, blockTokens, want)
			ok = false
		}
	}
	return in, out, ts, ok
}

// keeps reports whether the line at timestamp ts is selected, kept lines before it.
func (s TraceSelection) keeps(ts float64, kept int) bool {
	if float64(s.FromMs) > ts || (s.UntilMs > 0 && ts >= float64(s.UntilMs)) {
		return false
	}
	return s.First == 0 || kept < s.First
}
