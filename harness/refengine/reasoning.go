package refengine

import (
	"bytes"
	"encoding/json"
)

// reasoningText is the thought of a thinking reply, cycled: one token each, never the code
// word, so a client mixing reasoning into content fails strict adherence.
var reasoningText = []string{"Okay", ",", " the", " user", " wants", " a", " fixed", " reply",
	".", " Let", " me", " count", " the", " words", " first", "."}

// reasoningToken is the text of reasoning token i.
func reasoningToken(i int) string { return reasoningText[i%len(reasoningText)] }

// thinks decides whether a chat request reasons before answering, from its
// chat_template_kwargs and reasoning_effort ("" counts as unset), or answers 400 when the model rejects thinking
// controls. Errors are *apiError.
func (s *Server) thinks(req *genRequest) (bool, error) {
	enable, sent := req.ChatTemplateKwargs["enable_thinking"]
	if sent && s.opts.RejectThinkingControls {
		return false, errBadRequest("chat_template_kwargs.enable_thinking is not supported by model %s.", s.opts.Model)
	}
	if s.opts.IgnoreThinkingControls {
		return s.opts.ThinkByDefault, nil
	}
	if enable == true {
		return true, nil
	}
	if effort := bytes.TrimSpace(req.ReasoningEffort); len(effort) > 0 && string(effort) != "null" {
		var e string
		if err := json.Unmarshal(effort, &e); err != nil {
			return false, errBadRequest("reasoning_effort must be a string, got %s.", effort)
		}
		if e != "" && e != "none" {
			return true, nil
		}
	}
	return s.opts.ThinkByDefault && enable != false, nil
}
