package refengine

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// tokenize posts body to /tokenize.
func tokenize(t *testing.T, s *Server, body any) (int, tokenizeResponse) {
	t.Helper()
	resp := post(t, context.Background(), s.URL+"/tokenize", body)
	defer resp.Body.Close()
	var got tokenizeResponse
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
			t.Fatalf("decode: %v", err)
		}
	}
	return resp.StatusCode, got
}

func TestTokenize(t *testing.T) {
	t.Parallel()
	s := start(t, Options{PrefillOverhead: 1000, ITL: 1000, MaxModelLen: 4096, APIKey: "k"})
	prompt := "Hello world, 12345 tokens!"
	status, got := tokenize(t, s, map[string]any{"model": DefaultModel, "prompt": prompt})
	if status != 200 || got.Count != CountTokens(prompt) || len(got.Tokens) != got.Count || got.MaxModelLen != 4096 {
		t.Errorf("prompt: %d %+v", status, got)
	}
	for _, id := range got.Tokens {
		if id < 0 || id >= tokenVocab {
			t.Errorf("token id %d out of range", id)
		}
	}
	if _, again := tokenize(t, s, map[string]any{"prompt": prompt}); !slices.Equal(again.Tokens, got.Tokens) {
		t.Errorf("token ids not deterministic")
	}
	// Messages count exactly as prompt_tokens of the same chat request.
	body := chatBody(3, true, true, nil)
	status, got = tokenize(t, s, map[string]any{"model": DefaultModel, "messages": body["messages"]})
	want := stream(t, s, body, "Authorization", "Bearer k").usage.PromptTokens
	if status != 200 || got.Count != want || len(got.Tokens) != want {
		t.Errorf("messages: %d count %d, want prompt_tokens %d", status, got.Count, want)
	}
	for name, c := range map[string]struct {
		body   string
		status int
	}{
		"wrong model": {`{"model":"x","prompt":"hi"}`, 404},
		"no input":    {`{"model":"` + DefaultModel + `"}`, 400},
		"bad prompt":  {`{"prompt":[1,2]}`, 400},
		"bad json":    {`{"prompt":`, 400},
	} {
		resp, err := http.Post(s.URL+"/tokenize", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if status, _, _, _ := errorOf(t, resp); status != c.status {
			t.Errorf("%s: status %d, want %d", name, status, c.status)
		}
	}
	resp, err := http.Get(s.URL + "/tokenize")
	if err != nil {
		t.Fatal(err)
	}
	if status, _, _, _ := errorOf(t, resp); status != 405 {
		t.Errorf("GET /tokenize: %d", status)
	}
	if status, _ := tokenize(t, start(t, Options{DisableTokenize: true}), map[string]any{"prompt": "hi"}); status != 404 {
		t.Errorf("DisableTokenize: status %d", status)
	}
}
