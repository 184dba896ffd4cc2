package stream

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serveFixture replays a recorded stream, one event per write with a short gap, so each
// event arrives in its own read.
func serveFixture(t *testing.T, name string) *httptest.Server {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "testdata", "streams", name))
	if err != nil {
		t.Fatal(err)
	}
	sep := "\n\n"
	if strings.Contains(string(raw), "\r\n\r\n") {
		sep = "\r\n\r\n"
	}
	events := strings.SplitAfter(string(raw), sep)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			_, _ = w.Write([]byte(e))
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// TestEngineStreams replays streams in the documented formats of real engines.
func TestEngineStreams(t *testing.T) {
	t.Parallel()
	type want struct {
		content                  string
		contentChunks, reasoning int
		completionTokens         int // -1: no usage
		cachedTokens             int // -1: not reported
		terminal                 bool
		finish                   string
		perChunkTokens           bool
		model                    string // as the engine named it, not as requested
	}
	four := "code code code code"
	cases := map[string]want{
		"vllm-chat.sse":        {four, 4, 0, 5, -1, true, "stop", false, "qwen3-8b"},
		"vllm-reasoning.sse":   {four, 4, 3, 8, -1, true, "stop", true, "qwen3-8b"},
		"vllm-completions.sse": {four, 4, 0, 4, -1, true, "length", false, "qwen3-8b"},
		"sglang-chat.sse":      {four, 4, 1, 6, 32, true, "stop", false, "default"},
		"llamacpp-chat.sse":    {four, 2, 0, 5, -1, true, "stop", false, "gpt-3.5-turbo"},
		"ollama-chat.sse":      {four, 4, 0, -1, -1, true, "stop", false, "llama3.2"},
		"tgi-chat.sse":         {four, 4, 0, 4, -1, true, "length", false, "meta-llama/Llama-3.1-8B-Instruct"},
		"openai-chat.sse":      {four, 4, 0, 5, 0, true, "stop", false, "gpt-4o-mini-2024-07-18"},
	}
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, err := stream(t, client(serveFixture(t, name)))
			if err != nil {
				t.Fatal(err)
			}
			if res.Content != w.content || res.ContentChunks != w.contentChunks || res.ReasoningChunks != w.reasoning {
				t.Errorf("content %q in %d chunks, %d reasoning; want %q in %d, %d", res.Content, res.ContentChunks, res.ReasoningChunks, w.content, w.contentChunks, w.reasoning)
			}
			switch {
			case w.completionTokens < 0 && res.Usage != nil:
				t.Errorf("usage %+v, want none", res.Usage)
			case w.completionTokens >= 0 && (res.Usage == nil || *res.Usage.CompletionTokens != w.completionTokens):
				t.Errorf("usage %+v, want %d completion tokens", res.Usage, w.completionTokens)
			}
			if w.cachedTokens >= 0 && (res.Usage == nil || res.Usage.CachedTokens == nil || *res.Usage.CachedTokens != w.cachedTokens) {
				t.Errorf("cached tokens: %+v, want %d", res.Usage, w.cachedTokens)
			}
			if res.Terminal != w.terminal || len(res.FinishReasons) != 1 || res.FinishReasons[0] != w.finish {
				t.Errorf("terminal %v finish %v", res.Terminal, res.FinishReasons)
			}
			if (res.ArrivalTokens != nil) != w.perChunkTokens || (w.perChunkTokens && len(res.ArrivalTokens) != len(res.Arrivals)) {
				t.Errorf("per-chunk tokens %v for %d arrivals", res.ArrivalTokens, len(res.Arrivals))
			}
			if res.Model != w.model {
				t.Errorf("model %q, want %q", res.Model, w.model)
			}
			if w.reasoning > 0 && !(res.FirstOutput < res.FirstContent) {
				t.Errorf("first output %v must precede first content %v", res.FirstOutput, res.FirstContent)
			}
		})
	}
}
