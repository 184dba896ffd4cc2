package wire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// eventSeeds are the events of the recorded streams of an API, and shapes they leave out.
func eventSeeds(f *testing.F, file string, extra ...string) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "streams", file))
	if err != nil {
		f.Fatal(err)
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "data: "); ok {
			f.Add(data)
		}
	}
	for _, s := range extra {
		f.Add(s)
	}
}

// sameMeaning compares what two decoded values say: json.Marshal of their exported fields.
func sameMeaning(t *testing.T, data string, fast, slow any) {
	t.Helper()
	a, err := json.Marshal(fast)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(slow)
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Fatalf("%q decodes differently\nfast: %s\njson: %s", data, a, b)
	}
}

// FuzzResponsesEvent: when the scanner takes a Responses API event, encoding/json takes it
// too and gives the same values, whatever event the value held before.
func FuzzResponsesEvent(f *testing.F) {
	eventSeeds(f, "ollama-responses.sse",
		`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{\"wor\u00e9ds\":"}`,
		`{"type":"response.reasoning_text.delta","delta":"hm","output_index":0,"Delta":"x"}`,
		`{"type":null,"delta":null,"output_index":null}`, `{"type":"a","type":"b"}`, `{"output_index":1.5}`,
		`{"type":"error","code":"server_error","message":"boom"}`)
	f.Fuzz(func(t *testing.T, data string) {
		fastAgreesWithJSON[ResponsesEvent](t, data,
			`{"type":"response.completed","delta":"old","output_index":3,"response":{"model":"old","usage":{"input_tokens":1}},"item":{"type":"x"},"message":"old"}`,
			`{"type":"old","delta":"old","output_index":2}`)
	})
}

// FuzzMessagesEvent: the same for the Messages API's events.
func FuzzMessagesEvent(f *testing.F) {
	eventSeeds(f, "ollama-messages.sse",
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm \ud83d\ude00"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"x"}}`,
		`{"type":"ping"}`, `{"type":"content_block_stop","index":0}`, `{"delta":null}`, `{"delta":{"Text":"x"}}`,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	f.Fuzz(func(t *testing.T, data string) {
		fastAgreesWithJSON[MessagesEvent](t, data,
			`{"type":"message_delta","index":3,"delta":{"type":"x","text":"old","stop_reason":"end_turn"},"usage":{"output_tokens":4},"message":{"model":"old"},"content_block":{"type":"text"},"error":{}}`,
			`{"type":"old","index":2,"delta":{"type":"text_delta","text":"old"}}`)
	})
}

// fastAgreesWithJSON is a typed event's fuzz body: two events warmed with other contents
// (one by encoding/json, one by the scanner, so a field either leaves stale shows), then
// whatever the scanner takes encoding/json must take too, meaning the same.
func fastAgreesWithJSON[E any, P interface {
	*E
	DecodeJSON([]byte) error
	DecodeFast([]byte) bool
}](t *testing.T, data, warmJSON, warmFast string) {
	var fast, slow E
	if err := P(&fast).DecodeJSON([]byte(warmJSON)); err != nil || !P(&slow).DecodeFast([]byte(warmFast)) {
		t.Fatal("the warm-up events must decode")
	}
	if !P(&fast).DecodeFast([]byte(data)) {
		return
	}
	if err := P(&slow).DecodeJSON([]byte(data)); err != nil {
		t.Fatalf("the fast path took %q, encoding/json refuses it: %v", data, err)
	}
	sameMeaning(t, data, &fast, &slow)
}

// The per-token events of both APIs take the scanner's way and allocate nothing.
func TestTypedEventsDecodeWithoutAllocating(t *testing.T) {
	rev := []byte(`{"content_index":0,"delta":" bytes","item_id":"msg_445483","logprobs":[],"output_index":0,"sequence_number":4,"type":"response.output_text.delta"}`)
	mev := []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" sub\nnormal"}}`)
	var r ResponsesEvent
	var m MessagesEvent
	r.Decode(rev)
	m.Decode(mev)
	if n := testing.AllocsPerRun(100, func() {
		if !r.DecodeFast(rev) || !m.DecodeFast(mev) {
			t.Fatal("not on the fast path")
		}
	}); n != 0 {
		t.Errorf("%v allocations per pair of events", n)
	}
	if r.Type != "response.output_text.delta" || r.Delta != " bytes" || *r.OutputIndex != 0 || m.Delta.Text != " sub\nnormal" || *m.Index != 0 {
		t.Errorf("decoded %+v and %+v", r, m)
	}
}

// FuzzOllamaLine: the same for the lines of Ollama's native chat stream.
func FuzzOllamaLine(f *testing.F) {
	for _, seed := range []string{
		`{"model":"tiny","created_at":"2026-12-06T23:40:00.1Z","message":{"role":"assistant","content":" sub"},"done":false}`,
		`{"model":"tiny","created_at":"x","message":{"role":"assistant","content":"","thinking":"hm \ud83d\ude00"},"done":false}`,
		`{"model":"tiny","created_at":"x","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":123,"load_duration":4,"prompt_eval_count":12,"prompt_eval_duration":50,"eval_count":8,"eval_duration":60}`,
		`{"model":"tiny","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"record","arguments":{"words":["a"]}}}]},"done":false}`,
		`{"error":"model 'x' not found"}`, `{"message":null,"done":false}`, `{"Model":"x"}`, `{"done":false,"done":false}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		fastAgreesWithJSON[OllamaLine](t, data,
			`{"model":"old","message":{"role":"x","content":"old","thinking":"old","tool_calls":[{"function":{"name":"f","arguments":{}}}]},"done":true,"done_reason":"stop","eval_count":3,"total_duration":9,"error":"x"}`,
			`{"model":"old","message":{"role":"assistant","content":"old"},"done":false}`)
	})
}

// A line of tokens takes the scanner's way and allocates nothing.
func TestOllamaLinesDecodeWithoutAllocating(t *testing.T) {
	line := []byte(`{"model":"tiny-llama-fast","created_at":"2026-12-06T23:40:00.123456Z","message":{"role":"assistant","content":" sub\nnormal"},"done":false}`)
	var l OllamaLine
	l.Decode(line)
	if n := testing.AllocsPerRun(100, func() {
		if !l.DecodeFast(line) {
			t.Fatal("not on the fast path")
		}
	}); n != 0 {
		t.Errorf("%v allocations a line", n)
	}
	if l.Model != "tiny-llama-fast" || l.Message.Content != " sub\nnormal" || l.Done {
		t.Errorf("decoded %+v", l)
	}
}
