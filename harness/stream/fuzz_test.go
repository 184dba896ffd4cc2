package stream

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzChunk feeds arbitrary event data through the chunk decoder and the result's
// bookkeeping: whatever a server sends, parsing must not panic, the capture must stay
// within its cap, and the counts must stay consistent.
func FuzzChunk(f *testing.F) {
	for _, name := range []string{"vllm-chat.sse", "sglang-chat.sse", "llamacpp-chat.sse", "vllm-reasoning.sse"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "streams", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				f.Add(data)
			}
		}
	}
	f.Add(`{"error":{"message":"x"}}`)
	f.Add(`{"object":"error","message":"y"}`)
	f.Add(`{"choices":[{"delta":{"content":"\ud800"}}]}`)
	f.Fuzz(func(t *testing.T, data string) {
		var ch chunk
		res := &Result{}
		for k := range 3 {
			if err := ch.decode(data); err != nil {
				return
			}
			_, _ = ch.errorMessage()
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
