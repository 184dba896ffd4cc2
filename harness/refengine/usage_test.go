package refengine

import (
	"context"
	"io"
	"strings"
	"testing"
)

func TestContinuousUsage(t *testing.T) {
	t.Parallel()
	s := start(t, Options{PrefillOverhead: 1000, ITL: 1000, TokensPerChunk: 4, ThinkByDefault: true, ReasoningTokens: 4})
	for _, include := range []bool{true, false} {
		body := chatBody(10, true, false, map[string]any{
			"stream_options": map[string]any{"include_usage": include, "continuous_usage_stats": true}})
		got := stream(t, s, body)
		// 4 reasoning + 10 words + EOS = 15 tokens: chunks end at 4, 8, 12, 15.
		want := []int{4, 8, 12, 15}
		if len(got.chunkUsage) != len(want) {
			t.Fatalf("include_usage %v: %d token chunks, want %d", include, len(got.chunkUsage), len(want))
		}
		for k, u := range got.chunkUsage {
			if u == nil || u.CompletionTokens != want[k] || u.TotalTokens != u.PromptTokens+want[k] || u.PromptTokens == 0 {
				t.Errorf("include_usage %v: chunk %d usage %+v, want %d completion tokens", include, k, u, want[k])
			}
		}
		if r := got.chunkUsage[0].CompletionTokensDetails; r == nil || r.ReasoningTokens != 4 {
			t.Errorf("reasoning details %+v", r)
		}
		if got.roleUsage == nil || got.roleUsage.CompletionTokens != 0 {
			t.Errorf("role chunk usage %+v, want 0 completion tokens", got.roleUsage)
		}
		if (got.usage != nil) != include || !got.done {
			t.Errorf("include_usage %v: final usage %+v", include, got.usage)
		}
	}
}

func TestIncludeUsageFalse(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	body := chatBody(3, true, false, map[string]any{"stream_options": map[string]any{"include_usage": false}})
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", body)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || strings.Contains(string(raw), "usage") || !strings.HasSuffix(string(raw), "data: [DONE]\n\n") {
		t.Errorf("include_usage false: %v\n%s", err, raw)
	}
}

func TestEncoderUsageBytes(t *testing.T) {
	t.Parallel()
	e := newChunkEncoder("chatcmpl-1", "chat.completion.chunk", "m", 7, false, true)
	e.setReasoningField(string(reasoningField))
	u := usageCounts{prompt: 10, completion: 3, cached: 16, reasoning: 2}
	got := string(delta(e, true, "Hm", "", "", &u))
	want := `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"m","choices":[` +
		`{"index":0,"delta":{"reasoning":"Hm"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":10,` +
		`"total_tokens":13,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":16},` +
		`"completion_tokens_details":{"reasoning_tokens":2}}}` + "\n\n"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	got = string(delta(e, false, "a\"", "\xff\xfe", "stop", nil))
	want = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"m","choices":[` +
		`{"index":0,"delta":{"content":"a\"` + "\xff\xfe" + `"},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
