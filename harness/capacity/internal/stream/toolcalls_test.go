package stream

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Tool calls as engines stream them: the fragments of each call joined, whatever the
// engine's way of naming them, and the first fragment timed as output.
func TestToolCallsAreJoinedFromTheirFragments(t *testing.T) {
	t.Parallel()
	args := `{"words": "code code"}`
	for name, c := range map[string]struct {
		body  string
		calls []ToolCall
	}{
		// vLLM and SGLang: id, type and name first with empty arguments, then pieces, each
		// with its index; SGLang sends tool_calls null with text deltas.
		"vllm": {`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"chatcmpl-tool-1","type":"function","function":{"name":"record_words","arguments":""}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"words\": \""}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"content":null,"tool_calls":[{"index":0,"function":{"arguments":"code"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" code\"}"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n" + done,
			[]ToolCall{{Index: 0, ID: "chatcmpl-tool-1", Name: "record_words", Arguments: args}}},
		// Ollama: each call whole, in one chunk.
		"ollama": {`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_a","index":0,"type":"function","function":{"name":"record_words","arguments":"{\"words\":\"code code\"}"}}]},"finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"tool_calls"}]}` + "\n\n" + done,
			[]ToolCall{{Index: 0, ID: "call_a", Name: "record_words", Arguments: `{"words":"code code"}`}}},
		// No index: a new id starts a call, anything else continues the last.
		"no index": {`data: {"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"}"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"[]"}}]}}]}` + "\n\n" + done,
			[]ToolCall{{Index: 0, ID: "a", Name: "f", Arguments: "{}"}, {Index: 1, ID: "b", Name: "g", Arguments: "[]"}}},
		// Two calls interleaved by index.
		"two calls": {`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":"{\"a\""}},{"index":1,"id":"y","function":{"name":"g","arguments":"{"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"}"}},{"index":0,"function":{"arguments":":1}"}}]}}]}` + "\n\n" + done,
			[]ToolCall{{Index: 0, ID: "x", Name: "f", Arguments: `{"a":1}`}, {Index: 1, ID: "y", Name: "g", Arguments: "{}"}}},
	} {
		base := time.Now()
		s := &settings{timeout: time.Minute, stall: time.Minute, maxEvent: DefaultMaxEventSize, now: fakeClock(base)}
		res := &Result{Start: base}
		err := s.consume(context.Background(), strings.NewReader(c.body), res, 0, 0, nil, nil, APIChat)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.ToolCalls) != len(c.calls) {
			t.Fatalf("%s: calls %+v, want %+v", name, res.ToolCalls, c.calls)
		}
		for k, want := range c.calls {
			if res.ToolCalls[k] != want {
				t.Errorf("%s: call %d %+v, want %+v", name, k, res.ToolCalls[k], want)
			}
		}
		if !res.HasFirstToolCall || !res.HasFirstContent || res.FirstContent != res.FirstToolCall || res.FirstOutput != res.FirstToolCall ||
			res.ToolCallChunks == 0 || len(res.Arrivals) != res.ContentChunks {
			t.Errorf("%s: timing %+v", name, res)
		}
	}
}

// The arguments of every call together are capped like visible content.
func TestToolCallArgumentsAreCapped(t *testing.T) {
	t.Parallel()
	piece := strings.Repeat("é", 1000)
	var b strings.Builder
	for range 10 {
		b.WriteString(`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"` + piece + `"}}]}}]}` + "\n\n")
	}
	b.WriteString(done)
	s := &settings{timeout: time.Minute, stall: time.Minute, maxEvent: DefaultMaxEventSize, now: time.Now}
	res := &Result{Start: time.Now()}
	if err := s.consume(context.Background(), strings.NewReader(b.String()), res, 0, 0, nil, nil, APIChat); err != nil {
		t.Fatal(err)
	}
	if c := res.ToolCalls[0]; !c.ArgumentsTruncated || len([]rune(c.Arguments)) != CaptureLimit {
		t.Errorf("arguments of %d characters, truncated %v", len([]rune(c.Arguments)), c.ArgumentsTruncated)
	}
}
