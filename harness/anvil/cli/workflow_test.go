//go:build unix

package cli

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// workflowStep is what a step of the reusable workflow runs.
type workflowStep struct {
	Name             string `json:"name"`
	If               string `json:"if"`
	Run              string `json:"run"`
	WorkingDirectory string `json:"working-directory"`
}

// workflowSteps are the steps of .github/workflows/engine-gate.yml's gate job, by name.
func workflowSteps(t *testing.T) map[string]workflowStep {
	t.Helper()
	root, err := config.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "engine-gate.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []workflowStep `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("engine-gate.yml: %v", err)
	}
	steps := map[string]workflowStep{}
	for _, s := range wf.Jobs["gate"].Steps {
		steps[s.Name] = s
	}
	return steps
}

// runner plays a GitHub runner for the workflow's shell steps: the job's environment,
// GITHUB_ENV carried from step to step, the checkouts side by side in one workspace.
type runner struct {
	t         *testing.T
	workspace string
	env       map[string]string
}

// step runs the named step's script as the runner does (bash -eo pipefail) and returns
// its exit code and output.
func (r *runner) step(steps map[string]workflowStep, name string) (int, string) {
	r.t.Helper()
	s, ok := steps[name]
	if !ok || s.Run == "" {
		r.t.Fatalf("engine-gate.yml has no step %q that runs a script", name)
	}
	script := filepath.Join(r.workspace, "step.sh")
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		r.t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = filepath.Join(r.workspace, s.WorkingDirectory)
	for k, v := range r.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, _ := cmd.CombinedOutput()
	// What the step wrote to GITHUB_ENV reaches the steps after it.
	if f, err := os.Open(r.env["GITHUB_ENV"]); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), "="); ok {
				r.env[k] = v
			}
		}
		f.Close()
		os.Remove(r.env["GITHUB_ENV"])
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// The reusable workflow's own commands, read from its YAML, run an engine repository's
// suite (testdata/engine-repo: bench/ and its scenarios file), not anvilbench's; an ANVIL_*
// variable given through its env input reaches the run; the job summary holds the verdict.
func TestTheWorkflowRunsTheEngineRepositorysSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an engine repository's suite")
	}
	steps := workflowSteps(t)
	root, _ := config.ModuleRoot()
	ws := t.TempDir()
	if out, err := exec.Command("cp", "-R", filepath.Join(root, "testdata", "engine-repo"), filepath.Join(ws, "engine")).CombinedOutput(); err != nil {
		t.Fatalf("copy the engine repository: %v %s", err, out)
	}
	edit := exec.Command("go", "mod", "edit", "-replace", "github.com/anvilbench/anvilbench="+root)
	edit.Dir = filepath.Join(ws, "engine")
	if out, err := edit.CombinedOutput(); err != nil {
		t.Fatalf("go mod edit: %v %s", err, out)
	}
	if err := os.Symlink(root, filepath.Join(ws, "anvilbench")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(ws, "tmp"), 0o755)

	engine, err := refengine.Start(refengine.Options{Model: "engine-model", MaxModelLen: 65536, PrefillOverhead: 15 * time.Millisecond,
		PrefillRate: 400_000, ITL: 2 * time.Millisecond, MaxBatch: 64, PrefixCache: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()

	r := &runner{t: t, workspace: ws, env: map[string]string{}}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, config.Prefix) && !strings.HasPrefix(k, "GITHUB_") {
			r.env[k] = v
		}
	}
	// The job's env as the workflow computes it from these inputs: base-url, packages,
	// scenarios-file, env.
	for k, v := range map[string]string{
		"BASE_URL": engine.BaseURL(), "ANVIL_BASE_URL": engine.BaseURL(),
		"ANVIL_OUT_DIR":        filepath.Join(ws, "anvil-out"),
		"ANVIL_SCENARIOS_FILE": filepath.Join(ws, "engine", "bench", "scenarios.json"),
		"ANVIL_GATE_BY":        "0.05", "ANVIL_GATE_METRICS": "", "ANVIL_MODEL": "", "ANVIL_BUDGETS": "", "ANVIL_REPEATS": "",
		"PACKAGES": "./bench", "CONFIGURED_SCENARIO": "false", "LABEL_FILTER": "", "WAIT_SECONDS": "30",
		"ENV_INPUT":   "ANVIL_ENGINE=engine-under-test\n# a comment\nANVIL_WARMUP_REQUESTS=2\n",
		"RUNNER_TEMP": filepath.Join(ws, "tmp"), "GITHUB_ENV": filepath.Join(ws, "github-env"),
		"GITHUB_STEP_SUMMARY": filepath.Join(ws, "summary.md"),
	} {
		r.env[k] = v
	}

	for _, name := range []string{"Wait for the engines to answer GET /models", "Pass the env input's ANVIL_* variables", "Build anvilbench"} {
		if code, out := r.step(steps, name); code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, out)
		}
	}
	if r.env["ANVIL_ENGINE"] != "engine-under-test" || r.env["ANVIL_WARMUP_REQUESTS"] != "2" {
		t.Fatalf("the env input did not reach the job's environment: %v", r.env)
	}
	// A busy machine may leave the client unable to keep up: the harness calls the run
	// invalid (exit 6), and the step runs again, at most three times, else the test skips.
	code, out := r.step(steps, "Run the suites")
	for try := 2; code == 6 && try <= 3; try++ {
		t.Logf("try %d: the harness called the run invalid:\n%s", try-1, verdictLine(out))
		code, out = r.step(steps, "Run the suites")
	}
	if code == 6 {
		t.Skipf("the engine repository's suite was an invalid run three times (this machine is too busy for the client to keep up): %s", verdictLine(out))
	}
	if code != 0 {
		t.Fatalf("the engine repository's suite: exit %d\n%s", code, out)
	}
	for _, f := range []string{"scenarios/short-chat.json", "scenarios/agent-16k.json", "engine/sixteen-streams.json"} {
		a, err := artifact.Read(filepath.Join(ws, "anvil-out", f))
		if err != nil {
			t.Fatalf("the run lacks the engine repository's %s: %v\n%s", f, err, out)
		}
		if a.Engine == nil || *a.Engine != "engine-under-test" {
			t.Errorf("%s: engine %v, want the env input's ANVIL_ENGINE", f, a.Engine)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "anvil-out", "capacity", "configured.json")); err == nil {
		t.Error("anvilbench's configured scenario ran though configured-scenario was not asked for")
	}
	code, out = r.step(steps, "Gate verdict")
	summary, _ := os.ReadFile(r.env["GITHUB_STEP_SUMMARY"])
	if code != 0 || !strings.Contains(string(summary), "gate: PASS, run ") || !strings.Contains(string(summary), "# ✅ PASS") {
		t.Errorf("gate verdict: exit %d\n%s\nsummary:\n%s", code, out, summary)
	}

	// Main's run is recorded among main's runs whatever its verdict (baseline keeps out a
	// failed or invalid one): the steps that record and keep it run after a failed step too.
	for _, name := range []string{"Record this run among main's runs", "Keep main's runs"} {
		if !strings.HasPrefix(steps[name].If, "always() && ") {
			t.Errorf("%q runs only %q: an inconclusive or budget-broken run of main's would not be recorded", name, steps[name].If)
		}
	}
	r.env["MAIN_RUNS"] = filepath.Join(ws, "engine", "bench", "main-runs")
	if code, out := r.step(steps, "Record this run among main's runs"); code != 0 {
		t.Fatalf("record main's run: exit %d\n%s", code, out)
	}
	recorded, _ := filepath.Glob(filepath.Join(r.env["MAIN_RUNS"], "*", "scenarios", "short-chat.json"))
	if len(recorded) != 1 {
		t.Fatalf("main's runs hold %v after one recorded run", recorded)
	}
	// A pull request is judged against main's runs, however few (a history of fewer than 3
	// is noted by the gate); a run on main against them as one of its own.
	r.env["ON_MAIN"] = "false"
	if code, out := r.step(steps, "Use main's runs as the baseline"); code != 0 || r.env["ANVIL_BASELINE"] != r.env["MAIN_RUNS"] || r.env["ANVIL_GATE_ON_MAIN"] != "" || !strings.Contains(out, "gated against main's 1 recorded runs") {
		t.Errorf("a pull request against one run of main's: exit %d, ANVIL_BASELINE %q\n%s", code, r.env["ANVIL_BASELINE"], out)
	}
	delete(r.env, "ANVIL_BASELINE")
	r.env["ON_MAIN"] = "true"
	if code, out := r.step(steps, "Use main's runs as the baseline"); code != 0 || r.env["ANVIL_BASELINE"] != r.env["MAIN_RUNS"] || r.env["ANVIL_GATE_ON_MAIN"] != "true" {
		t.Errorf("main's run against its own: exit %d, ANVIL_BASELINE %q, ANVIL_GATE_ON_MAIN %q\n%s", code, r.env["ANVIL_BASELINE"], r.env["ANVIL_GATE_ON_MAIN"], out)
	}
	delete(r.env, "ANVIL_BASELINE")
	delete(r.env, "ANVIL_GATE_ON_MAIN")
	os.RemoveAll(r.env["MAIN_RUNS"])
	if code, out := r.step(steps, "Use main's runs as the baseline"); code != 0 || r.env["ANVIL_BASELINE"] != r.env["MAIN_RUNS"] || !strings.Contains(out, "main's run 1, judged against its 0 recorded runs") {
		t.Errorf("main's first run: exit %d, ANVIL_BASELINE %q\n%s", code, r.env["ANVIL_BASELINE"], out)
	}
	delete(r.env, "ANVIL_BASELINE")
	delete(r.env, "ANVIL_GATE_ON_MAIN")
	r.env["ON_MAIN"] = "false"

	// Only ANVIL_* names pass: anything else would reach the runner's environment.
	r.env["ENV_INPUT"] = "ANVIL_GPU=H100\nLD_PRELOAD=/tmp/x.so\n"
	if code, out := r.step(steps, "Pass the env input's ANVIL_* variables"); code == 0 || !strings.Contains(out, "'LD_PRELOAD' is not ANVIL_NAME=value") {
		t.Errorf("a non-ANVIL variable in env: exit %d\n%s", code, out)
	}
}
