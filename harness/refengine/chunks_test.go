package refengine

import (
	"encoding/json"
	"io"
	"testing"
)

func TestAppendJSONString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "code", ` code`, `a"b\c`, "tab\tnl\ncr\r\x00\x1f", "日本 é",
		"\u2028\u2029", "bad\xffutf8\xc3", "<&>"} {
		got := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("%q encodes to invalid JSON %s: %v", s, got, err)
			continue
		}
		if want := decodeStd(t, s); back != want {
			t.Errorf("%q round-trips to %q, want %q", s, back, want)
		}
		if bs := appendJSONString(nil, []byte(s)); string(bs) != string(got) {
			t.Errorf("[]byte and string encodings differ: %s vs %s", bs, got)
		}
	}
	if got := string(appendJSONString(nil, "<&>")); got != `"<&>"` {
		t.Errorf("HTML characters escaped: %s (vLLM does not)", got)
	}
}

// decodeStd is what encoding/json makes of s (invalid bytes become U+FFFD each).
func decodeStd(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back string
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"code", "\"\\\n", "\xff", "\u2028", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var back string
		if err := json.Unmarshal(appendJSONString(nil, s), &back); err != nil {
			t.Fatalf("invalid JSON for %q: %v", s, err)
		}
		if want := decodeStd(t, s); back != want {
			t.Fatalf("%q round-trips to %q, want %q", s, back, want)
		}
	})
}

func TestChunkEncoderLegacy(t *testing.T) {
	t.Parallel()
	e := newChunkEncoder("cmpl-3", "text_completion", "m", 7, true, false)
	got := string(content(e, " code", "length"))
	want := `data: {"id":"cmpl-3","object":"text_completion","created":7,"model":"m","choices":[{"index":0,"text":" code","logprobs":null,"finish_reason":"length"}]}` + "\n\n"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// BenchmarkEncodeStream1000 encodes and writes the chunks of a 1000-token stream.
func BenchmarkEncodeStream1000(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		e := newChunkEncoder("chatcmpl-12345", "chat.completion.chunk", DefaultModel, 1700000000, false, true)
		_, _ = io.Discard.Write(e.role(nil))
		for i := range 999 {
			tok := " code"
			if i == 0 {
				tok = "code"
			}
			_, _ = io.Discard.Write(content(e, tok, ""))
		}
		_, _ = io.Discard.Write(content(e, "", finishStop))
		_, _ = io.Discard.Write(e.usageChunk(usageCounts{prompt: 60000, completion: 1000, cached: -1, reasoning: -1}))
		_, _ = io.Discard.Write(doneEvent)
	}
}
