package stream

import (
	"context"
	"errors"
	"testing"
)

// Each engine is asked where it states its version; the first that states one wins.
func TestEngineVersionAsksEachEngineItsOwnWay(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		routes map[string]string
		want   Version
	}{
		{"ollama", map[string]string{"GET /api/version": `{"version":"0.17.4"}`}, Version{"ollama", "0.17.4", VersionFromOllama}},
		{"vllm", map[string]string{"GET /version": `{"version":"0.6.3.post1"}`}, Version{"vllm", "0.6.3.post1", VersionFromVLLM}},
		{"llama.cpp", map[string]string{"GET /props": `{"default_generation_settings":{"n_ctx":4096},"build_info":"b4567-0a1b2c3"}`}, Version{"llama.cpp", "b4567-0a1b2c3", VersionFromLlamaCpp}},
		{"sglang", map[string]string{"GET /server_info": `{"context_length":32768,"version":"0.4.1"}`}, Version{"sglang", "0.4.1", VersionFromSGLang}},
		{"sglang, older", map[string]string{"GET /get_server_info": `{"version":"0.3.0"}`}, Version{"sglang", "0.3.0", VersionFromSGLangGS}},
	}
	for _, c := range cases {
		v, err := windowServer(t, c.routes).EngineVersion(context.Background())
		if err != nil || v != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.name, v, err, c.want)
		}
	}
	// llama.cpp before build_info, or an engine that states nothing: no version, no guess.
	if _, err := windowServer(t, map[string]string{"GET /props": `{"default_generation_settings":{"n_ctx":4096}}`}).EngineVersion(context.Background()); !errors.Is(err, ErrNoVersion) {
		t.Errorf("no version stated: %v", err)
	}
}
