package refengine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func fast() Options { return Options{PrefillOverhead: time.Millisecond, ITL: 200 * time.Microsecond} }

func TestStreamControlledOutput(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", chatBody(32, true, true, nil))
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	evs := readEvents(t, resp.Body)
	for _, ev := range evs[:len(evs)-2] {
		if !strings.HasSuffix(ev.data, `,"usage":null}`) {
			t.Errorf("chunk without \"usage\":null: %s", ev.data)
		}
	}
	got := summarize(t, evs)
	if got.role != 1 {
		t.Errorf("role chunks = %d, want 1", got.role)
	}
	if len(got.contents) != 33 {
		t.Fatalf("token chunks = %d, want 32 words + EOS", len(got.contents))
	}
	if text := strings.Join(got.contents, ""); text != codeWords(32) {
		t.Errorf("content = %q", text)
	}
	for i, c := range got.contents[:32] {
		if c == "" || got.finish[i] != "" {
			t.Errorf("chunk %d = %q finish %q", i, c, got.finish[i])
		}
	}
	if got.contents[32] != "" || got.finish[32] != "stop" {
		t.Errorf("EOS chunk = %q finish %q, want \"\" stop", got.contents[32], got.finish[32])
	}
	if got.usage == nil || got.usage.CompletionTokens != 33 ||
		got.usage.TotalTokens != got.usage.PromptTokens+33 || !got.usageLast || !got.done {
		t.Errorf("usage %+v last %v done %v", got.usage, got.usageLast, got.done)
	}
	tr := s.Traces()
	if len(tr) != 1 || tr[0].CompletionTokens != 33 || len(tr[0].ChunkTimes) != 33 ||
		tr[0].FinishReason != "stop" || !tr[0].Stream || tr[0].Status != 200 || tr[0].Cancelled {
		t.Errorf("trace %+v", tr)
	}
	if tr[0].PromptTokens != got.usage.PromptTokens {
		t.Errorf("trace prompt tokens %d, usage %d", tr[0].PromptTokens, got.usage.PromptTokens)
	}
}

// TestStreamBytes pins the exact vLLM byte layout of a short stream.
func TestStreamBytes(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", chatBody(1, true, true, nil))
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	tr := s.Traces()[0]
	head := `data: {"id":"chatcmpl-0","object":"chat.completion.chunk","created":` +
		itoa(tr.Arrived.Unix()) + `,"model":"anvil-reference","choices":[`
	p := itoa(int64(tr.PromptTokens))
	want := head + `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n" +
		head + `{"index":0,"delta":{"content":"code"},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n" +
		head + `{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n" +
		head + `],"usage":{"prompt_tokens":` + p + `,"total_tokens":` + itoa(int64(tr.PromptTokens+2)) +
		`,"completion_tokens":2,"prompt_tokens_details":null}}` + "\n\n" +
		"data: [DONE]\n\n"
	if string(raw) != want {
		t.Errorf("stream =\n%s\nwant\n%s", raw, want)
	}
}

func TestStreamWithoutUsage(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", chatBody(3, true, false, nil))
	defer resp.Body.Close()
	evs := readEvents(t, resp.Body)
	for _, ev := range evs {
		if strings.Contains(ev.data, "usage") {
			t.Errorf("usage in a stream without include_usage: %s", ev.data)
		}
	}
	got := summarize(t, evs)
	if got.usage != nil || !got.done || len(got.contents) != 4 {
		t.Errorf("summary %+v", got)
	}
}

func TestMaxTokensStopsWithLength(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	for _, key := range []string{"max_tokens", "max_completion_tokens"} {
		got := stream(t, s, chatBody(32, true, true, map[string]any{key: 10}))
		if len(got.contents) != 10 || strings.Join(got.contents, "") != codeWords(10) {
			t.Errorf("%s: contents %q", key, got.contents)
		}
		if got.finish[9] != "length" || got.usage.CompletionTokens != 10 {
			t.Errorf("%s: finish %q usage %+v", key, got.finish[9], got.usage)
		}
	}
	// Exactly enough room for the words and the EOS: a normal stop.
	got := stream(t, s, chatBody(32, true, true, map[string]any{"max_tokens": 33}))
	if got.finish[len(got.finish)-1] != "stop" || got.usage.CompletionTokens != 33 {
		t.Errorf("max_tokens 33: finish %q usage %+v", got.finish, got.usage)
	}
}

func TestMarker(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	body := chatBody(5, true, true, nil)
	body["messages"] = []map[string]any{{"role": "user", "content": "ctx\nBegin your reply with the marker ANVIL_REQ_-12_7 followed by a space. " + instruction(5, "code")}}
	got := stream(t, s, body)
	if text := strings.Join(got.contents, ""); text != "ANVIL_REQ_-12_7 code code code code code" {
		t.Errorf("content = %q", text)
	}
	if got.contents[0] != "ANVIL_REQ_-12_7" || got.usage.CompletionTokens != 7 {
		t.Errorf("first %q usage %+v", got.contents[0], got.usage)
	}
}

func TestDefaultReply(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	body := chatBody(0, true, true, nil)
	body["messages"] = []map[string]any{{"role": "user", "content": "Hi there"}}
	got := stream(t, s, body)
	if text := strings.Join(got.contents, ""); text != "Hello! This is the anvil reference engine speaking to you." {
		t.Errorf("content = %q", text)
	}
	if got.usage.CompletionTokens != 13 || got.finish[12] != "stop" {
		t.Errorf("usage %+v finish %q", got.usage, got.finish)
	}
}

func TestFaultWords(t *testing.T) {
	t.Parallel()
	s := start(t, Options{PrefillOverhead: time.Millisecond, ITL: 100 * time.Microsecond,
		Faults: Faults{ExtraWords: 2, MissingWords: 3}})
	got := stream(t, s, chatBody(10, true, true, nil))
	if text := strings.Join(got.contents, ""); text != codeWords(7)+" extra1 extra2" {
		t.Errorf("server faults: content = %q", text)
	}
	if got.usage.CompletionTokens != 10 {
		t.Errorf("usage %+v, want 7+2+EOS", got.usage)
	}
	// The header replaces the server's faults.
	got = stream(t, s, chatBody(10, true, true, nil), FaultsHeader, Faults{MissingWords: 1}.String())
	if text := strings.Join(got.contents, ""); text != codeWords(9) {
		t.Errorf("header faults: content = %q", text)
	}
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", chatBody(1, true, true, nil), FaultsHeader, "bogus=1")
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad faults header: status %d", resp.StatusCode)
	}
}

func TestTruncateAfter(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	got := stream(t, s, chatBody(32, true, true, nil), FaultsHeader, "truncate_after=5")
	if got.done || got.usage != nil || len(got.contents) != 5 {
		t.Errorf("summary %+v", got)
	}
	for _, f := range got.finish {
		if f != "" {
			t.Errorf("finish_reason %q in a truncated stream", f)
		}
	}
	tr := s.Traces()[0]
	if tr.FinishReason != "" || tr.CompletionTokens != 5 || tr.Cancelled || tr.Finished.IsZero() {
		t.Errorf("trace %+v", tr)
	}

	// Not streamed: a cut JSON body.
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", chatBody(32, false, false, nil), FaultsHeader, "truncate_after=5")
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var v any
	if resp.StatusCode != 200 || json.Unmarshal(raw, &v) == nil {
		t.Errorf("non-streamed truncation: status %d body %q", resp.StatusCode, raw)
	}
}

func TestTokensPerChunk(t *testing.T) {
	t.Parallel()
	s := start(t, Options{PrefillOverhead: time.Millisecond, ITL: 500 * time.Microsecond, TokensPerChunk: 4})
	got := stream(t, s, chatBody(32, true, true, nil))
	if len(got.contents) != 9 || got.contents[0] != "code code code code" ||
		got.contents[1] != " code code code code" || got.contents[8] != "" || got.finish[8] != "stop" {
		t.Errorf("32 words by 4: %q %q", got.contents, got.finish)
	}
	if got.usage.CompletionTokens != 33 || strings.Join(got.contents, "") != codeWords(32) {
		t.Errorf("usage %+v", got.usage)
	}
	// The EOS shares the last chunk when the count does not divide evenly.
	got = stream(t, s, chatBody(30, true, true, nil))
	if len(got.contents) != 8 || got.contents[7] != " code code" || got.finish[7] != "stop" {
		t.Errorf("30 words by 4: %q %q", got.contents, got.finish)
	}
	tr := s.Traces()
	if len(tr[0].ChunkTimes) != 9 {
		t.Fatalf("chunk times %d", len(tr[0].ChunkTimes))
	}
	// A chunk is written when its last token is produced, 4 steps after the previous one.
	// Load only delays a write (a late chunk is caught up on), so each chunk is checked
	// against the earliest it could be written: prefill, then 4 steps per chunk.
	ct := tr[0].ChunkTimes
	for k := range 8 {
		earliest := time.Millisecond + time.Duration(4*(k+1)-1)*500*time.Microsecond
		if at := ct[k].Sub(tr[0].Arrived); at < earliest-100*time.Microsecond {
			t.Errorf("chunk %d written %v after arrival, before its 4 tokens could be produced (%v)", k, at, earliest)
		}
	}
}

func TestNonStreamed(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", chatBody(4, false, false, nil))
	defer resp.Body.Close()
	var got struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage usageBody `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Object != "chat.completion" || got.ID != "chatcmpl-0" || len(got.Choices) != 1 ||
		got.Choices[0].Message.Content != "code code code code" || got.Choices[0].Message.Role != "assistant" ||
		got.Choices[0].FinishReason != "stop" || got.Usage.CompletionTokens != 5 {
		t.Errorf("response %+v", got)
	}
	tr := s.Traces()[0]
	if tr.Stream || tr.FirstToken.IsZero() || len(tr.ChunkTimes) != 0 || tr.CompletionTokens != 5 {
		t.Errorf("trace %+v", tr)
	}
}

func TestLegacyCompletions(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	body := map[string]any{"model": DefaultModel, "prompt": "x " + instruction(3, "code"),
		"stream": true, "stream_options": map[string]any{"include_usage": true}}
	resp := post(t, context.Background(), s.BaseURL()+"/completions", body)
	evs := readEvents(t, resp.Body)
	resp.Body.Close()
	if c := decodeChunk(t, evs[0].data); c.Object != "text_completion" || c.ID != "cmpl-0" {
		t.Errorf("first chunk %s", evs[0].data)
	}
	got := summarize(t, evs)
	if got.role != 0 || strings.Join(got.contents, "") != "code code code" || got.usage.CompletionTokens != 4 || !got.done {
		t.Errorf("summary %+v", got)
	}
	wantPrompt := CountTokens("x " + instruction(3, "code"))
	if got.usage.PromptTokens != wantPrompt {
		t.Errorf("prompt tokens %d, want %d (no chat template)", got.usage.PromptTokens, wantPrompt)
	}

	body["stream"] = false
	resp = post(t, context.Background(), s.BaseURL()+"/completions", body)
	defer resp.Body.Close()
	var ns struct {
		Choices []struct {
			Text         string `json:"text"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ns); err != nil || len(ns.Choices) != 1 || ns.Choices[0].Text != "code code code" {
		t.Errorf("non-streamed legacy: %+v %v", ns, err)
	}

	// Without max_tokens a legacy completion stops at 16 tokens, as in vLLM.
	body["prompt"] = instruction(40, "code")
	resp2 := post(t, context.Background(), s.BaseURL()+"/completions", body)
	defer resp2.Body.Close()
	if err := json.NewDecoder(resp2.Body).Decode(&ns); err != nil || ns.Choices[0].FinishReason != "length" || ns.Choices[0].Text != codeWords(16) {
		t.Errorf("legacy default max_tokens: %+v %v", ns, err)
	}
}

func TestPromptTokens(t *testing.T) {
	t.Parallel()
	for name, tok := range map[string]func(string) int{"default": nil, "coarse": CountTokensCoarse} {
		s := start(t, Options{PrefillOverhead: time.Millisecond, ITL: time.Microsecond, Tokenizer: tok})
		msgs := []map[string]any{
			{"role": "system", "content": "Be brief."},
			{"role": "user", "content": []map[string]any{{"type": "text", "text": "Hello "}, {"type": "text", "text": "world 12345"}}},
		}
		got := stream(t, s, map[string]any{"messages": msgs, "stream": true, "stream_options": map[string]any{"include_usage": true}})
		count := tok
		if count == nil {
			count = CountTokens
		}
		// Each message is tokenized on its own, as a chat template keeps them apart.
		if want := count("Be brief.") + count("Hello world 12345") + 2*4 + 3; got.usage.PromptTokens != want {
			t.Errorf("%s: prompt tokens %d, want %d", name, got.usage.PromptTokens, want)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
