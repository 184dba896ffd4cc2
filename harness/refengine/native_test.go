package refengine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func getJSON(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	raw, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(raw, &v)
	return resp.StatusCode, v
}

// A llama.cpp-like engine: the window is not stated on /v1/models, and a longer prompt is
// cut to it silently, its usage saying the window.
func TestTruncatingEngineHidesItsWindowAndCutsPrompts(t *testing.T) {
	t.Parallel()
	s := start(t, Options{MaxModelLen: 64, HideWindow: true, TruncatePrompts: true, PrefillOverhead: 1, ITL: 1, NativeInfo: NativeLlamaCpp})
	_, models := getJSON(t, s.BaseURL()+"/models")
	if card := models["data"].([]any)[0].(map[string]any); card["max_model_len"] != nil {
		t.Errorf("/v1/models states the window: %v", card)
	}
	long := chatBody(4, true, true, map[string]any{"max_tokens": 16})
	long["messages"].([]map[string]any)[1]["content"] = strings.Repeat("word ", 500) + instruction(4, "code")
	got := stream(t, s, long)
	if got.usage == nil || got.usage.PromptTokens != 64 || strings.Join(got.contents, "") != codeWords(4) {
		t.Fatalf("truncated request: usage %+v, content %q", got.usage, got.contents)
	}
	status, props := getJSON(t, s.URL+"/props")
	if settings, _ := props["default_generation_settings"].(map[string]any); status != 200 || settings["n_ctx"] != 64.0 {
		t.Errorf("/props: %d %v", status, props)
	}

	// Without truncation the same prompt is refused, as vLLM does.
	strict := start(t, Options{MaxModelLen: 64, PrefillOverhead: 1, ITL: 1})
	resp := post(t, context.Background(), strict.BaseURL()+"/chat/completions", long)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an over-long prompt without truncation: HTTP %d", resp.StatusCode)
	}
}

func TestNativeInfoEndpoints(t *testing.T) {
	t.Parallel()
	ollama := start(t, Options{MaxModelLen: 8192, NativeInfo: NativeOllama})
	resp := post(t, context.Background(), ollama.URL+"/api/show", map[string]string{"model": DefaultModel})
	var show struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&show)
	resp.Body.Close()
	if !strings.Contains(show.Parameters, "num_ctx") || !strings.Contains(show.Parameters, "8192") || show.ModelInfo["qwen2.context_length"] == nil {
		t.Errorf("/api/show: %+v", show)
	}
	sglang := start(t, Options{MaxModelLen: 8192, NativeInfo: NativeSGLang})
	for _, path := range []string{"/server_info", "/get_server_info"} {
		if status, info := getJSON(t, sglang.URL+path); status != 200 || info["context_length"] != 8192.0 {
			t.Errorf("%s: %d %v", path, status, info)
		}
	}
	if status, _ := getJSON(t, sglang.URL+"/props"); status != http.StatusNotFound {
		t.Errorf("an SGLang engine answers llama.cpp's /props: %d", status)
	}
	if _, err := Start(Options{NativeInfo: "tgi"}); err == nil {
		t.Error("an unknown NativeInfo was accepted")
	}
}
