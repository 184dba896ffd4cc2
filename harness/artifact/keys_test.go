package artifact

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// TestKeySetMatchesReference encodes the decoded reference and compares the key set and
// the JSON type of every value, at every path, with the reference file itself. The byte
// comparison in TestReferenceRoundTrip implies this; this test says what differs.
func TestKeySetMatchesReference(t *testing.T) {
	ref := readReference(t)
	want, err := wire.KeyPaths(ref)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Encode(referenceBenchmark(t))
	if err != nil {
		t.Fatal(err)
	}
	got, err := wire.KeyPaths(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[p]; !ok {
			t.Errorf("missing %s (%s)", p, want[p])
		} else if g != want[p] {
			t.Errorf("%s is %s, want %s", p, g, want[p])
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			t.Errorf("extra %s (%s)", p, got[p])
		}
	}
	// The sections the brief names, with their key counts from capacity-spec.md §1.
	for prefix, n := range map[string]int{
		"": 41, "metrics.": 159, "metric_population.": 10, "request_timings[].": 20,
		"request_timings[].controlled_output.": 7, "sampling.": 2, "sampling.temperature.": 3,
		"serve_flags.": 4, "timing_methodology.": 13,
	} {
		if c := countChildren(got, prefix); c != n {
			t.Errorf("%q has %d keys, want %d", prefix, c, n)
		}
	}
}

// countChildren counts the paths directly below prefix ("" for the top level).
func countChildren(paths map[string]string, prefix string) int {
	n := 0
	for p := range paths {
		rest, ok := strings.CutPrefix(p, prefix)
		if ok && rest != "" && !strings.ContainsAny(rest, ".[") {
			n++
		}
	}
	return n
}

// TestEmptyPopulation encodes the shape of a run in which every request failed
// (capacity-spec.md §6.4): every statistic null with samples 0, output_token_sources {}
// and the collections empty rather than null.
func TestEmptyPopulation(t *testing.T) {
	b := &Benchmark{
		Schema:   Schema,
		Requests: 2,
		Failed:   2,
		Failures: []Failure{
			{RequestIndex: 0, ErrorType: "URLError", FailureClass: FailureRequestError},
			{RequestIndex: 1, ErrorType: "ValueError", FailureClass: FailureControlledOutput,
				ResponseReceived: true, ResponseTiming: OptionalTiming{Present: true},
				ResponseMetadata: &ResponseMetadata{OutputTokenSource: "usage"}},
		},
		Metrics: Metrics{OutputTokens: new(0)},
	}
	out, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Metrics        map[string]json.RawMessage
		RequestTimings json.RawMessage `json:"request_timings"`
		Failures       []map[string]json.RawMessage
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Metrics) != 159 {
		t.Errorf("%d metrics keys, want 159", len(doc.Metrics))
	}
	for _, key := range metricKeys {
		raw := string(doc.Metrics[key])
		if f, _ := LookupFigure(key); f.Stat != "" {
			stat := f.Stat
			want := "null"
			if stat == "samples" {
				want = "0"
			}
			if raw != want {
				t.Errorf("%s = %s, want %s", key, raw, want)
			}
		}
	}
	for key, want := range map[string]string{
		"output_token_sources": "{}", "output_tokens": "0", "prompt_tokens": "null",
		"throughput_tok_s": "null", "controlled_output_exact_adherence_rate": "null",
		"throughput_performance_eligible": "false", "content_chunks": "0",
	} {
		if got := string(doc.Metrics[key]); got != want {
			t.Errorf("%s = %s, want %s", key, got, want)
		}
	}
	text := string(out)
	for _, want := range []string{`"output_token_sources": {}`, `"request_timings": []`,
		`"context_distribution": {}`, `"p99_samples_by_metric": {}`, `"finish_reasons": []`,
		`"response_timing": null`} {
		if !strings.Contains(text, want) {
			t.Errorf("encoding lacks %s", want)
		}
	}
	if _, ok := doc.Failures[0]["response_timing"]; ok {
		t.Error("absent response_timing was written")
	}
	// And it reads back.
	back, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	if back.Metrics.TTFT.Samples != 0 || back.Metrics.TTFT.P50 != nil || !back.Failures[1].ResponseTiming.Present {
		t.Errorf("decoded %+v", back)
	}
}
