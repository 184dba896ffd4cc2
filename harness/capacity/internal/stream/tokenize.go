package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// ErrNoTokenize is returned by Tokenize when the server has no /tokenize endpoint.
var ErrNoTokenize = fmt.Errorf("the endpoint has no /tokenize")

// Tokenize counts the tokens the server sees for a prompt, using the /tokenize endpoint
// that vLLM (and SGLang) serve beside /v1. chat counts the prompt as one user message,
// chat template included, exactly as prompt_tokens of a chat request would.
func (c *Client) Tokenize(ctx context.Context, model, prompt string, chat bool) (int, error) {
	n, err := c.tokenize(ctx, model, prompt, chat)
	return n, c.seal(err)
}

func (c *Client) tokenize(ctx context.Context, model, prompt string, chat bool) (int, error) {
	body := map[string]any{"model": model}
	if chat {
		body["messages"] = []map[string]string{{"role": "user", "content": prompt}}
	} else {
		body["prompt"] = prompt
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, fmt.Errorf("encode tokenize request: %w", err)
	}
	data, err := c.fetch(ctx, http.MethodPost, strings.TrimSuffix(c.base, "/v1")+"/tokenize", raw, 64<<20, "/tokenize", ErrNoTokenize)
	if err != nil {
		return 0, err
	}
	var out struct {
		Count  *int  `json:"count"`
		Tokens []int `json:"tokens"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return 0, &Error{Kind: KindMalformed, Message: fmt.Sprintf("/tokenize answer is not JSON: %v", err), Err: err}
	}
	if out.Count != nil {
		return *out.Count, nil
	}
	return len(out.Tokens), nil
}
