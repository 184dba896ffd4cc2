package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/capacity"
)

func writeScenarios(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scenarios.json")
	writeFile(t, path, content)
	return path
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestScenariosTakeTheEnvironmentThenTheDefaults(t *testing.T) {
	t.Parallel()
	reference, _ := filepath.Abs(filepath.Join("..", "..", "..", "..", "testdata", "reference", "benchmark-v1-example.json"))
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "baselines"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(reference)
	if err := os.WriteFile(filepath.Join(dir, "baselines", "short-chat.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "scenarios.json")
	writeFile(t, path, `{"scenarios": [
	  {"name": "short-chat", "requests": 60, "concurrency": 32, "context_tokens": 2000, "max_tokens": 64,
	   "response_words": 32, "controlled_output_policy": "strict", "budgets": ["tpot_p50_ms<=6", "ttft_p95_ms<=1500@upper95"],
	   "baseline": "baselines/short-chat.json", "labels": ["fast"]},
	  {"name": "agent-32k", "context_tokens": 32000, "temperature": 0.6, "gate_by": 0.1},
	  {"name": "prefix-burst", "burst": 16, "prompt_cache_mode": "shared", "shared_prefix_tokens": 4000, "api": "completions",
	   "gate_metrics": ["tpot_p50_ms", "spec_accept_rate"]}
	]}`)
	cfg, err := Load(map[string]string{"ANVIL_SCENARIOS_FILE": path, "ANVIL_CONCURRENCY": "4", "ANVIL_MODEL": "m", "ANVIL_BUDGETS": "tpot_p99_ms<=9"})
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Scenarios()
	if len(s) != 3 {
		t.Fatalf("%d scenarios", len(s))
	}
	short, agent, burst := s[0], s[1], s[2]
	if short.Name != "short-chat" || short.Scenario.Concurrency != 32 || short.Scenario.ContextTokens != 2000 ||
		short.Scenario.Policy != capacity.PolicyStrict || strings.Join(short.Labels, ",") != "fast" || short.Scenario.Model != "m" {
		t.Errorf("short-chat: %+v", short)
	}
	if len(short.Budgets) != 2 || short.Budgets[1].String() != "ttft_p95_ms<=1500@upper95" {
		t.Errorf("short-chat budgets %v", short.Budgets)
	}
	// The baseline is named from the scenarios file's directory.
	if short.Baseline == nil || short.Baseline.Requests != 6 || short.BaselinePath != filepath.Join(dir, "baselines", "short-chat.json") {
		t.Errorf("short-chat baseline %s: %v", short.BaselinePath, short.Baseline)
	}
	// Unset keys: the environment's concurrency, then the defaults; budgets and baseline
	// are never inherited.
	if agent.Scenario.Concurrency != 4 || agent.Scenario.Requests != 60 || agent.Scenario.MaxTokens != 64 ||
		*agent.Scenario.Temperature != 0.6 || agent.By != 0.1 || len(agent.Budgets) != 0 || agent.BaselinePath != "" {
		t.Errorf("agent-32k: %+v", agent)
	}
	if strings.Join(agent.Metrics, ",") != "tpot_p50_ms,ttft_p50_ms" {
		t.Errorf("agent-32k gate metrics %v", agent.Metrics)
	}
	// gate_metrics as budgets are written, a list, as well as the variable's text.
	if strings.Join(burst.Metrics, ",") != "tpot_p50_ms,spec_accept_rate" {
		t.Errorf("prefix-burst gate metrics %v", burst.Metrics)
	}
	if burst.Scenario.Burst != 16 || burst.Scenario.RequestCount() != 16 || burst.Scenario.API != capacity.APICompletions {
		t.Errorf("prefix-burst: %+v", burst.Scenario)
	}
}

// The whole file is checked before any request, every problem with its position.
func TestAMalformedScenariosFileListsEveryProblem(t *testing.T) {
	t.Parallel()
	path := writeScenarios(t, `{"scenarios": [
	  {"name": "ok", "requests": 8},
	  {"name": "Bad Name", "requests": -5, "concurency": 4, "budgets": ["tpot_p50_ms<=6", "tpot_p50_ms<=fast"]},
	  {"name": "ok", "max_tokens": "many", "temperature": null, "context_tokens": null, "labels": ["a,b"], "gate_metrics": 5},
	  {"requests": 4, "controlled_output_policy": "loose", "response_words": 0, "baseline": "no/such.json"}
	]}`)
	_, err := Load(map[string]string{"ANVIL_SCENARIOS_FILE": path})
	var p problemList
	if !errors.As(err, &p) {
		t.Fatalf("err = %v, want Problems", err)
	}
	msg := err.Error()
	for _, want := range []string{
		`scenarios[1].name: want 1 to 64 of a-z 0-9 -`,
		`scenarios[1].requests=-5: out of range (want 1..10000)`,
		`scenarios[1].concurency: unknown key (did you mean concurrency?)`,
		`scenarios[1].budgets[1]: budget "tpot_p50_ms<=fast"`,
		`scenarios[2].name="ok": also the name of scenarios[0]`,
		`scenarios[2].max_tokens: want an integer, got "many"`,
		`scenarios[2].context_tokens: want an integer, got null`,
		`scenarios[2].labels[0]="a,b": want a non-empty label`,
		`scenarios[2].gate_metrics: want a string or a list of strings, got 5`,
		`scenarios[3]: no name`,
		`scenarios[3].controlled_output_policy="loose": unknown value (want strict or observe)`,
		`scenarios[3].baseline="`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "scenarios[0]") && !strings.Contains(msg, "also the name of scenarios[0]") {
		t.Errorf("the valid scenario is blamed:\n%s", msg)
	}
	if len(p) != 12 {
		t.Errorf("%d problems, want 12:\n%s", len(p), msg)
	}
}

func TestScenariosFileShape(t *testing.T) {
	t.Parallel()
	for content, want := range map[string]string{
		`{"scenarios": []}`:                                           "no scenarios",
		`{"scenario": [{"name": "a"}]}`:                               `unknown field "scenario"`,
		`[{"name": "a"}]`:                                             `want {"scenarios": [`,
		`{"scenarios": [{"name": "a"}]} {}`:                           "found more after it",
		`{"scenarios": ["short-chat"]}`:                               `scenarios[0]: want an object of scenario keys, got "short-chat"`,
		`{"scenarios": [{"name": "a", "budgets": "tpot_p50_ms<=6"}]}`: `scenarios[0].budgets: want a list of budget strings`,
		// A trailing comma, as an editor shows where: its line and column.
		"{\n  \"scenarios\": [\n    {\"name\": \"a\", \"requests\": 4,}\n  ]\n}\n": "invalid character '}' looking for beginning of object key string (line 3, column 34)",
	} {
		_, err := ParseScenarios([]byte(content), ".", mustDefaults(t))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", content, err, want)
		}
	}
}

// A scenarios file is named from the module root, like the other input files, and is
// read only over a valid environment.
func TestScenariosFileFromTheModuleRoot(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	_, err := Load(map[string]string{"ANVIL_SCENARIOS_FILE": "no/such/scenarios.json"})
	if want := fmt.Sprintf("ANVIL_SCENARIOS_FILE=%q: read scenarios: open", filepath.Join(root, "no", "such", "scenarios.json")); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("missing scenarios file: %v, want %q", err, want)
	}
	cfg, err := Load(map[string]string{"ANVIL_SCENARIOS_FILE": "testdata/scenarios/example.json"})
	if err != nil || len(cfg.Scenarios()) == 0 {
		t.Errorf("the example scenarios file: %v", err)
	}
}

func mustDefaults(t *testing.T) Config {
	t.Helper()
	cfg, err := Load(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// A trace is named relative to its scenarios file, read before any request, and every
// problem of it comes back with its line; ANVIL_TRACE_FILE names one for the configured
// scenario.
func TestTraceScenarios(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "good.jsonl"), `{"timestamp": 0, "input_length": 600, "output_length": 8, "hash_ids": [1, 2]}`+"\n")
	writeFile(t, filepath.Join(dir, "bad.jsonl"), `{"timestamp": 0, "input_length": 600, "output_length": 8, "hash_ids": [1]}`+"\n")
	path := filepath.Join(dir, "scenarios.json")
	writeFile(t, path, `{"scenarios": [{"name": "replay", "trace": "good.jsonl", "trace_speedup": 4},
	  {"name": "broken", "trace": "bad.jsonl"}, {"name": "missing", "trace": "nowhere.jsonl", "trace_speedup": -1}]}`)
	_, err := Load(map[string]string{"ANVIL_SCENARIOS_FILE": path})
	for _, want := range []string{
		`scenarios[1].trace="` + filepath.Join(dir, "bad.jsonl") + `": line 1: 1 hash ids for input_length 600`,
		`scenarios[2].trace="` + filepath.Join(dir, "nowhere.jsonl") + `": open`,
		`scenarios[2].trace_speedup=-1: out of range`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
	writeFile(t, path, `{"scenarios": [{"name": "replay", "trace": "good.jsonl", "trace_speedup": 4}]}`)
	cfg, err := Load(map[string]string{"ANVIL_SCENARIOS_FILE": path})
	if err != nil {
		t.Fatal(err)
	}
	if sc := cfg.Scenarios()[0].Scenario; sc.Trace.File != filepath.Join(dir, "good.jsonl") || sc.Trace.Speedup != 4 {
		t.Errorf("trace %q speedup %v", sc.Trace.File, sc.Trace.Speedup)
	}
	_, err = Load(map[string]string{"ANVIL_TRACE_FILE": filepath.Join(dir, "bad.jsonl")})
	if err == nil || !strings.Contains(err.Error(), "ANVIL_TRACE_FILE=") || !strings.Contains(err.Error(), "line 1:") {
		t.Errorf("ANVIL_TRACE_FILE: %v", err)
	}
}

func TestAProblemWithAnInheritedValueSaysWhereItCameFrom(t *testing.T) {
	t.Parallel()
	path := writeScenarios(t, `{"scenarios": [
	  {"name": "short", "max_tokens": 32},
	  {"name": "both", "max_tokens": 8, "response_words": 8}
	]}`)
	_, err := Load(map[string]string{"ANVIL_SCENARIOS_FILE": path, "ANVIL_RESPONSE_WORDS": "40"})
	if err == nil {
		t.Fatal("max_tokens below the inherited response_words was accepted")
	}
	msg := err.Error()
	want := `scenarios[0].max_tokens=32: leaves no room for scenarios[0].response_words=40 words and the end token (want > 40) (response_words: not in the scenario, from ANVIL_RESPONSE_WORDS or its default)`
	if !strings.Contains(msg, want) {
		t.Errorf("message lacks\n%s\n in:\n%s", want, msg)
	}
	if !strings.Contains(msg, `scenarios[1].max_tokens=8: leaves no room`) || strings.Contains(msg, "scenarios[1].max_tokens=8: leaves no room for scenarios[1].response_words=8 words and the end token (want > 8) (") {
		t.Errorf("the scenario that set both keys is not named plainly:\n%s", msg)
	}
}
