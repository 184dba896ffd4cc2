package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
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
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	deadline := time.AfterFunc(ModelsTimeout, func() { cancel(errDeadline) })
	defer deadline.Stop()

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
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.base, "/v1")+"/tokenize", strings.NewReader(string(raw)))
	if err != nil {
		return 0, &Error{Kind: KindTransport, Message: "build tokenize request: invalid endpoint URL", Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	if c.apiKey.IsSet() {
		req.Header.Set("Authorization", "Bearer "+c.apiKey.Reveal())
	}
	resp, err := c.http.Do(req)
	if err != nil {
		s := c.s
		s.timeout = ModelsTimeout
		return 0, classify(ctx, err, "send request", &s, 0)
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
