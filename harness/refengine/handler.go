package refengine

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", s.handleModels)
	s.handleSurfaces(mux)
	mux.HandleFunc("/tokenize", s.handleTokenize)
	mux.HandleFunc("/metrics", s.handleMetrics)
	if s.opts.ServeTraces {
		mux.HandleFunc("GET /ref/traces", s.handleTraces)
	}
	s.nativeRoutes(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errNoRoute(r.URL.Path))
	})
	return mux
}

// authorized reports whether r carries the API key (always true without one). The
// comparison is constant-time.
func (s *Server) authorized(r *http.Request) bool {
	if s.opts.APIKey == "" {
		return true
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		token, ok = r.Header.Get("x-api-key"), r.Header.Get("x-api-key") != "" // the Messages API's
	}
	return ok && subtle.ConstantTimeCompare([]byte(token), []byte(s.opts.APIKey)) == 1
}

type modelCard struct {
	ID          string `json:"id"`
	Object      string `json:"object"`
	Created     int64  `json:"created"`
	OwnedBy     string `json:"owned_by"`
	MaxModelLen int    `json:"max_model_len,omitempty"`
	Parent      string `json:"parent,omitempty"`
}

type modelList struct {
	Object string      `json:"object"`
	Data   []modelCard `json:"data"`
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writeError(w, errMethod(r.Method))
		return
	}
	if !s.authorized(r) {
		writeError(w, errUnauthorized())
		return
	}
	cards := []modelCard{{ID: s.opts.Model, Object: "model", Created: s.started.Unix(), OwnedBy: "anvilbench", MaxModelLen: s.statedWindow()}}
	for _, name := range slices.Sorted(maps.Keys(s.opts.Adapters)) {
		// As vLLM lists a LoRA module: its name, the base model its parent.
		cards = append(cards, modelCard{ID: name, Object: "model", Created: s.started.Unix(), OwnedBy: "anvilbench",
			MaxModelLen: s.statedWindow(), Parent: s.opts.Model})
	}
	body, err := json.Marshal(modelList{Object: "list", Data: cards})
	if err != nil {
		writeError(w, &apiError{http.StatusInternalServerError, "InternalServerError", err.Error()})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// handleGenerate serves a generation request on one API: /v1/chat/completions,
// /v1/completions, /v1/responses, /v1/messages or /api/chat. Every POST gets a trace, errors included.
func (s *Server) handleGenerate(api surface) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		arrived := time.Now()
		s.generations.Add(1)
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, errMethod(r.Method))
			return
		}
		tr := s.newTrace(arrived)
		if tp := r.Header.Get("traceparent"); tp != "" {
			tr.set(func(t *RequestTrace) { t.TraceParent = tp })
		}
		fail := func(e *apiError) {
			writeError(w, e)
			tr.finish(e.Status, "", false)
		}
		if !s.authorized(r) {
			fail(errUnauthorized())
			return
		}
		faults, ferr := s.requestFaults(r)
		if ferr != nil {
			fail(ferr)
			return
		}
		if status := faults.immediateStatus(); status != 0 {
			answerImmediate(w, faults)
			tr.finish(status, "", false)
			return
		}
		j, err := s.parseJob(w, r, api, faults)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) {
				ae = errBadRequest("%v", err)
			}
			fail(ae)
			return
		}
		defer j.leave()
		tr.set(func(t *RequestTrace) {
			t.Stream = j.stream
			t.PromptTokens = j.promptTokens
			t.PromptHead = j.promptHead
			t.Thinking = j.think
			t.Model, t.Images, t.Priority = j.model, j.images, j.priority
		})
		s.generate(r.Context(), w, j, tr)
	}
}
