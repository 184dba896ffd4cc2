package stream

import (
	"context"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// recordedEvents is the size of the recorded stream the reader benchmarks replay.
const recordedEvents = 1000

// recordStream builds a recorded vLLM chat stream of recordedEvents events, byte for byte
// what vLLM (and the reference engine) send: the role chunk, content chunks of one word,
// the finish chunk, the usage chunk and [DONE]. continuous puts usage in every chunk, as
// continuous_usage_stats does. It returns the body and its events.
func recordStream(continuous bool) (string, []string) {
	const head = `data: {"id":"chatcmpl-1f4c2a9e6b7d4e0f","object":"chat.completion.chunk","created":1764633600,"model":"Qwen/Qwen3-8B","choices":[`
	usage := func(n int) string {
		if !continuous {
			return ""
		}
		return `,"usage":{"prompt_tokens":4096,"total_tokens":` + strconv.Itoa(4096+n) + `,"completion_tokens":` + strconv.Itoa(n) + `}`
	}
	events := []string{head + `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]` + usage(0) + "}\n\n"}
	words := recordedEvents - 4
	for i := range words {
		w := " code"
		if i == 0 {
			w = "code"
		}
		events = append(events, head+`{"index":0,"delta":{"content":"`+w+`"},"logprobs":null,"finish_reason":null}]`+usage(i+1)+"}\n\n")
	}
	events = append(events,
		head+`{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop","stop_reason":null}]`+usage(words+1)+"}\n\n",
		head+`],"usage":{"prompt_tokens":4096,"total_tokens":`+strconv.Itoa(4096+words+1)+`,"completion_tokens":`+strconv.Itoa(words+1)+`,"prompt_tokens_details":{"cached_tokens":0}}}`+"\n\n",
		"data: [DONE]\n\n")
	return strings.Join(events, ""), events
}

// eventReads serves one event per Read, as a live stream delivers them.
type eventReads struct {
	events []string
	k      int
}

func (r *eventReads) Read(p []byte) (int, error) {
	if r.k == len(r.events) {
		return 0, io.EOF
	}
	n := copy(p, r.events[r.k])
	if n < len(r.events[r.k]) {
		r.events[r.k] = r.events[r.k][n:]
	} else {
		r.k++
	}
	return n, nil
}

// BenchmarkStreamEvents measures the client's per-event cost: a recorded 1000-event stream
// replayed from memory through consume, the read loop Stream runs on the response body
// (stamping reader with time.Now at every read, stall watchdog, event reader, chunk
// decoding, bookkeeping). "coalesced" reads up to 4 KiB at a time (many events per read, as
// under load), "per-read" one event per read (as a live stream at low load), "legacy" is the
// loop before this package's own chunk scanner (go-sse and encoding/json into a struct).
func BenchmarkStreamEvents(b *testing.B) {
	plain, plainEvents := recordStream(false)
	_, contEvents := recordStream(true)
	s := &settings{timeout: time.Hour, stall: time.Hour, maxEvent: DefaultMaxEventSize}
	consume := func(r io.Reader, res *Result) error {
		return s.consume(context.Background(), r, res, 0, 0, func() {}, nil, APIChat)
	}
	legacy := func(r io.Reader, res *Result) error {
		return legacyConsume(context.Background(), s, r, res, 0)
	}
	cases := []struct {
		name   string
		read   func(io.Reader, *Result) error
		reader func() io.Reader
	}{
		{"coalesced", consume, func() io.Reader { return strings.NewReader(plain) }},
		{"per-read", consume, func() io.Reader { return &eventReads{events: append([]string(nil), plainEvents...)} }},
		{"continuous-usage", consume, func() io.Reader { return &eventReads{events: append([]string(nil), contEvents...)} }},
		{"legacy/coalesced", legacy, func() io.Reader { return strings.NewReader(plain) }},
		{"legacy/per-read", legacy, func() io.Reader { return &eventReads{events: append([]string(nil), plainEvents...)} }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(plain)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			n := 0
			for b.Loop() {
				b.StopTimer()
				r := c.reader()
				res := &Result{Start: time.Now(), Arrivals: make([]time.Duration, 0, recordedEvents+2)}
				b.StartTimer()
				if err := c.read(r, res); err != nil || res.Events != recordedEvents || res.ContentChunks != recordedEvents-4 {
					b.Fatalf("err %v, %d events, %d content chunks", err, res.Events, res.ContentChunks)
				}
				res.Release()
				n++
			}
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			events := float64(n * recordedEvents)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/events, "ns/event")
			// The reader and the Result (built outside the timer, as Stream builds one Result
			// per request) allocate too: measured apart, the per-event path is what is left.
			setupAllocs, setupBytes := setupCost(c.reader)
			b.ReportMetric((float64(after.Mallocs-before.Mallocs)-setupAllocs*float64(n))/events, "allocs/event")
			b.ReportMetric((float64(after.TotalAlloc-before.TotalAlloc)-setupBytes*float64(n))/events, "B/event")
			b.ReportMetric(events/elapsed.Seconds(), "events/s")
		})
	}
}

// setupCost is what building one reader and one Result allocates.
func setupCost(reader func() io.Reader) (allocs, bytes float64) {
	var before, after runtime.MemStats
	const n = 100
	keep := make([]any, 0, 2*n)
	runtime.ReadMemStats(&before)
	for range n {
		keep = append(keep, reader(), &Result{Start: time.Now(), Arrivals: make([]time.Duration, 0, recordedEvents+2)})
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	return float64(after.Mallocs-before.Mallocs) / n, float64(after.TotalAlloc-before.TotalAlloc) / n
}

// TestStreamEventAllocations: reading a stream allocates nothing per event, and per stream
// only what its Result keeps; the rest (event reader, stamping reader, decoder, watchdog,
// capture) is recycled.
func TestStreamEventAllocations(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation count")
	}
	_, events := recordStream(true)
	s := &settings{timeout: time.Hour, stall: time.Hour, maxEvent: DefaultMaxEventSize}
	var r eventReads
	copies := make([]string, len(events))
	res := &Result{Arrivals: make([]time.Duration, 0, recordedEvents+2)}
	allocs := testing.AllocsPerRun(20, func() {
		copy(copies, events)
		r = eventReads{events: copies}
		*res = Result{Start: time.Now(), Arrivals: res.Arrivals[:0]}
		if err := s.consume(context.Background(), &r, res, 0, 0, func() {}, nil, APIChat); err != nil {
			t.Fatal(err)
		}
		res.Release()
	})
	// One per stream: the per-chunk token log, which a stream with usage in every chunk
	// (this one) keeps in its Result.
	if allocs > 1 {
		t.Errorf("%.0f allocations for a %d-event stream, want at most 1", allocs, recordedEvents)
	}
	t.Logf("%.0f allocations per %d-event stream", allocs, recordedEvents)
}

// TestEngineShapesDecodeOnTheFastPath: the recorded stream and every engine fixture never
// fall back to encoding/json, so the fast path is what runs against real engines.
func TestEngineShapesDecodeOnTheFastPath(t *testing.T) {
	t.Parallel()
	var bodies []string
	for _, continuous := range []bool{false, true} {
		body, _ := recordStream(continuous)
		bodies = append(bodies, body)
	}
	for _, body := range fixtureBodies(t) {
		bodies = append(bodies, body)
	}
	var ch wire.Chunk
	for _, body := range bodies {
		for _, line := range strings.Split(body, "\n") {
			data, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "data: ")
			if !ok || data == "[DONE]" {
				continue
			}
			if !ch.DecodeFast([]byte(data)) {
				t.Errorf("falls back to encoding/json: %s", data)
			}
		}
	}
}

// BenchmarkAppendBody64k encodes the body of a 64,000-token request (about 256 KB of the
// workload's code-like filler, a line break every 30 to 60 characters, a quoted string
// now and then): the client's cost per request before it is sent, paid again by every
// request of a burst.
func BenchmarkAppendBody64k(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 256<<10 {
		sb.WriteString("def helper(context, value):\n    return compute(context, value)  # routine specialist context\n")
		sb.WriteString("    log(\"value\", value)\n")
	}
	r := ChatRequest{Model: "bench-model", Prompt: sb.String(), MaxTokens: 64}
	buf := make([]byte, 0, 300<<10)
	b.SetBytes(int64(sb.Len()))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = r.AppendBody(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}
