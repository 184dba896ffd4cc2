package stream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func windowServer(t *testing.T, routes map[string]string) *Client {
	t.Helper()
	mux := http.NewServeMux()
	for pattern, body := range routes {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) })
	}
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return New(Options{BaseURL: s.URL + "/v1", Timeout: time.Second, StallTimeout: time.Second})
}

func TestNativeWindowAsksEachEngineItsOwnWay(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		routes map[string]string
		want   Window
	}{
		{"llama.cpp", map[string]string{"GET /props": `{"default_generation_settings": {"n_ctx": 16384}}`}, Window{Tokens: 16384, Source: WindowFromLlamaCpp}},
		{"ollama num_ctx", map[string]string{"POST /api/show": `{"parameters": "stop \"x\"\nnum_ctx 8192", "model_info": {"llama.context_length": 131072}}`}, Window{Tokens: 8192, Source: WindowFromOllama}},
		{"sglang", map[string]string{"GET /server_info": `{"context_length": 32768}`}, Window{Tokens: 32768, Source: WindowFromSGLangSI}},
		{"sglang, older", map[string]string{"GET /get_server_info": `{"context_length": 4096}`}, Window{Tokens: 4096, Source: WindowFromSGLangGS}},
	}
	for _, c := range cases {
		w, err := windowServer(t, c.routes).NativeWindow(context.Background(), "m")
		if err != nil || w != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.name, w, err, c.want)
		}
	}
	// Ollama without num_ctx: the trained length, said to be one.
	w, err := windowServer(t, map[string]string{"POST /api/show": `{"parameters": "", "model_info": {"llama.context_length": 131072}}`}).NativeWindow(context.Background(), "m")
	if err != nil || w.Tokens != 131072 || w.Note == "" {
		t.Errorf("ollama without num_ctx: %+v, %v", w, err)
	}
	// A null context_length (SGLang's server args when unset) states nothing.
	if _, err := windowServer(t, map[string]string{"GET /server_info": `{"context_length": null}`}).NativeWindow(context.Background(), "m"); !errors.Is(err, ErrNoWindow) {
		t.Errorf("a null window: %v", err)
	}
}
