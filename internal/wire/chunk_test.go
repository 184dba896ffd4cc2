package wire

import "testing"

// The scanner against encoding/json on the chunks engines send most: a content delta, and
// the last chunk with usage. It is kept because it is faster and allocates nothing.
func BenchmarkChunkDecode(b *testing.B) {
	for name, data := range map[string][]byte{
		"delta": []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" code"},"logprobs":null,"finish_reason":null}]}`),
		"usage": []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":4000,"completion_tokens":33,"total_tokens":4033,"prompt_tokens_details":{"cached_tokens":0}}}`),
	} {
		b.Run(name+"/scanner", func(b *testing.B) {
			var c Chunk
			b.ReportAllocs()
			for b.Loop() {
				if !c.DecodeFast(data) {
					b.Fatal("not on the fast path")
				}
			}
		})
		b.Run(name+"/encoding-json", func(b *testing.B) {
			var c Chunk
			b.ReportAllocs()
			for b.Loop() {
				if err := c.DecodeJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Decode takes the scanner's way when it can and encoding/json's otherwise, with the same
// values either way.
func TestDecodeFallsBackToEncodingJSON(t *testing.T) {
	t.Parallel()
	var c Chunk
	if err := c.Decode([]byte(`{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}],"usage":{"completion_tokens":3}}`)); err != nil {
		t.Fatal(err)
	}
	if len(c.Choices) != 1 || c.Choices[0].Delta.Content != "a" || *c.Choices[0].FinishReason != "stop" || *c.Usage.CompletionTokens != 3 {
		t.Fatalf("%+v", c)
	}
	// A case-insensitive key is encoding/json's to decide.
	if err := c.Decode([]byte(`{"Choices":[{"delta":{"content":"b"}}]}`)); err != nil || c.Choices[0].Delta.Content != "b" {
		t.Fatalf("%+v %v", c, err)
	}
	if err := c.Decode([]byte(`{"choices":`)); err == nil {
		t.Fatal("a truncated chunk decoded")
	}
}

// The model a chunk names is kept when it is a string; any other value leaves it empty
// without failing the chunk, on either path.
func TestModelIsReadLeniently(t *testing.T) {
	t.Parallel()
	for data, want := range map[string]Name{
		`{"model":"llama-3","choices":[]}`:         "llama-3",
		`{"model":"a\u00e9","choices":[]}`:         "aé",
		`{"model":null,"choices":[]}`:              "",
		`{"model":7,"choices":[]}`:                 "",
		`{"model":{"id":"x"},"choices":[]}`:        "",
		`{"model":["x"],"choices":[{"delta":{}}]}`: "",
	} {
		var fast, slow Chunk
		fast.Model, slow.Model = "old", "old"
		if !fast.DecodeFast([]byte(data)) {
			t.Errorf("%s: not on the fast path", data)
		}
		if err := slow.DecodeJSON([]byte(data)); err != nil {
			t.Errorf("%s: %v", data, err)
		}
		if fast.Model != want || slow.Model != want {
			t.Errorf("%s: model %q (fast), %q (encoding/json), want %q", data, fast.Model, slow.Model, want)
		}
	}
}
