package stream

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// typedFixture reports whether a recorded stream is of an API of its own grammar (the
// Responses or Messages API, Ollama's native lines), not chat's chunks.
func typedFixture(name string) bool {
	return strings.Contains(name, "-responses") || strings.Contains(name, "-messages") || strings.HasSuffix(name, ".ndjson")
}

// consumeAs reads body as a stream of api, in reads of the given sizes, on the fast path
// or with encoding/json alone.
func consumeAs(api API, body string, sizes []int, jsonOnly bool) (*Result, error) {
	base := time.Now()
	s := &settings{timeout: time.Minute, stall: time.Minute, maxEvent: DefaultMaxEventSize, now: fakeClock(base), jsonOnly: jsonOnly}
	res := &Result{Start: base, Arrivals: make([]time.Duration, 0, 8)}
	err := s.consume(context.Background(), &patternReader{data: []byte(body), sizes: sizes}, res, 0, 0, nil, nil, api)
	return res, err
}

// Ollama's Responses, Messages and native streams, as recorded: every text delta an
// arrival, the usage of the ending event (Messages: the input tokens of message_delta, not
// message_start's estimate; native: prompt_eval_count and eval_count), the model, and the
// ending event as [DONE]; the scanner and encoding/json agree whatever the read boundaries.
func TestTypedFixtures(t *testing.T) {
	for _, c := range []struct {
		file                       string
		api                        API
		chunks, prompt, completion int
		finish                     string
	}{
		{"ollama-responses.sse", APIResponses, 6, 21, 6, "stop"},
		{"ollama-messages.sse", APIMessages, 6, 21, 6, "length"},
		{"ollama-native.ndjson", APIOllama, 8, 11, 8, "length"},
	} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "testdata", "streams", c.file))
		if err != nil {
			t.Fatal(err)
		}
		for name, sizes := range readPatterns {
			res, err := consumeAs(c.api, string(raw), sizes, false)
			if err != nil {
				t.Fatalf("%s (%s): %v", c.file, name, err)
			}
			slow, err := consumeAs(c.api, string(raw), sizes, true)
			if a, b := describe(res, nil), describe(slow, err); a != b {
				t.Fatalf("%s (%s): the scanner and encoding/json differ\nfast:\n%s\njson:\n%s", c.file, name, a, b)
			}
			if !res.Terminal || res.ContentChunks != c.chunks || len(res.Arrivals) != c.chunks || res.Model != "tiny-llama-fast" ||
				res.Usage == nil || *res.Usage.PromptTokens != c.prompt || *res.Usage.CompletionTokens != c.completion ||
				len(res.FinishReasons) != 1 || res.FinishReasons[0] != c.finish || res.Content == "" {
				t.Fatalf("%s (%s):\n%s", c.file, name, describe(res, nil))
			}
			// Only the native API reports the engine's phases: 650.9 ms loading the model,
			// 28.8 ms of prompt evaluation, 21.1 ms generating, 704.5 ms in all.
			if p := res.Phases; (c.api == APIOllama) != (p != nil) || (p != nil && *p != (Phases{Source: PhasesOllama, Queue: -1, Load: 650928225, PromptEval: 28806774, Eval: 21111002, FirstToken: -1, Total: 704548535})) {
				t.Fatalf("%s (%s): phases %+v", c.file, name, p)
			}
		}
	}
}

// typedStream is a Responses, Messages or Ollama native stream of words text deltas, as the engines
// send them: the opening events, one delta a word, the ending events with usage.
func typedStream(api API, words int) []string {
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	var out []string
	if api == APIOllama {
		for range words {
			out = append(out, `{"model":"m","created_at":"2026-12-06T23:27:59.231878333Z","message":{"role":"assistant","content":" code"},"done":false}`+"\n")
		}
		return append(out, `{"model":"m","created_at":"2026-12-06T23:27:59.253254715Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":7,"load_duration":1,"prompt_eval_count":4096,"prompt_eval_duration":2,"eval_count":`+strconv.Itoa(words)+`,"eval_duration":3}`+"\n")
	}
	if api == APIResponses {
		out = append(out, ev("response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","model":"m","status":"in_progress","usage":null}}`),
			ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}}`))
		for i := range words {
			out = append(out, ev("response.output_text.delta", `{"content_index":0,"delta":" code","item_id":"msg_1","logprobs":[],"output_index":0,"sequence_number":`+strconv.Itoa(i+2)+`,"type":"response.output_text.delta"}`))
		}
		return append(out, ev("response.completed", `{"type":"response.completed","response":{"id":"resp_1","model":"m","status":"completed","usage":{"input_tokens":4096,"input_tokens_details":{"cached_tokens":0},"output_tokens":`+strconv.Itoa(words)+`,"total_tokens":1}}}`))
	}
	out = append(out, ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":4096,"output_tokens":0}}}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	for range words {
		out = append(out, ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" code"}}`))
	}
	return append(out, ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":`+strconv.Itoa(words)+`}}`),
		ev("message_stop", `{"type":"message_stop"}`))
}

// Reading a Responses, Messages or Ollama native stream allocates nothing per event: a stream of 2,000
// deltas costs what one of 1,000 costs (what its opening and ending events decode with
// encoding/json), however many deltas it carries.
func TestTypedStreamAllocations(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation count")
	}
	s := &settings{timeout: time.Hour, stall: time.Hour, maxEvent: DefaultMaxEventSize}
	allocations := func(api API, words int) float64 {
		events := typedStream(api, words)
		copies := make([]string, len(events))
		res := &Result{Arrivals: make([]time.Duration, 0, words+2)}
		var r eventReads
		return testing.AllocsPerRun(20, func() {
			copy(copies, events)
			r = eventReads{events: copies}
			*res = Result{Start: time.Now(), Arrivals: res.Arrivals[:0]}
			if err := s.consume(context.Background(), &r, res, 0, 0, func() {}, nil, api); err != nil {
				t.Fatal(err)
			}
			if res.ContentChunks != words || !res.Terminal {
				t.Fatalf("%s: %d content chunks, terminal %v", api, res.ContentChunks, res.Terminal)
			}
			res.Release()
		})
	}
	for _, api := range []API{APIResponses, APIMessages, APIOllama} {
		short, long := allocations(api, recordedEvents), allocations(api, 2*recordedEvents)
		if long > short+1 {
			t.Errorf("%s: %.0f allocations for %d deltas, %.0f for %d: the deltas allocate", api, short, recordedEvents, long, 2*recordedEvents)
		}
		t.Logf("%s: %.0f allocations for %d deltas, %.0f for %d", api, short, recordedEvents, long, 2*recordedEvents)
	}
}
