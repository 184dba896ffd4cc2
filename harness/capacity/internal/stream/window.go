package stream

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// Window sources: where an engine stated its context window.
const (
	WindowFromModels   = "/v1/models"                  // max_model_len, max_context_length or context_length
	WindowFromLlamaCpp = "llama.cpp GET /props"        // default_generation_settings.n_ctx
	WindowFromOllama   = "ollama POST /api/show"       // parameters num_ctx, else model_info.*.context_length
	WindowFromSGLang   = "sglang GET /get_model_info"  // context_length
	WindowFromSGLangSI = "sglang GET /server_info"     // context_length
	WindowFromSGLangGS = "sglang GET /get_server_info" // context_length (older releases)
)

// Window is a context window an engine stated on one of its own endpoints.
type Window struct {
	Tokens int
	// Source names the endpoint and field (one of the WindowFrom constants).
	Source string
	// Note qualifies the figure, e.g. that it is the trained length, not the served one.
	Note string
}

// ErrNoWindow is returned by NativeWindow when no engine-native endpoint stated a window.
var ErrNoWindow = errors.New("no engine-native endpoint stated a context window")

// NativeWindow asks the engine-native endpoints that state the served window, beside the
// OpenAI API at the root of the base URL, in turn: llama.cpp's GET /props, Ollama's POST
// /api/show, SGLang's GET /get_model_info, /server_info and /get_server_info. The first
// that states a positive window wins. Ollama serves num_ctx tokens (it truncates longer
// prompts), which /api/show states among the parameters only when set; the model's trained
// context_length is the fallback, with a note.
func (c *Client) NativeWindow(ctx context.Context, model string) (Window, error) {
	w, err := c.nativeWindow(ctx, model)
	return w, c.seal(err)
}

func (c *Client) nativeWindow(ctx context.Context, model string) (Window, error) {
	root := strings.TrimSuffix(c.base, "/v1")
	probes := []struct {
		method, path, source string
		body                 any
		read                 func(map[string]json.RawMessage) (int, string)
	}{
		{http.MethodGet, "/props", WindowFromLlamaCpp, nil, llamaCppWindow},
		{http.MethodPost, "/api/show", WindowFromOllama, map[string]string{"model": model}, ollamaWindow},
		{http.MethodGet, "/get_model_info", WindowFromSGLang, nil, contextLengthField},
		{http.MethodGet, "/server_info", WindowFromSGLangSI, nil, contextLengthField},
		{http.MethodGet, "/get_server_info", WindowFromSGLangGS, nil, contextLengthField},
	}
	for _, p := range probes {
		fields, err := c.probeJSON(ctx, p.method, root+p.path, p.body)
		if unreachable(err) {
			return Window{}, err
		}
		if err != nil {
			continue
		}
		if n, note := p.read(fields); n > 0 {
			return Window{Tokens: n, Source: p.source, Note: note}, nil
		}
	}
	return Window{}, ErrNoWindow
}

// unreachable reports whether a start-up probe's error says the server cannot be asked at
// all (no connection, or the caller gave up), so the next probe need not be tried.
func unreachable(err error) bool {
	var se *Error
	return errors.As(err, &se) && (se.Kind == KindConnect || se.Kind == KindCancelled)
}

// probeJSON sends one start-up request and decodes a JSON object answer.
func (c *Client) probeJSON(ctx context.Context, method, url string, body any) (map[string]json.RawMessage, error) {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	data, err := c.fetch(ctx, method, url, raw, 8<<20, url, nil)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, &Error{Kind: KindMalformed, Message: "not a JSON object", Err: err}
	}
	return fields, nil
}

func llamaCppWindow(f map[string]json.RawMessage) (int, string) {
	var settings struct {
		NCtx int `json:"n_ctx"`
	}
	_ = json.Unmarshal(f["default_generation_settings"], &settings)
	return settings.NCtx, ""
}

var numCtx = regexp.MustCompile(`(?m)^\s*num_ctx\s+(\d+)`)

func ollamaWindow(f map[string]json.RawMessage) (int, string) {
	var params string
	_ = json.Unmarshal(f["parameters"], &params)
	if m := numCtx.FindStringSubmatch(params); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, ""
	}
	var info map[string]json.RawMessage
	_ = json.Unmarshal(f["model_info"], &info)
	for k, v := range info {
		if strings.HasSuffix(k, ".context_length") {
			var n int
			if json.Unmarshal(v, &n) == nil && n > 0 {
				return n, "the model's trained context_length: Ollama serves num_ctx, which /api/show did not state and may be smaller"
			}
		}
	}
	return 0, ""
}

func contextLengthField(f map[string]json.RawMessage) (int, string) {
	for _, key := range []string{"context_length", "max_context_length", "max_model_len"} {
		var n int
		if json.Unmarshal(f[key], &n) == nil && n > 0 {
			return n, ""
		}
	}
	return 0, ""
}
