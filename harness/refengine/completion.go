package refengine

import "encoding/json"

// usageBody is the OpenAI usage object, key order as vLLM writes it.
type usageBody struct {
	PromptTokens            int                `json:"prompt_tokens"`
	TotalTokens             int                `json:"total_tokens"`
	CompletionTokens        int                `json:"completion_tokens"`
	PromptTokensDetails     *promptDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails *completionDetails `json:"completion_tokens_details,omitempty"`
}

type promptDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type completionDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// body is u as a usageBody.
func (u usageCounts) body() *usageBody {
	b := &usageBody{PromptTokens: u.prompt, TotalTokens: u.prompt + u.completion, CompletionTokens: u.completion}
	if u.cached >= 0 {
		b.PromptTokensDetails = &promptDetails{CachedTokens: u.cached}
	}
	if u.reasoning >= 0 {
		b.CompletionTokensDetails = &completionDetails{ReasoningTokens: u.reasoning}
	}
	return b
}

// chatMessageOut is a non-streamed reply; the reasoning text goes in the member
// Options.ReasoningField names, present only when the request thought.
type chatMessageOut struct {
	Role             string  `json:"role"`
	Content          *string `json:"content"`
	ReasoningContent *string `json:"reasoning_content,omitempty"`
	Reasoning        *string `json:"reasoning,omitempty"`
}

type chatChoice struct {
	Index        int            `json:"index"`
	Message      chatMessageOut `json:"message"`
	Logprobs     *struct{}      `json:"logprobs"`
	FinishReason *string        `json:"finish_reason"`
}

type textChoice struct {
	Index        int       `json:"index"`
	Text         string    `json:"text"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type completionResponse struct {
	ID      string     `json:"id"`
	Object  string     `json:"object"`
	Created int64      `json:"created"`
	Model   string     `json:"model"`
	Choices any        `json:"choices"`
	Usage   *usageBody `json:"usage,omitempty"`
}

// reply is the text of a non-streamed response.
type reply struct {
	content, reasoning []byte
	hasContent         bool // a content token was produced (else content is null when thinking)
}

// completionBody encodes a non-streamed response (cold path: json.Marshal is fine); u nil
// leaves the usage out.
func (g *run) completionBody(rp *reply, finish string, u *usageCounts) []byte {
	var fr *string
	if finish != "" {
		fr = &finish
	}
	resp := completionResponse{ID: g.id, Object: g.object, Created: g.created, Model: g.s.opts.Model}
	if u != nil {
		resp.Usage = u.body()
	}
	if g.j.legacy {
		resp.Choices = []textChoice{{Text: string(rp.content), FinishReason: fr}}
	} else {
		c := chatChoice{FinishReason: fr}
		c.Message.Role = "assistant"
		if text := string(rp.content); rp.hasContent || !g.j.think {
			c.Message.Content = &text
		}
		if g.j.think {
			r := string(rp.reasoning)
			if g.s.opts.ReasoningField == ReasoningField {
				c.Message.Reasoning = &r
			} else {
				c.Message.ReasoningContent = &r
			}
		}
		resp.Choices = []chatChoice{c}
	}
	body, err := json.Marshal(resp)
	if err != nil { // only strings and numbers: cannot happen
		return []byte(`{}`)
	}
	return body
}
