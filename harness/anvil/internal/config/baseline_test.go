package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
)

const referenceArtifact = "../../../../testdata/reference/benchmark-v1-example.json"

// writeRun writes the reference artifact as run id of scenario started at minute, edited by
// edit, to path.
func writeRun(t *testing.T, path, id, scenario string, minute int64, edit func(*artifact.Benchmark)) {
	t.Helper()
	a, err := artifact.Read(referenceArtifact)
	if err != nil {
		t.Fatal(err)
	}
	a.StartedAtUnixNs += minute * 60e9
	a.RunID = id
	a.Extension = &artifact.Extension{Scenario: scenario}
	if edit != nil {
		edit(a)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := artifact.Write(path, a); err != nil {
		t.Fatal(err)
	}
}

// A directory or glob of earlier runs is a history of the scenario's runs, oldest first:
// other scenarios, shards, the baseline engine's side of an interleaved run, copies and
// files that are not artifacts are passed over.
func TestReadBaselineReadsAHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeRun(t, filepath.Join(dir, "run-3", "capacity", "configured.json"), "run-3", ConfiguredName, 3, nil)
	writeRun(t, filepath.Join(dir, "run-1", "capacity", "configured.json"), "run-1", ConfiguredName, 1, nil)
	writeRun(t, filepath.Join(dir, "run-2", "capacity", "configured.json"), "run-2", ConfiguredName, 2, nil)
	writeRun(t, filepath.Join(dir, "copy", "run-2", "configured.json"), "run-2", ConfiguredName, 2, nil)
	writeRun(t, filepath.Join(dir, "run-2", "capacity", "long-context.json"), "run-2", "long-context", 2, nil)
	writeRun(t, filepath.Join(dir, "run-4", "shard-0-of-2", "configured.json"), "run-4", ConfiguredName, 4, func(a *artifact.Benchmark) {
		a.Extension.Shard = &artifact.Shard{Index: 0, Count: 2}
	})
	writeRun(t, filepath.Join(dir, "run-5", "capacity", "configured-baseline.json"), "run-5", ConfiguredName, 5, func(a *artifact.Benchmark) {
		a.Extension.Interleaved = &artifact.Interleaved{Role: artifact.RoleBaseline, Pairing: "p"}
	})
	os.WriteFile(filepath.Join(dir, "run-1", "gate.json"), []byte(`{"outcome":"pass"}`), 0o644)

	for _, path := range []string{dir, filepath.Join(dir, "run-*", "capacity", "*.json")} {
		b, err := ReadBaseline(path, ConfiguredName)
		if err != nil || b.One != nil {
			t.Fatalf("%s: %v, one %v", path, err, b.One)
		}
		var ids []string
		for _, a := range b.History {
			ids = append(ids, a.RunID)
		}
		if got := strings.Join(ids, " "); got != "run-1 run-2 run-3" {
			t.Errorf("%s: history %s, want run-1 run-2 run-3", path, got)
		}
	}
	if b, err := ReadBaseline(dir, "long-context"); err != nil || len(b.History) != 1 {
		t.Errorf("long-context: %v, %d runs", err, len(b.History))
	}
	if _, err := ReadBaseline(dir, "other"); err == nil || !strings.Contains(err.Error(), "no artifact of scenario other there") {
		t.Errorf("another scenario: %v", err)
	}
	if b, err := ReadBaseline(referenceArtifact, ConfiguredName); err != nil || b.One == nil || b.History != nil {
		t.Errorf("a file: %v", err)
	}
	if _, err := ReadBaseline(filepath.Join(dir, "absent"), ConfiguredName); err == nil {
		t.Error("a missing path read")
	}
}

// ANVIL_BASELINE names a history as well as one artifact; with fewer runs than a spread
// needs the gate refuses to judge; a baseline build and a stored baseline cannot both be
// set, nor a baseline build on a sharded run.
func TestTheBaselineVariables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 4 {
		writeRun(t, filepath.Join(dir, "run-"+string(rune('a'+i)), "capacity", "configured.json"), "run-"+string(rune('a'+i)), ConfiguredName, int64(i), nil)
	}
	cfg, err := Load(map[string]string{"ANVIL_BASELINE": dir})
	if err != nil {
		t.Fatal(err)
	}
	if spec := cfg.Configured().Spec; len(spec.History) != 4 || spec.Baseline != nil || spec.Interleaved || cfg.BaselineArtifact() != nil {
		t.Errorf("history: %d runs, one %v, interleaved %v", len(spec.History), spec.Baseline, spec.Interleaved)
	}

	cfg, err = Load(map[string]string{"ANVIL_BASELINE_URL": "http://127.0.0.1:9/v1", "ANVIL_BASELINE_MODEL": "main-build", "ANVIL_BASELINE_API_KEY": "sk-baseline-0123456789", "ANVIL_REPEATS": "6"})
	if err != nil {
		t.Fatal(err)
	}
	in := cfg.Interleaving()
	if in == nil || in.Baseline.BaseURL != "http://127.0.0.1:9/v1" || in.Model != "main-build" || !in.Baseline.APIKey.IsSet() || !cfg.Configured().Spec.Interleaved {
		t.Errorf("interleaving %+v", in)
	}

	for env, want := range map[string]string{
		"ANVIL_BASELINE=" + dir + ",ANVIL_BASELINE_URL=http://127.0.0.1:9/v1": "ANVIL_BASELINE and ANVIL_BASELINE_URL: set one",
		"ANVIL_BASELINE_URL=ftp://host/v1":                                    "ANVIL_BASELINE_URL",
		"ANVIL_BASELINE_URL=http://127.0.0.1:9/v1,ANVIL_SHARD=0/2":            "ANVIL_BASELINE_URL: an interleaved run is not sharded",
		// One pair of blocks cannot be judged: refused before any request, naming the fix.
		"ANVIL_BASELINE_URL=http://127.0.0.1:9/v1":                 "ANVIL_REPEATS=1 gives 1: a comparison needs at least 2 (ABBA); set ANVIL_REPEATS=6",
		"ANVIL_BASELINE_URL=http://127.0.0.1:9/v1,ANVIL_REPEATS=2": "",
		"ANVIL_BASELINE=" + filepath.Join(dir, "none-*.json"):      "no artifact there",
	} {
		vars := map[string]string{}
		for kv := range strings.SplitSeq(env, ",") {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = v
		}
		if _, err := Load(vars); (want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", env, err, want)
		}
	}
}

// A scenario of a scenarios file names its own baseline: a history relative to the file, or
// a baseline build (baseline_url, baseline_model), the environment's build otherwise; a
// scenario with a history of its own is not interleaved with the environment's build.
func TestScenariosNameTheirBaselines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 3 {
		writeRun(t, filepath.Join(dir, "history", fmt.Sprintf("run-%d", i), "short-chat.json"), fmt.Sprintf("run-%d", i), "short-chat", int64(i), nil)
	}
	path := filepath.Join(dir, "scenarios.json")
	writeFile(t, path, `{"scenarios": [
	  {"name": "short-chat", "requests": 12, "baseline": "history"},
	  {"name": "long-chat", "requests": 12, "baseline_url": "http://127.0.0.1:7/v1", "baseline_model": "main"},
	  {"name": "agent", "requests": 12}
	]}`)
	cfg, err := Load(map[string]string{"ANVIL_SCENARIOS_FILE": path, "ANVIL_BASELINE_URL": "http://127.0.0.1:9/v1", "ANVIL_REPEATS": "4"})
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Scenarios()
	if len(s[0].History) != 3 || s[0].Interleave != nil || s[0].Interleaved {
		t.Errorf("short-chat: %d runs, interleave %v", len(s[0].History), s[0].Interleave)
	}
	if in := s[1].Interleave; in == nil || in.Baseline.BaseURL != "http://127.0.0.1:7/v1" || in.Model != "main" || !s[1].Interleaved {
		t.Errorf("long-chat: %+v", in)
	}
	if in := s[2].Interleave; in == nil || in.Baseline.BaseURL != "http://127.0.0.1:9/v1" || in.Model != "" {
		t.Errorf("agent: %+v", in)
	}
	// A scenario's own baseline build, at one pair of blocks, is refused before any request.
	writeFile(t, path, `{"scenarios": [{"name": "long-chat", "requests": 12, "baseline_url": "http://127.0.0.1:7/v1"}]}`)
	if _, err := Load(map[string]string{"ANVIL_SCENARIOS_FILE": path}); err == nil || !strings.Contains(err.Error(), "interleaved with a baseline build, repeats 1 gives 1 pairs of blocks: a comparison needs at least 2 (ABBA)") {
		t.Errorf("one pair of a scenario's own baseline build: %v", err)
	}
	writeFile(t, path, `{"scenarios": [{"name": "both", "baseline": "history", "baseline_url": "http://127.0.0.1:7/v1"},
	  {"name": "model-only", "baseline_model": "main"}]}`)
	_, err = Load(map[string]string{"ANVIL_SCENARIOS_FILE": path})
	for _, want := range []string{"scenarios[0]: set one: a baseline build to interleave with (baseline_url), or earlier runs (baseline)",
		`scenarios[0].baseline="` + filepath.Join(dir, "history") + `": no artifact of scenario both there`, "scenarios[1].baseline_url"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nlacks %q", err, want)
		}
	}
}

// On main (ANVIL_GATE_ON_MAIN) a history that does not exist yet, or holds nothing, is its
// first run: each scenario runs unjudged, noted; a pull request's run is refused for it.
func TestMainsFirstRunStartsItsHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	for _, history := range []string{filepath.Join(dir, "none-yet"), filepath.Join(dir, "empty")} {
		cfg, err := Load(map[string]string{"ANVIL_BASELINE": history, "ANVIL_GATE_ON_MAIN": "true"})
		if err != nil {
			t.Fatalf("main's first run, %s: %v", history, err)
		}
		noted := 0
		for _, c := range cfg.Configured().Spec.Checks() {
			if r := c.Judge(&artifact.Benchmark{}); r.Noted == "without a baseline yet" {
				noted++
			}
		}
		if noted == 0 {
			t.Errorf("%s: no comparison is noted without a baseline yet", history)
		}
		if _, err := Load(map[string]string{"ANVIL_BASELINE": history}); err == nil {
			t.Errorf("a pull request's run against %s was not refused", history)
		}
	}
}

// ANVIL_BASELINE as a history serves every gated scenario its own runs; one that has none
// there runs unjudged, its comparisons noted without a baseline yet. One artifact is the configured scenario's, and the
// file scenario's that wrote it.
func TestTheEnvironmentsBaselineServesEachScenario(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 3 {
		writeRun(t, filepath.Join(dir, "main", fmt.Sprintf("run-%d", i), "short-chat.json"), fmt.Sprintf("run-%d", i), "short-chat", int64(i), nil)
	}
	path := filepath.Join(dir, "scenarios.json")
	writeFile(t, path, `{"scenarios": [{"name": "short-chat", "requests": 12}, {"name": "agent", "requests": 12}]}`)
	cfg, err := Load(map[string]string{"ANVIL_SCENARIOS_FILE": path, "ANVIL_BASELINE": filepath.Join(dir, "main")})
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Scenarios()
	if len(s[0].History) != 3 || len(s[0].Refusals(12, 1)) != 0 {
		t.Errorf("short-chat: %d runs, refusals %+v", len(s[0].History), s[0].Refusals(12, 1))
	}
	// A scenario new to the history runs, its comparisons skipped and noted: no baseline yet.
	for name, sp := range map[string]gate.Spec{"agent": s[1].Spec, "configured": cfg.Configured().Spec} {
		if r := sp.Refusals(12, 1); len(r) != 0 {
			t.Errorf("%s: refused %+v", name, r)
		}
		noted := 0
		for _, c := range sp.Checks() {
			if r := c.Judge(&artifact.Benchmark{}); c.Kind == gate.KindRegression && (r.Noted != "without a baseline yet" || !strings.Contains(r.Skipped, "holds no earlier run of this scenario")) {
				t.Errorf("%s: %s: %+v", name, c.Name, r)
			} else if r.Noted == "without a baseline yet" {
				noted++
			}
		}
		if noted == 0 {
			t.Errorf("%s: no check notes that it has no baseline yet", name)
		}
	}

	one := filepath.Join(dir, "main", "run-1", "short-chat.json")
	cfg, err = Load(map[string]string{"ANVIL_SCENARIOS_FILE": path, "ANVIL_BASELINE": one})
	if err != nil {
		t.Fatal(err)
	}
	s = cfg.Scenarios()
	if s[0].Baseline == nil || s[1].Baseline != nil || s[1].BaselinePath != "" || cfg.Configured().Baseline == nil {
		t.Errorf("one artifact: short-chat %v, agent %v %q, configured %v", s[0].Baseline != nil, s[1].Baseline != nil, s[1].BaselinePath, cfg.Configured().Baseline != nil)
	}
}
