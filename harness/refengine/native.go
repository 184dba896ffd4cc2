package refengine

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// statedWindow is the window /v1/models and /tokenize state: MaxModelLen, or 0 (left out)
// with HideWindow.
func (s *Server) statedWindow() int {
	if s.opts.HideWindow {
		return 0
	}
	return s.opts.MaxModelLen
}

// nativeRoutes serves the engine-native endpoint of Options.NativeInfo, shaped like the
// real engine's, with the window where that engine states it.
func (s *Server) nativeRoutes(mux *http.ServeMux) {
	window := s.opts.MaxModelLen
	switch s.opts.NativeInfo {
	case NativeLlamaCpp: // llama.cpp server: GET /props
		mux.HandleFunc("GET /props", s.nativeJSON(map[string]any{
			"default_generation_settings": map[string]any{"n_ctx": window, "params": map[string]any{"n_predict": -1}},
			"total_slots":                 1,
			"model_path":                  s.opts.Model + ".gguf",
		}))
	case NativeOllama: // Ollama: POST /api/show {"model": ...}
		mux.HandleFunc("POST /api/show", s.nativeJSON(map[string]any{
			"parameters": fmt.Sprintf("num_ctx                        %d\nstop                           \"<|im_end|>\"", window),
			"model_info": map[string]any{"general.architecture": "qwen2", "qwen2.context_length": 4 * window},
		}))
	case NativeSGLang: // SGLang: GET /server_info (older: /get_server_info)
		info := s.nativeJSON(map[string]any{"context_length": window, "model_path": s.opts.Model, "max_total_num_tokens": 16 * window})
		mux.HandleFunc("GET /server_info", info)
		mux.HandleFunc("GET /get_server_info", info)
	}
}

func (s *Server) nativeJSON(v any) http.HandlerFunc {
	body, err := json.Marshal(v)
	return func(w http.ResponseWriter, r *http.Request) {
		if err != nil {
			writeError(w, &apiError{http.StatusInternalServerError, "InternalServerError", err.Error()})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}
}
