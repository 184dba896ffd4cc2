package stream

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// Version sources: where an engine stated its version.
const (
	VersionFromOllama   = "ollama GET /api/version"     // version
	VersionFromVLLM     = "vllm GET /version"           // version
	VersionFromLlamaCpp = "llama.cpp GET /props"        // build_info
	VersionFromSGLang   = "sglang GET /server_info"     // version
	VersionFromSGLangGS = "sglang GET /get_server_info" // version (older releases)
)

// Version is the engine and its version as the engine stated them.
type Version struct {
	// Engine names it as its endpoint tells: "ollama", "vllm", "llama.cpp", "sglang".
	Engine string
	// Version is what it stated, verbatim ("0.17.4", "0.6.3.post1", "b4567-0a1b2c3").
	Version string
	// Source names the endpoint and field (one of the VersionFrom constants).
	Source string
}

// ErrNoVersion is returned by EngineVersion when no engine-native endpoint stated a version.
var ErrNoVersion = errors.New("no engine-native endpoint stated a version")

// EngineVersion asks the endpoints engines state their version on, beside the OpenAI API at
// the root of the base URL, in turn: Ollama's GET /api/version, vLLM's GET /version,
// llama.cpp's GET /props (build_info), SGLang's GET /server_info and /get_server_info. The
// first that states one wins; a baseline's build and the build under test are then told
// apart in the artifact, not by hand.
func (c *Client) EngineVersion(ctx context.Context) (Version, error) {
	v, err := c.engineVersion(ctx)
	return v, c.seal(err)
}

func (c *Client) engineVersion(ctx context.Context) (Version, error) {
	root := strings.TrimSuffix(c.base, "/v1")
	probes := []struct {
		path, engine, source, field string
	}{
		{"/api/version", "ollama", VersionFromOllama, "version"},
		{"/version", "vllm", VersionFromVLLM, "version"},
		{"/props", "llama.cpp", VersionFromLlamaCpp, "build_info"},
		{"/server_info", "sglang", VersionFromSGLang, "version"},
		{"/get_server_info", "sglang", VersionFromSGLangGS, "version"},
	}
	for _, p := range probes {
		fields, err := c.probeJSON(ctx, http.MethodGet, root+p.path, nil)
		if unreachable(err) {
			return Version{}, err
		}
		if err != nil {
			continue
		}
		var v string
		if json.Unmarshal(fields[p.field], &v) == nil && v != "" && len(v) <= 128 {
			return Version{Engine: p.engine, Version: v, Source: p.source}, nil
		}
	}
	return Version{}, ErrNoVersion
}
