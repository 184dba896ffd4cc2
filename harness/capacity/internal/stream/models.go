package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Model is one entry of GET /v1/models.
type Model struct {
	ID string
	// MaxContextTokens is the first positive of max_model_len (vLLM), max_context_length
	// and context_length (others); 0 when the server states none.
	MaxContextTokens int
	// Parent is the base model of a LoRA adapter, as vLLM lists one; "" for a model.
	Parent string
}

// ModelsTimeout bounds the GET /v1/models probe.
const ModelsTimeout = 15 * time.Second

// Models lists the served models.
func (c *Client) Models(ctx context.Context) ([]Model, error) {
	models, err := c.models(ctx)
	return models, c.seal(err)
}

func (c *Client) models(ctx context.Context) ([]Model, error) {
	raw, err := c.fetch(ctx, http.MethodGet, c.base+"/models", nil, 8<<20, "/models", nil)
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			ID               string `json:"id"`
			MaxModelLen      int    `json:"max_model_len"`
			MaxContextLength int    `json:"max_context_length"`
			ContextLength    int    `json:"context_length"`
			Parent           string `json:"parent"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, &Error{Kind: KindMalformed, Message: fmt.Sprintf("/models is not a model list: %v", err), Err: err}
	}
	out := make([]Model, 0, len(list.Data))
	for _, m := range list.Data {
		ctxLen := 0
		for _, v := range []int{m.MaxModelLen, m.MaxContextLength, m.ContextLength} {
			if v > 0 {
				ctxLen = v
				break
			}
		}
		out = append(out, Model{ID: m.ID, MaxContextTokens: ctxLen, Parent: m.Parent})
	}
	return out, nil
}
