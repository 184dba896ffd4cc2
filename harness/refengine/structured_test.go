package refengine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// toolBody is a chat request offering record_words and asking for a call of it with words
// code words.
func toolBody(words int, stream bool, choice any) map[string]any {
	b := chatBody(words, stream, true, nil)
	b["messages"] = []map[string]any{{"role": "user", "content": "Some context.\nCall the function record_words once, with its words argument holding " +
		strings.TrimPrefix(instruction(words, "code"), "Reply with ")}}
	b["tools"] = []map[string]any{{"type": "function", "function": map[string]any{"name": "lookup", "parameters": map[string]any{"type": "object"}}},
		{"type": "function", "function": map[string]any{"name": "record_words", "parameters": map[string]any{"type": "object"}}}}
	if choice != nil {
		b["tool_choice"] = choice
	}
	return b
}

// toolStream reads a streamed tool-call response: each delta's tool-call fragments joined,
// and the finish reason.
func toolStream(t *testing.T, s *Server, body any, headers ...string) (name, args, finish string, fragments int) {
	t.Helper()
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", body, headers...)
	defer resp.Body.Close()
	for _, ev := range readEvents(t, resp.Body) {
		if ev.data == "[DONE]" {
			continue
		}
		var ch struct {
			Choices []struct {
				Delta struct {
					Content   *string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(ev.data), &ch); err != nil {
			t.Fatalf("%s: %v", ev.data, err)
		}
		for _, c := range ch.Choices {
			if c.Delta.Content != nil && *c.Delta.Content != "" {
				t.Errorf("content %q in a tool-call reply", *c.Delta.Content)
			}
			for _, tc := range c.Delta.ToolCalls {
				fragments++
				name += tc.Function.Name
				args += tc.Function.Arguments
			}
			if c.FinishReason != nil {
				finish = *c.FinishReason
			}
		}
	}
	return name, args, finish, fragments
}

func TestToolCallsAreStreamedInFragments(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	for _, choice := range []any{"required", "auto", nil, map[string]any{"type": "function", "function": map[string]any{"name": "record_words"}}} {
		name, args, finish, fragments := toolStream(t, s, toolBody(3, true, choice))
		if name != "record_words" || args != `{"words": "code code code"}` || finish != "tool_calls" || fragments != 5 {
			t.Errorf("choice %v: %s(%s) finish %q in %d fragments", choice, name, args, finish, fragments)
		}
	}
	// The broken twin: arguments that are not JSON.
	_, args, _, _ := toolStream(t, s, toolBody(3, true, "required"), FaultsHeader, "bad_tool_arguments=1")
	if json.Valid([]byte(args)) || !strings.HasPrefix(args, `{"words": "code code code`) {
		t.Errorf("bad_tool_arguments: %s", args)
	}
	// A choice naming a tool not offered is the client's error.
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", toolBody(3, true, map[string]any{"type": "function", "function": map[string]any{"name": "nope"}}))
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("an unknown named tool: status %d", resp.StatusCode)
	}
	// Not streamed: one call in the message.
	resp = post(t, context.Background(), s.BaseURL()+"/chat/completions", toolBody(2, false, "required"))
	defer resp.Body.Close()
	var ns struct {
		Choices []struct {
			Message struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					Function struct{ Name, Arguments string } `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ns); err != nil || len(ns.Choices[0].Message.ToolCalls) != 1 ||
		ns.Choices[0].Message.ToolCalls[0].Function.Arguments != `{"words": "code code"}` || ns.Choices[0].FinishReason != "tool_calls" || ns.Choices[0].Message.Content != nil {
		t.Errorf("non-streamed: %+v %v", ns, err)
	}
}

func TestJSONAnswersAndDroppedHistory(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	b := chatBody(4, true, true, map[string]any{"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "w", "schema": map[string]any{}}}})
	if got := strings.Join(stream(t, s, b).contents, ""); got != `{"words": "code code code code"}` {
		t.Errorf("json answer %q", got)
	}
	// Offered tools cost prompt tokens, as a template puts them in the prompt.
	plain := stream(t, s, chatBody(2, true, true, nil)).usage.PromptTokens
	withTools := toolBody(2, true, "none")
	withTools["messages"] = chatBody(2, true, true, nil)["messages"]
	if got := stream(t, s, withTools).usage.PromptTokens; got <= plain {
		t.Errorf("prompt tokens with tools %d, without %d", got, plain)
	}
	// drop_history reads the last message only.
	whole := stream(t, s, chatBody(2, true, true, nil)).usage.PromptTokens
	last := stream(t, s, chatBody(2, true, true, nil), FaultsHeader, "drop_history=1").usage.PromptTokens
	if want := CountTokens("Some context.\n"+instruction(2, "code")) + 4 + 3; last != want || whole <= last {
		t.Errorf("drop_history: %d prompt tokens (whole %d), want %d", last, whole, want)
	}
}
