package refengine

import (
	"encoding/json"
	"errors"
	"hash/fnv"
	"net/http"
)

// tokenVocab is the range of the placeholder token ids /tokenize returns (Qwen's vocabulary
// size, for plausibility).
const tokenVocab = 151936

type tokenizeRequest struct {
	Model    string          `json:"model"`
	Prompt   json.RawMessage `json:"prompt"`
	Messages []chatMessage   `json:"messages"`
}

type tokenizeResponse struct {
	Count       int   `json:"count"`
	MaxModelLen int   `json:"max_model_len,omitempty"`
	Tokens      []int `json:"tokens"`
}

// handleTokenize serves vLLM's POST /tokenize (at the root, not under /v1, and like vLLM's
// without the API key): the token count of a prompt, or of chat messages with the chat
// template's overhead (exactly prompt_tokens of the same chat request), with as many
// placeholder token ids (deterministic in the text, not a real vocabulary).
func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	if s.opts.DisableTokenize {
		writeError(w, errNoRoute(r.URL.Path))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, errMethod(r.Method))
		return
	}
	var req tokenizeRequest
	if ae := s.readRequest(w, r, &req, &req.Model); ae != nil {
		writeError(w, ae)
		return
	}
	var text string
	var count int
	if len(req.Messages) > 0 {
		text, _ = joinMessages(req.Messages)
		count = chatPromptTokens(s.opts.Tokenizer, req.Messages)
	} else {
		if len(req.Prompt) == 0 || string(req.Prompt) == "null" {
			writeError(w, errBadRequest("Either prompt or messages is required."))
			return
		}
		p, err := decodePrompt(req.Prompt)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) {
				ae = errBadRequest("%v", err)
			}
			writeError(w, ae)
			return
		}
		text, count = p, s.opts.Tokenizer(p)
	}
	out, err := json.Marshal(tokenizeResponse{Count: count, MaxModelLen: s.statedWindow(),
		Tokens: placeholderTokens(text, count)})
	if err != nil {
		writeError(w, &apiError{http.StatusInternalServerError, "InternalServerError", err.Error()})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// placeholderTokens returns n token ids in [0, tokenVocab), a pure function of text.
func placeholderTokens(text string, n int) []int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(text))
	x := h.Sum64()
	ids := make([]int, n)
	for i := range ids {
		x += 0x9e3779b97f4a7c15 // splitmix64
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		ids[i] = int((z ^ (z >> 31)) % tokenVocab)
	}
	return ids
}
