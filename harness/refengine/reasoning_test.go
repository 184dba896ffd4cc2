package refengine

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// reasoningReply is the first n reasoning tokens' text.
func reasoningReply(n int) string {
	var sb strings.Builder
	for i := range n {
		sb.WriteString(reasoningToken(i))
	}
	return sb.String()
}

func TestThinkingTriggers(t *testing.T) {
	t.Parallel()
	plain, byDefault := start(t, fast()), start(t, Options{PrefillOverhead: 1000, ITL: 1000, ThinkByDefault: true})
	on := map[string]any{"enable_thinking": true}
	off := map[string]any{"enable_thinking": false}
	cases := []struct {
		name  string
		s     *Server
		extra map[string]any
		think bool
	}{
		{"nothing", plain, nil, false},
		{"enable_thinking", plain, map[string]any{"chat_template_kwargs": on}, true},
		{"enable_thinking false", plain, map[string]any{"chat_template_kwargs": off}, false},
		{"reasoning_effort", plain, map[string]any{"reasoning_effort": "low"}, true},
		{"reasoning_effort none", plain, map[string]any{"reasoning_effort": "none"}, false},
		{"reasoning_effort null", plain, map[string]any{"reasoning_effort": nil}, false},
		{"by default", byDefault, nil, true},
		{"by default, disabled", byDefault, map[string]any{"chat_template_kwargs": off}, false},
		{"by default, other kwargs", byDefault, map[string]any{"chat_template_kwargs": map[string]any{"x": 1}}, true},
	}
	for _, c := range cases {
		got := stream(t, c.s, chatBody(5, true, true, c.extra))
		if text := strings.Join(got.contents, ""); text != codeWords(5) {
			t.Errorf("%s: content %q", c.name, text)
		}
		details := got.usage.CompletionTokensDetails
		if !c.think {
			if len(got.reasoning) != 0 || details != nil || got.usage.CompletionTokens != 6 {
				t.Errorf("%s: reasoning %q details %+v usage %+v, want none", c.name, got.reasoning, details, got.usage)
			}
			continue
		}
		if r := strings.Join(got.reasoning, ""); r != reasoningReply(defaultReasoningTokens) || len(got.reasoning) != defaultReasoningTokens {
			t.Errorf("%s: reasoning %q", c.name, got.reasoning)
		}
		if got.reasonKey != string(reasoningContentField) || details == nil || details.ReasoningTokens != defaultReasoningTokens ||
			got.usage.CompletionTokens != defaultReasoningTokens+6 || got.finish[len(got.finish)-1] != "stop" {
			t.Errorf("%s: key %q details %+v usage %+v", c.name, got.reasonKey, details, got.usage)
		}
	}
	if tr := plain.Traces()[1]; !tr.Thinking || tr.ReasoningTokens != defaultReasoningTokens || tr.CompletionTokens != 22 {
		t.Errorf("trace %+v", tr)
	}
	// Errors of the controls.
	resp := post(t, context.Background(), plain.BaseURL()+"/chat/completions", chatBody(1, true, true, map[string]any{"reasoning_effort": 3}))
	if status, _, _, _ := errorOf(t, resp); status != 400 {
		t.Errorf("numeric reasoning_effort: %d", status)
	}
}

func TestReasoningFieldAndChunks(t *testing.T) {
	t.Parallel()
	s := start(t, Options{PrefillOverhead: 1000, ITL: 1000, ThinkByDefault: true, ReasoningTokens: 6,
		ReasoningField: reasoningField, TokensPerChunk: 4})
	got := stream(t, s, chatBody(5, true, true, nil))
	// 6 reasoning tokens by 4: a chunk of 4, one of 2 (reasoning and content never share a
	// chunk), then content on the same 4-token grid: 2, then 3 words and the EOS.
	if got.reasonKey != "reasoning" || len(got.reasoning) != 2 || got.reasoning[1] != reasoningToken(4)+reasoningToken(5) {
		t.Errorf("reasoning chunks %q in %q", got.reasoning, got.reasonKey)
	}
	if len(got.contents) != 2 || got.contents[0] != "code code" || got.usage.CompletionTokens != 12 {
		t.Errorf("contents %q usage %+v", got.contents, got.usage)
	}
	if got.usage.CompletionTokensDetails.ReasoningTokens != 6 {
		t.Errorf("details %+v", got.usage.CompletionTokensDetails)
	}
}

// nonStreamedMessage posts a non-streamed chat request and decodes its message as a map.
func nonStreamedMessage(t *testing.T, s *Server, body any, headers ...string) (map[string]any, string, usageBody) {
	t.Helper()
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", body, headers...)
	defer resp.Body.Close()
	var got struct {
		Choices []struct {
			Message      map[string]any `json:"message"`
			FinishReason string         `json:"finish_reason"`
		} `json:"choices"`
		Usage usageBody `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || len(got.Choices) != 1 {
		t.Fatalf("response %+v: %v", got, err)
	}
	return got.Choices[0].Message, got.Choices[0].FinishReason, got.Usage
}

func TestReasoningNonStreamed(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	msg, finish, usage := nonStreamedMessage(t, s, chatBody(3, false, false, map[string]any{"reasoning_effort": "high"}))
	if msg["content"] != codeWords(3) || msg["reasoning_content"] != reasoningReply(16) || finish != "stop" ||
		usage.CompletionTokens != 20 || usage.CompletionTokensDetails == nil || usage.CompletionTokensDetails.ReasoningTokens != 16 {
		t.Errorf("message %v finish %s usage %+v", msg, finish, usage)
	}
	msg, _, _ = nonStreamedMessage(t, s, chatBody(3, false, false, nil))
	if _, ok := msg["reasoning_content"]; ok || len(msg) != 2 {
		t.Errorf("non-thinking message %v", msg)
	}
}

func TestReasoningOnly(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	got := stream(t, s, chatBody(5, true, true, map[string]any{"max_tokens": 20}), FaultsHeader, "reasoning_only=1")
	if len(got.contents) != 0 || len(got.reasoning) != 20 || got.lastFinish != "length" || !got.done {
		t.Errorf("contents %q reasoning %d finish %q done %v", got.contents, len(got.reasoning), got.lastFinish, got.done)
	}
	if got.usage.CompletionTokens != 20 || got.usage.CompletionTokensDetails.ReasoningTokens != 20 {
		t.Errorf("usage %+v", got.usage)
	}
	msg, finish, _ := nonStreamedMessage(t, s, chatBody(5, false, false, map[string]any{"max_tokens": 7}), FaultsHeader, "reasoning_only=1")
	if c, ok := msg["content"]; !ok || c != nil || msg["reasoning_content"] != reasoningReply(7) || finish != "length" {
		t.Errorf("non-streamed: message %v finish %s, want content null", msg, finish)
	}
}

func TestRejectThinkingControls(t *testing.T) {
	t.Parallel()
	s := start(t, Options{PrefillOverhead: 1000, ITL: 1000, RejectThinkingControls: true})
	for _, v := range []bool{true, false} {
		resp := post(t, context.Background(), s.BaseURL()+"/chat/completions",
			chatBody(1, true, true, map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": v}}))
		status, typ, msg, _ := errorOf(t, resp)
		if status != http.StatusBadRequest || typ != "BadRequestError" || !strings.Contains(msg, "enable_thinking") {
			t.Errorf("enable_thinking %v: %d %s %q", v, status, typ, msg)
		}
	}
	if got := stream(t, s, chatBody(1, true, true, nil)); !got.done || len(got.reasoning) != 0 {
		t.Errorf("request without the control: %+v", got)
	}
}
