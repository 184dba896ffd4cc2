package refengine

import (
	"io"
	"testing"
)

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
