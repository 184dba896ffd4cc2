package artifact

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/internal/wire"
)

func TestDecodeSchema(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"schema": "x"}`, `not an anvil-serving.benchmark/v1 artifact: schema "x"`},
		{`{"schema": 2, "requests": "many"}`, `not an anvil-serving.benchmark/v1 artifact: schema 2`},
		{`{"requests": 6}`, `not an anvil-serving.benchmark/v1 artifact: no schema key`},
		{`[1, 2]`, `not an anvil-serving.benchmark/v1 artifact: not a JSON object`},
		{`null`, `not an anvil-serving.benchmark/v1 artifact: no schema key`},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(tt.in))
		if !errors.Is(err, ErrNotArtifact) || err.Error() != tt.want {
			t.Errorf("Decode(%s) error = %v, want %q", tt.in, err, tt.want)
		}
	}
	// A v1 artifact with a bad field says which field.
	_, err := Decode([]byte(`{"schema": "anvil-serving.benchmark/v1", "requests": "six"}`))
	if err == nil || errors.Is(err, ErrNotArtifact) || !strings.Contains(err.Error(), "requests") {
		t.Errorf("bad field: error = %v", err)
	}
	if _, err := Decode([]byte(`{"schema": "anvil-serving.benchmark/v1"} trailing`)); err == nil {
		t.Error("trailing data accepted")
	}
}

// TestDecodeLegacy reads the shape of a 2026-07 artifact of the original tool: 12
// top-level keys, 7 metrics, no rows.
func TestDecodeLegacy(t *testing.T) {
	legacy := `{"schema": "anvil-serving.benchmark/v1", "base_url": "http://h/v1", "model": "m",
		"requests": 4, "concurrency": 2, "context_tokens": 8000, "max_tokens": 64, "completed": 4,
		"run_id": "benchmark-20260720T101010Z", "prompt_cache_mode": "shared", "shared_prefix_tokens": 8000,
		"metrics": {"ttft_p50_ms": 10.5, "ttft_p95_ms": 12.0, "e2e_p50_ms": 50.0, "e2e_p95_ms": 60.0,
		"throughput_tok_s": 40.0, "output_tokens": 256, "prefix_cache_hit_avg": 0.5},
		"failures": [{"error_type": "HTTPError", "request_index": 3}]}`
	b, err := Decode([]byte(legacy))
	if err != nil {
		t.Fatal(err)
	}
	if b.Requests != 4 || b.Metrics.TTFT.P50 == nil || *b.Metrics.TTFT.P50 != 10.5 || b.Metrics.TTFT.Samples != 0 {
		t.Errorf("decoded %+v", b)
	}
	if b.Engine != nil || b.RequestTimings != nil || len(b.Failures) != 1 || b.Failures[0].ResponseTiming.Present {
		t.Errorf("missing keys not zero: %+v", b)
	}
	// It re-encodes in the current shape: every key present.
	out, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := wire.KeyPaths(out)
	if err != nil {
		t.Fatal(err)
	}
	for path, typ := range map[string]string{"request_timings": "array", "engine": "null",
		"metrics.ttft_mean_ms": "null", "metrics.output_token_sources": "object", "failures[].error_message": "string"} {
		if paths[path] != typ {
			t.Errorf("%s is %q, want %q", path, paths[path], typ)
		}
	}
}

func TestReadSizeCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxArtifactBytes + 1); err != nil { // sparse: no disk cost
		t.Fatal(err)
	}
	f.Close()
	_, err = Read(path)
	if !errors.Is(err, errTooLarge) || !strings.Contains(err.Error(), path) {
		t.Errorf("Read of an oversized file: %v", err)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read of a missing file: %v", err)
	}
}

// TestOptionalTiming covers the three states of a failure's response_timing.
func TestOptionalTiming(t *testing.T) {
	tests := []struct {
		name, in string
		present  bool
		row      bool
	}{
		{"absent", `{"request_index": 1}`, false, false},
		{"null", `{"request_index": 1, "response_timing": null}`, true, false},
		{"row", `{"request_index": 1, "response_timing": {"e2e_ms": 12.5, "request_index": 1}}`, true, true},
	}
	for _, tt := range tests {
		var f Failure
		if err := json.Unmarshal([]byte(tt.in), &f); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if f.ResponseTiming.Present != tt.present || (f.ResponseTiming.Row != nil) != tt.row {
			t.Errorf("%s: decoded %+v", tt.name, f.ResponseTiming)
		}
		out, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]json.RawMessage
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatal(err)
		}
		raw, has := back["response_timing"]
		switch {
		case has != tt.present:
			t.Errorf("%s: re-encoded presence %v", tt.name, has)
		case tt.present && !tt.row && string(raw) != "null":
			t.Errorf("%s: re-encoded %s", tt.name, raw)
		case tt.row && !strings.Contains(string(raw), `"e2e_ms": 12.5`):
			t.Errorf("%s: re-encoded %s", tt.name, raw)
		}
	}
}
