package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	ctx, cancel := withDeadline(ctx, ModelsTimeout)
	defer cancel(nil)

	body := map[string]any{"model": model}
	if chat {
		body["messages"] = []wireMessage{{Role: "user", Content: prompt}}
	} else {
		body["prompt"] = prompt
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, fmt.Errorf("encode tokenize request: %w", err)
	}
	req, err := c.newRequest(ctx, http.MethodPost, strings.TrimSuffix(c.base, "/v1")+"/tokenize", raw)
	if err != nil {
		return 0, err
	}
	resp, err := c.probe(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
		return 0, ErrNoTokenize
	}
	if resp.StatusCode != http.StatusOK {
		return 0, httpError(resp)
	}
	var out struct {
		Count  *int  `json:"count"`
		Tokens []int `json:"tokens"`
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return 0, &Error{Kind: KindRead, Message: "read /tokenize: " + rootCause(err).Error(), Err: err}
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return 0, &Error{Kind: KindMalformed, Message: fmt.Sprintf("/tokenize answer is not JSON: %v", err), Err: err}
	}
	if out.Count != nil {
		return *out.Count, nil
	}
	return len(out.Tokens), nil
}
