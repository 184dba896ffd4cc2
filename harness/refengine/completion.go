package refengine

import "encoding/json"

// chatMessageOut is a non-streamed reply; the reasoning text goes in the member
// Options.ReasoningField names, present only when the request thought.
type chatMessageOut struct {
	Role             string        `json:"role"`
	Content          *string       `json:"content"`
	ReasoningContent *string       `json:"reasoning_content,omitempty"`
	Reasoning        *string       `json:"reasoning,omitempty"`
	ToolCalls        []toolCallOut `json:"tool_calls,omitempty"`
}

type toolCallOut struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
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
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices any             `json:"choices"`
	Usage   json.RawMessage `json:"usage,omitempty"` // appendUsage: one encoder for both paths
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
	resp := completionResponse{ID: g.id, Object: g.object, Created: g.created, Model: g.j.model}
	if u != nil {
		resp.Usage = appendUsage(nil, *u)
	}
	if g.j.legacy {
		resp.Choices = []textChoice{{Text: string(rp.content), FinishReason: fr}}
	} else {
		c := chatChoice{FinishReason: fr}
		c.Message.Role = "assistant"
		if text := string(rp.content); g.j.tool != "" {
			call := toolCallOut{ID: g.callID(), Type: "function"}
			call.Function.Name, call.Function.Arguments = g.j.tool, text
			c.Message.ToolCalls = []toolCallOut{call}
		} else if rp.hasContent || !g.j.think {
			c.Message.Content = &text
		}
		if g.j.think {
			r := string(rp.reasoning)
			if g.s.opts.ReasoningField == reasoningField {
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
