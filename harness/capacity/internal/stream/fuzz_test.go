package stream

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// chunkSeeds are chunk shapes the hand-rolled scanner must get exactly right or hand over
// to encoding/json.
var chunkSeeds = []string{
	`{"model":"m","choices":[{"delta":{"content":"a"}}]}`,
	`{"model":"m\u00e9\n","choices":[]}`,
	`{"model":null,"choices":[]}`,
	`{"model":7,"choices":[]}`,
	`{"model":{"id":"m"},"choices":[]}`,
	`{"model":"a","model":"b"}`,
	`{"Model":"c"}`,
	`{"error":{"message":"x"}}`,
	`{"object":"error","message":"y"}`,
	`{"object":"error","message":"y\n\u00e9"}`,
	`{"error":"null"}`,
	`{"error":null}`,
	`{"error":  { "message" : "spaced" } }`,
	`{"choices":[{"delta":{"content":"\ud800"}}]}`,
	`{"choices":[{"delta":{"content":"\ud83d\ude00\ud800\u0041\udc00x"}}]}`,
	`{"choices":[{"delta":{"content":"a\"b\\c\/d\n\t\r\b\f"}}]}`,
	`{"choices":[{"delta":{"content":"\'"}}]}`,
	`{"choices":[{"delta":{"content":"\x"}}]}`,
	`{"choices":[{"delta":{"content":"\u12"}}]}`,
	"{\"choices\":[{\"delta\":{\"content\":\"tab\there\"}}]}",
	"{\"choices\":[{\"delta\":{\"content\":\"bad\xff\"}}]}",
	"{\"choices\":[{\"delta\":{\"content\":\"esc\\n bad\xff\"}}]}",
	"{\"x\":\"bad\xff\",\"choices\":[{\"text\":\"ok\"}]}",
	`{"Choices":[{"delta":{"content":"x"}}]}`,
	`{"choices":[{"Delta":{"content":"x"}}]}`,
	`{"choices":[{"delta":{"Content":"x","content":"y"}}]}`,
	`{"choices":[{"delta":{"content":"x"},"delta":{"content":"y"}}]}`,
	`{"choices":[{"finish_reason":"stop","FINISH_REASON":null}]}`,
	`{"usage":{"Prompt_Tokens":3}}`,
	`{"usage":{"prompt_tokens":3,"prompt_tokens":4}}`,
	`{"usage":{"prompt_tokens_details":{"CACHED_TOKENS":1}}}`,
	`{"usage":{"prompt_tokens":01}}`,
	`{"usage":{"prompt_tokens":-0}}`,
	`{"usage":{"prompt_tokens":-}}`,
	`{"usage":{"prompt_tokens":1.5}}`,
	`{"usage":{"prompt_tokens":1e3}}`,
	`{"usage":{"prompt_tokens":123456789012345678}}`,
	`{"usage":{"prompt_tokens":1234567890123456789}}`,
	`{"usage":{"prompt_tokens":"5"}}`,
	`{"usage":{}}`,
	`{"usage":{"prompt_tokens_details":{}}}`,
	`{"usage":{"prompt_tokens_details":null,"completion_tokens":null}}`,
	`{"usage":[]}`,
	`{"choices":{}}`,
	`{"choices":[1]}`,
	`{"choices":[null,{}]}`,
	`{"choices":[{"delta":[]}]}`,
	`{"choices":[{"text":5}]}`,
	`{"choices":[{"finish_reason":1}]}`,
	`{"object":5}`,
	`{"message":true}`,
	`{"choices":[{"delta":{"content":"x","tool_calls":null}}]}`,
	`{"choices":[{"delta":{"tool_calls":[]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"record_words","arguments":""}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{"words": "code"}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"f","arguments":"{}"}},{"function":{"name":"g","arguments":"{}"}}]}}]}`,
	`{"choices":[{"delta":{"Tool_Calls":null}}]}`,
	`{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"},"finish_reason":"stop"},{"finish_reason":"length"}]}`,
	`{"choices":[],}`,
	`{"choices":[],"x":[1,2,]}`,
	`{"x":{"a":1,}}`,
	`{"x":01}`,
	`{"x":1.}`,
	`{"x":.5}`,
	`{"x":-}`,
	`{"x":1e}`,
	`{"x":1E+5,"y":-0.0e-0}`,
	`{"x":tru}`,
	`{"x":nul}`,
	`{"x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],"choices":[{"text":"deep"}]}`,
	`{"x":"\u0041\"","choices":[{"text":"k"}]}`,
	`{"\u0063hoices":[{"text":"escaped key"}]}`,
	`{"choiceſ":[{"text":"folded key"}]}`,
	`{"ſ":1}`,
	` {"choices":[]} `,
	`{"choices":[]} {}`,
	`{"choices":[]}x`,
	`null`,
	`[]`,
	`"s"`,
	``,
	`{`,
	`{"choices":`,
	`{"choices":[{"delta":{"content":"unterminated`,
}

// FuzzChunk feeds arbitrary event data through the chunk decoder and the result's
// bookkeeping: whatever a server sends, parsing must not panic, the capture must stay
// within its cap, and the counts must stay consistent. The hand-rolled fast path must
// agree with encoding/json: when it accepts an input, encoding/json accepts it too and every
// observation (the chunk's fields, its error message, the Result it makes) is the same.
func FuzzChunk(f *testing.F) {
	for _, name := range []string{"vllm-chat.sse", "sglang-chat.sse", "llamacpp-chat.sse", "vllm-reasoning.sse", "openai-chat.sse", "tgi-chat.sse", "ollama-chat.sse", "vllm-completions.sse"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "testdata", "streams", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "data: "); ok {
				f.Add(data)
			}
		}
	}
	for _, s := range chunkSeeds {
		f.Add(s)
	}
	f.Add(`{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":40,"completion_tokens_details":{"reasoning_tokens":31,"accepted_prediction_tokens":0}}}`)
	f.Add(`{"choices":[],"usage":{"completion_tokens_details":null,"Completion_Tokens_Details":{}}}`)
	f.Fuzz(func(t *testing.T, data string) {
		compareFastAndJSON(t, data)
		var ch wire.Chunk
		res := &Result{}
		for k := range 3 {
			if err := ch.Decode([]byte(data)); err != nil {
				return
			}
			_, _ = chunkError(&ch)
			res.observe(&ch, time.Duration(k))
		}
		if n := utf8.RuneCountInString(res.Content); n > CaptureLimit {
			t.Fatalf("captured %d characters", n)
		}
		if len(res.Arrivals) > res.ContentChunks+res.ReasoningChunks {
			t.Fatalf("%d arrivals for %d content and %d reasoning chunks", len(res.Arrivals), res.ContentChunks, res.ReasoningChunks)
		}
		if res.ArrivalTokens != nil && len(res.ArrivalTokens) != len(res.Arrivals) {
			t.Fatalf("%d token counts for %d arrivals", len(res.ArrivalTokens), len(res.Arrivals))
		}
	})
}

// compareFastAndJSON decodes data both ways, each into a chunk that held another event
// before (reuse must leave nothing behind), and compares what they give.
func compareFastAndJSON(t *testing.T, data string) {
	t.Helper()
	const before = `{"id":"x","choices":[{"delta":{"content":"old","reasoning":"old"},"text":"old","finish_reason":"stop"},{"text":"old2"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":5}},"error":{"message":"old"},"object":"error","message":"old","model":"old"}`
	var fast, slow wire.Chunk
	if !fast.DecodeFast([]byte(before)) || slow.DecodeJSON([]byte(before)) != nil {
		t.Fatal("the warm-up chunk must decode both ways")
	}
	raw := []byte(data) // the fast path's strings are views of it
	fastOK := fast.DecodeFast(raw)
	jsonErr := slow.DecodeJSON([]byte(data))
	if !fastOK {
		return // encoding/json decides
	}
	if jsonErr != nil {
		t.Fatalf("the fast path accepted %q, encoding/json rejects it: %v", data, jsonErr)
	}
	if a, b := dumpChunk(&fast), dumpChunk(&slow); a != b {
		t.Fatalf("%q decodes differently\nfast: %s\njson: %s", data, a, b)
	}
	fm, fok := chunkError(&fast)
	jm, jok := chunkError(&slow)
	if fm != jm || fok != jok {
		t.Fatalf("%q: error message %q %v (fast), %q %v (json)", data, fm, fok, jm, jok)
	}
	var fr, jr Result
	for k := range 2 {
		fr.observe(&fast, time.Duration(k))
		jr.observe(&slow, time.Duration(k))
	}
	if a, b := describe(&fr, nil), describe(&jr, nil); a != b {
		t.Fatalf("%q observed differently\nfast:\n%s\njson:\n%s", data, a, b)
	}
}

// dumpChunk renders a chunk's meaning: a null error is no error, as errorMessage reads it.
func dumpChunk(c *wire.Chunk) string {
	var b strings.Builder
	ptr := func(p *int) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		fin := "nil"
		if ch.FinishReason != nil {
			fin = fmt.Sprintf("%q", *ch.FinishReason)
		}
		fmt.Fprintf(&b, "choice %d: content %q reasoning_content %q reasoning %q text %q finish %s tool calls %d\n",
			i, ch.Delta.Content, ch.Delta.ReasoningContent, ch.Delta.Reasoning, ch.Text, fin, len(ch.Delta.ToolCalls))
	}
	if u := c.Usage; u != nil {
		fmt.Fprintf(&b, "usage %s %s %s", ptr(u.PromptTokens), ptr(u.CompletionTokens), ptr(u.TotalTokens))
		if u.PromptTokensDetails != nil {
			fmt.Fprintf(&b, " details %s", ptr(u.PromptTokensDetails.CachedTokens))
		}
		if u.CompletionTokensDetails != nil {
			fmt.Fprintf(&b, " completion details %s", ptr(u.CompletionTokensDetails.ReasoningTokens))
		}
		b.WriteString("\n")
	}
	errRaw := string(c.Error)
	if errRaw == "null" {
		errRaw = ""
	}
	fmt.Fprintf(&b, "error %q object %q message %q model %q\n", errRaw, c.Object, c.Message, c.Model)
	return b.String()
}
