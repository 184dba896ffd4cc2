package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/capacity"
)

func TestDefaultsLoad(t *testing.T) {
	t.Parallel()
	cfg, err := Load(map[string]string{})
	if err != nil {
		t.Fatalf("defaults must be valid: %v", err)
	}
	if sc := cfg.Scenario; sc.Requests != 60 || sc.Concurrency != 20 || sc.ResponseWords != 32 || sc.Policy != capacity.PolicyStrict || cfg.Timeout != 15*time.Minute || !cfg.UsesEmbeddedEngine() {
		t.Fatalf("defaults %+v", cfg)
	}
}

func TestEveryProblemIsReportedAtOnceNamingItsVariable(t *testing.T) {
	t.Parallel()
	_, err := Load(map[string]string{
		"ANVIL_REQUESTS":                 "abc",
		"ANVIL_CONCURRENCY":              "0",
		"ANVIL_TIMEOUT":                  "10",
		"ANVIL_CONTROLLED_OUTPUT_POLICY": "loose",
		"ANVIL_MAX_TOKENS":               "70000",
	})
	var p problemList
	if !errors.As(err, &p) {
		t.Fatalf("err = %v, want Problems", err)
	}
	msg := err.Error()
	for _, want := range []string{`ANVIL_REQUESTS="abc": not an integer (want 1..10000)`, `ANVIL_TIMEOUT="10": not a duration`,
		"ANVIL_CONCURRENCY=0: out of range", `ANVIL_CONTROLLED_OUTPUT_POLICY="loose"`, "ANVIL_MAX_TOKENS=70000: out of range"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}

	if len(p) != 5 {
		t.Errorf("%d problems, want 5:\n%s", len(p), msg)
	}

	_, err = Load(map[string]string{
		"ANVIL_CONCURRENCY":              "0",
		"ANVIL_CONTROLLED_OUTPUT_POLICY": "loose",
		"ANVIL_MAX_TOKENS":               "70000",
		"ANVIL_CONTEXT_TOKENS":           "16",
		"ANVIL_STALL_TIMEOUT":            "2h",
		"ANVIL_CLOCK_DOMAIN_ID":          "has space",
		"ANVIL_BUDGETS":                  "tpot_p50_ms<=fast",
		"ANVIL_BASE_URL":                 "ftp://host/v1",
	})
	msg = err.Error()
	for _, want := range []string{
		"ANVIL_CONCURRENCY=0: out of range (want 1..1024)",
		`ANVIL_CONTROLLED_OUTPUT_POLICY="loose": unknown value (want strict or observe)`,
		"ANVIL_MAX_TOKENS=70000: out of range (want 1..65536)",
		"ANVIL_CONTEXT_TOKENS=16: too small",
		"ANVIL_STALL_TIMEOUT=2h0m0s: out of range",
		`ANVIL_CLOCK_DOMAIN_ID="has space"`,
		`ANVIL_BUDGETS: budget "tpot_p50_ms<=fast"`,
		`ANVIL_BASE_URL: scheme "ftp" not supported`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

func TestCombinationsAreChecked(t *testing.T) {
	t.Parallel()
	_, err := Load(map[string]string{"ANVIL_RESPONSE_WORDS": "0"})
	if err == nil || !strings.Contains(err.Error(), `ANVIL_CONTROLLED_OUTPUT_POLICY="strict": needs ANVIL_RESPONSE_WORDS > 0`) {
		t.Errorf("strict without words: %v", err)
	}
	_, err = Load(map[string]string{"ANVIL_RESPONSE_WORDS": "64", "ANVIL_MAX_TOKENS": "64"})
	if err == nil || !strings.Contains(err.Error(), "ANVIL_MAX_TOKENS=64: leaves no room") {
		t.Errorf("no room for the end token: %v", err)
	}
	_, err = Load(map[string]string{"ANVIL_MAX_CONTEXT_TOKENS": "1000"})
	if err == nil || !strings.Contains(err.Error(), "must exceed ANVIL_MAX_TOKENS + ANVIL_CONTEXT_MARGIN (1088)") {
		t.Errorf("window without head room: %v", err)
	}
}

func TestBaseURLWithCredentialsIsNeverEchoed(t *testing.T) {
	t.Parallel()
	_, err := Load(map[string]string{"ANVIL_BASE_URL": "http://user:hunter2@host:8080/v1?x=1"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v", err)
	}
}

func TestAKeyWithALineBreakIsAProblemNotEchoed(t *testing.T) {
	t.Parallel()
	_, err := Load(map[string]string{"ANVIL_API_KEY": "sk-canary-7d1e\n"})
	if err == nil || !strings.Contains(err.Error(), "ANVIL_API_KEY: the API key holds a line break") || strings.Contains(err.Error(), "canary") {
		t.Fatalf("err = %v", err)
	}
}

func TestSecretIsRedactedEverywhere(t *testing.T) {
	t.Parallel()
	const key = "sk-canary-7d1e"
	cfg, err := Load(map[string]string{"ANVIL_API_KEY": key})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(cfg)
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%q", cfg.APIKey), string(js), cfg.APIKey.GomegaString()} {
		if strings.Contains(s, key) {
			t.Fatalf("key leaked in %q", s)
		}
	}
	if cfg.APIKey.Reveal() != key {
		t.Fatal("Reveal must return the key")
	}
}

func TestOutDirIsTakenFromTheModuleRoot(t *testing.T) {
	t.Parallel()
	cfg, err := Load(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := cfg.ResolveOutDir()
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if dir != filepath.Join(root, "artifacts") {
		t.Fatalf("out dir %s, want %s/artifacts", dir, root)
	}
	cfg.OutDir = "/tmp/x"
	if dir, _ := cfg.ResolveOutDir(); dir != "/tmp/x" {
		t.Fatalf("absolute out dir changed to %s", dir)
	}
}

func TestVariablesListsEveryField(t *testing.T) {
	t.Parallel()
	vars := Variables()
	if len(vars) < 20 {
		t.Fatalf("only %d variables", len(vars))
	}
	for _, v := range vars {
		if !strings.HasPrefix(v[0], Prefix) {
			t.Errorf("%s lacks the prefix", v[0])
		}
	}
}

// Each suite runs in its own package directory, so input files named relative to where
// ginkgo runs are taken from the module root, like ANVIL_OUT_DIR.
func TestInputFilesAreTakenFromTheModuleRoot(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	cfg, err := Load(map[string]string{"ANVIL_BASELINE": "testdata/reference/benchmark-v1-example.json"})
	if err != nil {
		t.Fatalf("a baseline relative to the module root: %v", err)
	}
	if want := filepath.Join(root, "testdata", "reference", "benchmark-v1-example.json"); cfg.Baseline != want {
		t.Errorf("baseline %s, want %s", cfg.Baseline, want)
	}
	if b := cfg.BaselineArtifact(); b == nil || b.Requests != 6 {
		t.Errorf("baseline artifact as loaded: %+v", b)
	}
	if cfg, err = Load(map[string]string{"ANVIL_BASELINE_DIR": "testdata"}); err != nil || cfg.BaselineDir != filepath.Join(root, "testdata") {
		t.Errorf("a baseline directory relative to the module root: %v, %s", err, cfg.BaselineDir)
	}
	for dir, want := range map[string]string{"no/such/dir": "no such file", "testdata/reference/benchmark-v1-example.json": "not a directory"} {
		if _, err := Load(map[string]string{"ANVIL_BASELINE_DIR": dir}); err == nil || !strings.Contains(err.Error(), "ANVIL_BASELINE_DIR=") || !strings.Contains(err.Error(), want) {
			t.Errorf("ANVIL_BASELINE_DIR=%s: %v, want %q", dir, err, want)
		}
	}
	_, err = Load(map[string]string{"ANVIL_BUDGETS_FILE": "no/such/budgets.json"})
	if want := fmt.Sprintf("ANVIL_BUDGETS_FILE=%q: read budgets: open", filepath.Join(root, "no", "such", "budgets.json")); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("missing budgets file: %v, want %q", err, want)
	}
}

func TestBudgetsFileAddsToBudgets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "budgets.json")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"budgets": ["ttft_p95_ms<=1500@upper95"]}`)
	cfg, err := Load(map[string]string{"ANVIL_BUDGETS": "tpot_p50_ms<=6", "ANVIL_BUDGETS_FILE": path})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range cfg.ParsedBudgets() {
		got = append(got, b.String())
	}
	if strings.Join(got, " ") != "tpot_p50_ms<=6 ttft_p95_ms<=1500@upper95" {
		t.Errorf("budgets %q", got)
	}
	// The budgets judged are the ones validated: the file is read once, by Load.
	write(`not json`)
	if n := len(cfg.ParsedBudgets()); n != 2 {
		t.Errorf("after the file changed: %d budgets, want the 2 loaded", n)
	}

	write(`{"budgets": ["tpot_p50_ms<=fast"]}`)
	_, err = Load(map[string]string{"ANVIL_BUDGETS_FILE": path, "ANVIL_CONCURRENCY": "0"})
	var p problemList
	if !errors.As(err, &p) || len(p) != 2 {
		t.Fatalf("err = %v, want two problems", err)
	}
	if want := fmt.Sprintf(`ANVIL_BUDGETS_FILE=%q: budgets[0]: budget "tpot_p50_ms<=fast"`, path); !strings.Contains(err.Error(), want) {
		t.Errorf("message lacks %q:\n%v", want, err)
	}
}

func TestSharding(t *testing.T) {
	t.Parallel()
	cfg, err := Load(map[string]string{"ANVIL_SHARD": "1/4", "ANVIL_CLOCK_DOMAIN_ID": "rack-7", "ANVIL_START_AT": "2026-12-03T10:00:00.250Z"})
	if err != nil {
		t.Fatal(err)
	}
	shard, at := cfg.Sharding()
	if shard.Index != 1 || shard.Count != 4 || at.UnixMilli()%1000 != 250 {
		t.Errorf("shard %+v at %v", shard, at)
	}
	if g := cfg.Configured(); g.Scenario.Shard != shard || !g.Scenario.StartAt.Equal(at) {
		t.Errorf("the configured scenario is not the shard's: %+v", g.Scenario.Shard)
	}
	cfg, err = Load(map[string]string{"ANVIL_SHARDS": "3", jobCompletionIndex: "2", "ANVIL_CLOCK_DOMAIN_ID": "rack-7"})
	if shard, _ := cfg.Sharding(); err != nil || shard.Index != 2 || shard.Count != 3 {
		t.Errorf("an Indexed Job's pod: %+v %v", shard, err)
	}
	_, err = Load(map[string]string{"ANVIL_SHARD": "4/4", "ANVIL_START_AT": "10:00", "ANVIL_SHARDS": "2"})
	for _, want := range []string{"ANVIL_SHARD and ANVIL_SHARDS: set one", `ANVIL_START_AT="10:00": want RFC 3339`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v lacks %q", err, want)
		}
	}
	_, err = Load(map[string]string{"ANVIL_SHARD": "4/4"})
	if err == nil || !strings.Contains(err.Error(), `ANVIL_SHARD="4/4": want i/N`) {
		t.Errorf("an index past the count: %v", err)
	}
	_, err = Load(map[string]string{"ANVIL_SHARDS": "3"})
	if err == nil || !strings.Contains(err.Error(), "ANVIL_SHARDS=3 needs JOB_COMPLETION_INDEX") {
		t.Errorf("no index: %v", err)
	}
	_, err = Load(map[string]string{"ANVIL_SHARD": "0/2"})
	if err == nil || !strings.Contains(err.Error(), "ANVIL_CLOCK_DOMAIN_ID: required when sharding") {
		t.Errorf("no clock domain: %v", err)
	}
}

// Shards of a run can share one volume: each writes below ANVIL_OUT_DIR in its own
// directory.
func TestAShardWritesInItsOwnDirectory(t *testing.T) {
	t.Parallel()
	cfg, err := Load(map[string]string{"ANVIL_SHARD": "2/4", "ANVIL_CLOCK_DOMAIN_ID": "c", "ANVIL_OUT_DIR": "/results"})
	if err != nil {
		t.Fatal(err)
	}
	if dir, _ := cfg.ResolveOutDir(); dir != "/results/shard-2-of-4" {
		t.Errorf("out dir %s", dir)
	}
}

// The run is named, and its directory resolved, from the configuration alone, and also
// from one that is invalid, so that such a run writes its failed verdict where it was
// asked to, as the run it is: every shard of a run derives one id, a named run keeps its
// name.
func TestTheRunIsKnownFromTheConfigurationEvenAnInvalidOne(t *testing.T) {
	t.Parallel()
	shard := map[string]string{"ANVIL_SHARD": "2/4", "ANVIL_CLOCK_DOMAIN_ID": "c", "ANVIL_OUT_DIR": "/results", "ANVIL_START_AT": "2026-12-03T10:00:00.000Z"}
	cfg, err := Load(shard)
	if err != nil {
		t.Fatal(err)
	}
	if r := cfg.Run(); r.OutDir != "/results/shard-2-of-4" || r.ID != "run-20261203T100000.000Z-of-4" {
		t.Errorf("a shard's run: %+v", r)
	}
	shard["ANVIL_CONCURRENCY"] = "many"
	shard["ANVIL_API_KEY"] = "sk-kept-to-redact"
	cfg, err = Load(shard)
	if err == nil {
		t.Fatal("an invalid configuration loaded")
	}
	if r := cfg.Run(); r.OutDir != "/results/shard-2-of-4" || r.ID != "run-20261203T100000.000Z-of-4" || cfg.APIKey.Reveal() != "sk-kept-to-redact" {
		t.Errorf("an invalid configuration's run: %+v", r)
	}
	if cfg.Scenario.Requests != 0 || cfg.Configured().Scenario.Concurrency != 0 {
		t.Error("an invalid configuration holds a scenario")
	}
	cfg, _ = Load(map[string]string{"ANVIL_RUN_ID": "nightly-42", "ANVIL_OUT_DIR": "/results"})
	if r := cfg.Run(); r.ID != "nightly-42" || r.OutDir != "/results" {
		t.Errorf("a named run: %+v", r)
	}
}
