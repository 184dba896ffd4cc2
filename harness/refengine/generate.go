package refengine

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// generate simulates one validated request on the handler's goroutine: admission, prefill,
// then one chunk per TokensPerChunk tokens at its absolute deadline. It returns when the
// response is complete or ctx is done (client gone, server closing).
func (s *Server) generate(ctx context.Context, w http.ResponseWriter, j *job, tr *traceRec) {
	rc := http.NewResponseController(w)
	index := tr.t.Index // immutable after newTrace
	created := tr.t.Arrived.Unix()
	id, object := "chatcmpl-"+strconv.Itoa(index), "chat.completion"
	if j.legacy {
		id, object = "cmpl-"+strconv.Itoa(index), "text_completion"
	}

	var enc *chunkEncoder
	send := func(b []byte) error {
		if _, err := w.Write(b); err != nil {
			return err
		}
		return rc.Flush()
	}
	if j.stream {
		chunkObject := object
		if !j.legacy {
			chunkObject = "chat.completion.chunk"
		}
		enc = newChunkEncoder(id, chunkObject, s.opts.Model, created, j.legacy, j.includeUsage)
		// Headers go out at once, as vLLM's do; the body waits for the first token.
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		tr.set(func(t *RequestTrace) { t.Status = http.StatusOK })
		if err := rc.Flush(); err != nil {
			tr.finish(0, "", true)
			return
		}
	}

	if err := s.gate.acquire(ctx); err != nil {
		tr.finish(0, "", true)
		return
	}
	defer s.gate.release() // after tr.finish below: a waiter is admitted only once we are done

	admitted := time.Now()
	limit, truncated := j.plan.tokens, false
	if t := j.faults.TruncateAfter; t > 0 && t < limit {
		limit, truncated = t, true
	}
	per := s.opts.TokensPerChunk
	tr.set(func(t *RequestTrace) {
		t.Admitted = admitted
		if j.stream {
			t.ChunkTimes = make([]time.Time, 0, (limit+per-1)/per)
		}
	})

	// The prefill compute is booked now; like work already scheduled on a GPU, it is not
	// given back if the client leaves.
	computeDone := s.lane.reserve(admitted, prefillCompute(j.promptTokens, s.opts.PrefillRate))
	deadline := computeDone.Add(s.opts.PrefillOverhead)
	steps := newStepper(&s.opts, &s.gate.running, index)
	sleep := newSleeper(ctx, true)
	defer sleep.close()

	var pending []byte // the chunk being assembled when per > 1
	var full []byte    // the whole reply when not streaming
	finish := ""
	for i := range limit {
		if i > 0 {
			deadline = deadline.Add(steps.next())
		}
		tok := j.plan.text(i)
		last := i+1 == limit
		if !j.stream {
			full = append(full, tok...)
		} else if per > 1 {
			pending = append(pending, tok...)
		}
		if !last && (i+1)%per != 0 {
			continue
		}
		if err := sleep.until(deadline); err != nil {
			tr.finish(0, "", true)
			return
		}
		if last && !truncated {
			finish = j.plan.finish
		}
		if !j.stream {
			tokens := i + 1
			tr.set(func(t *RequestTrace) {
				if t.FirstToken.IsZero() {
					t.FirstToken = time.Now()
				}
				t.CompletionTokens = tokens
			})
			continue
		}
		if i < per && !j.legacy {
			if err := send(enc.role()); err != nil {
				tr.finish(0, "", true)
				return
			}
		}
		var b []byte
		if per == 1 {
			b = content(enc, tok, finish)
		} else {
			b = content(enc, pending, finish)
			pending = pending[:0]
		}
		if err := send(b); err != nil {
			tr.finish(0, "", true)
			return
		}
		tr.chunk(time.Now(), i+1)
	}

	if j.stream {
		if !truncated {
			if j.includeUsage {
				if err := send(enc.usageChunk(j.promptTokens, limit)); err != nil {
					tr.finish(0, "", true)
					return
				}
			}
			if err := send(doneEvent); err != nil {
				tr.finish(0, "", true)
				return
			}
		}
		tr.finish(0, finish, false)
		return
	}
	body := completionBody(j, id, object, s.opts.Model, created, full, finish, limit)
	if truncated {
		body = body[:len(body)/2] // a cut JSON document, as from a crashed server
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(body)
	tr.finish(http.StatusOK, finish, err != nil)
}

// usageBody is the OpenAI usage object, key order as vLLM writes it.
type usageBody struct {
	PromptTokens        int       `json:"prompt_tokens"`
	TotalTokens         int       `json:"total_tokens"`
	CompletionTokens    int       `json:"completion_tokens"`
	PromptTokensDetails *struct{} `json:"prompt_tokens_details"`
}

type chatChoice struct {
	Index   int `json:"index"`
	Message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"message"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type textChoice struct {
	Index        int       `json:"index"`
	Text         string    `json:"text"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type completionResponse struct {
	ID      string    `json:"id"`
	Object  string    `json:"object"`
	Created int64     `json:"created"`
	Model   string    `json:"model"`
	Choices any       `json:"choices"`
	Usage   usageBody `json:"usage"`
}

// completionBody encodes a non-streamed response (cold path: json.Marshal is fine).
func completionBody(j *job, id, object, model string, created int64, text []byte, finish string, tokens int) []byte {
	var fr *string
	if finish != "" {
		fr = &finish
	}
	resp := completionResponse{ID: id, Object: object, Created: created, Model: model,
		Usage: usageBody{PromptTokens: j.promptTokens, TotalTokens: j.promptTokens + tokens,
			CompletionTokens: tokens}}
	if j.legacy {
		resp.Choices = []textChoice{{Text: string(text), FinishReason: fr}}
	} else {
		c := chatChoice{FinishReason: fr}
		c.Message.Role, c.Message.Content = "assistant", string(text)
		resp.Choices = []chatChoice{c}
	}
	body, err := json.Marshal(resp)
	if err != nil { // only strings and numbers: cannot happen
		return []byte(`{}`)
	}
	return body
}
