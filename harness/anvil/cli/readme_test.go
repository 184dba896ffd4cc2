//go:build unix

package cli

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

// readReadme is the module's root and its README.md.
func readReadme(t *testing.T) (root, readme string) {
	t.Helper()
	root, err := config.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return root, string(data)
}

// readmeBlock is the first fenced block of lang after the line containing after.
func readmeBlock(t *testing.T, readme, after, lang string) string {
	t.Helper()
	i := strings.Index(readme, after)
	if i < 0 {
		t.Fatalf("README.md no longer says %q", after)
	}
	rest := readme[i:]
	open := "```" + lang + "\n"
	j := strings.Index(rest, open)
	if j < 0 {
		t.Fatalf("README.md has no %s block after %q", lang, after)
	}
	body := rest[j+len(open):]
	return body[:strings.Index(body, "```")]
}

// The README's example is a test: its Go spec, its scenarios file and its commands, taken
// from README.md, run as written against the embedded engine (its one edit: no
// ANVIL_BASE_URL). Three runs on main are recorded as baselines, as the README says a
// history starts (each judged against main's runs as one of its own); a pull request's,
// judged against them, is told before any request what they resolve, compares every scenario and is passed or
// inconclusive (three runs may not resolve 5%: the verdict says what they resolve and what would),
// never called slower: the engine did not change. A run the harness's own checks call
// invalid (its client could not keep up on a busy machine) is run again, up to three
// times, and the test skips saying so when none was valid.
func TestTheReadmesExampleRunsAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's example four times")
	}
	root, readme := readReadme(t)
	spec := readmeBlock(t, readme, "One test file, `bench/engine_suite_test.go`", "go")
	scenarios := readmeBlock(t, readme, "the scenarios beside it, `bench/scenarios.json`", "json")
	commands := readmeBlock(t, readme, "Run it built, which exits", "sh")
	if formatted, err := format.Source([]byte(spec)); err != nil || string(formatted) != spec {
		t.Errorf("the README's Go spec is not gofmt'd (%v):\n%s", err, formatted)
	}
	const endpoint = "ANVIL_BASE_URL=http://127.0.0.1:8080/v1 "
	if !strings.Contains(commands, endpoint) {
		t.Fatalf("the README's commands no longer name the endpoint as %q:\n%s", endpoint, commands)
	}
	onMain := strings.ReplaceAll(commands, endpoint, "")
	// The pull request's run is main's command without ANVIL_GATE_ON_MAIN, recording nothing.
	var pullRequest []string
	for _, line := range strings.Split(onMain, "\n") {
		if !strings.Contains(line, "anvilbench baseline ") {
			pullRequest = append(pullRequest, strings.ReplaceAll(line, "ANVIL_GATE_ON_MAIN=true ", ""))
		}
	}
	if !strings.Contains(onMain, "ANVIL_GATE_ON_MAIN=true bin/anvilbench run ") || strings.Contains(strings.Join(pullRequest, "\n"), "GATE_ON_MAIN") {
		t.Fatalf("the README's commands no longer run main's run with ANVIL_GATE_ON_MAIN=true:\n%s", commands)
	}

	mod := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(root, "testdata", "engine-repo", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(mod, f), data, 0o644)
	}
	os.MkdirAll(filepath.Join(mod, "bench"), 0o755)
	os.WriteFile(filepath.Join(mod, "bench", "engine_suite_test.go"), []byte(spec), 0o644)
	os.WriteFile(filepath.Join(mod, "bench", "scenarios.json"), []byte(scenarios), 0o644)
	sh := func(script string, env ...string) (int, string) {
		cmd := exec.Command("bash", "-eo", "pipefail", "-c", script)
		cmd.Dir = mod
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, config.Prefix) {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, env...)
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := sh("go mod edit -replace github.com/anvilbench/anvilbench=" + root); code != 0 {
		t.Fatal(out)
	}

	// valid runs script until the harness calls the run valid (not exit 6, an invalid run),
	// at most three times; it skips the test, saying why, when it never does.
	valid := func(what, script string, env ...string) (int, string) {
		var code int
		var out string
		for try := 1; try <= 3; try++ {
			if code, out = sh(script, env...); code != 6 {
				return code, out
			}
			t.Logf("%s, try %d: the harness called the run invalid:\n%s", what, try, verdictLine(out))
		}
		t.Skipf("%s was an invalid run three times (this machine is too busy for the client to keep up): %s", what, verdictLine(out))
		return code, out
	}
	for run := 1; run <= 3; run++ {
		code, out := valid(fmt.Sprintf("main's run %d", run), onMain)
		if code != 0 || !strings.Contains(out, "recorded run ") {
			t.Fatalf("main's run %d as the README has it: exit %d\n%s", run, code, out)
		}
	}
	// The pull request's run, judged against main's three.
	code, out := valid("the pull request's run", strings.Join(pullRequest, "\n"))
	if code == 1 {
		// The history design's own false alarm (about 1% of comparisons): asked again once,
		// so the example fails only when the unchanged engine is called slower twice.
		t.Logf("the unchanged engine called slower, asked again: %s", verdictLine(out))
		code, out = valid("the pull request's run, again", strings.Join(pullRequest, "\n"))
	}
	if code != 0 && code != 5 {
		t.Fatalf("the pull request's run against main's history: exit %d, want 0 (held) or 5 (inconclusive)\n%s", code, out)
	}
	s, err := gate.ReadSummary(filepath.Join(mod, "artifacts", runrecord.SummaryFile))
	if err != nil || s.ExitCode != code {
		t.Fatalf("verdict %+v, %v", s, err)
	}
	if v := verdictLine(out); code == 5 && !(strings.Contains(v, " resolves ") && (strings.Contains(v, " would") || strings.Contains(v, "no history can"))) {
		t.Errorf("an inconclusive verdict that does not name the history that would resolve it:\n%s", verdictLine(out))
	}
	if code == 5 && !strings.Contains(out, "anvilbench preflight: scenario short-chat: its history of 3 runs resolves ") && !strings.Contains(out, "anvilbench preflight: scenario agent-32k: its history of 3 runs resolves ") {
		t.Errorf("the pull request was not told before any request what main's 3 runs resolve:\n%s", out)
	}
	t.Logf("the pull request's run against main's three: %s", verdictLine(out))
	junit, err := os.ReadFile(filepath.Join(mod, "artifacts", "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var cases struct {
		Cases []struct {
			Name    string    `xml:"name,attr"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(junit, &cases); err != nil {
		t.Fatal(err)
	}
	compared := map[string]bool{}
	for _, c := range cases.Cases {
		for _, sc := range []string{"short-chat", "agent-32k"} {
			if strings.Contains(c.Name, "scenario "+sc+" does not regress ") && c.Skipped == nil {
				compared[sc] = true
			}
		}
	}
	if len(compared) != 2 {
		t.Errorf("scenarios compared with main's runs: %v, want both\n%s", compared, junit)
	}
}

// verdictLine is the verdict a run printed ("anvilbench: run ..., verdict ...").
func verdictLine(out string) string {
	var last string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, ", verdict after suite ") {
			last = strings.TrimSpace(line)
		}
	}
	return last
}

// The README's other snippets judge as written: the variables of "Measuring an engine from
// this repository" pass the configuration's own validation (a baseline URL without the
// repeats a comparison needs would be refused there, before any request), and every input
// the "In CI" workflow snippet passes is one engine-gate.yml declares, with the repeats a
// baseline-url needs.
func TestTheReadmesOtherSnippetsJudgeAsWritten(t *testing.T) {
	t.Parallel()
	root, readme := readReadme(t)

	measuring := readmeBlock(t, readme, "## Measuring an engine from this repository", "sh")
	env := map[string]string{}
	for _, m := range regexp.MustCompile(`(ANVIL_[A-Z0-9_]+)=('[^']*'|\S+)`).FindAllStringSubmatch(measuring, -1) {
		env[m[1]] = strings.Trim(m[2], "'")
	}
	if env["ANVIL_BASELINE_URL"] == "" || len(env) < 8 {
		t.Fatalf("the snippet's variables are not read: %v", env)
	}
	if _, err := config.Load(env); err != nil {
		t.Errorf("the README's measuring snippet is refused by the configuration: %v", err)
	}
	delete(env, "ANVIL_REPEATS")
	if _, err := config.Load(env); err == nil || !strings.Contains(err.Error(), "ANVIL_REPEATS") {
		t.Errorf("without ANVIL_REPEATS the snippet is not refused naming it: %v", err)
	}

	var snippet struct {
		Jobs map[string]struct {
			Uses string            `json:"uses"`
			With map[string]string `json:"with"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(readmeBlock(t, readme, "## In CI", "yaml")), &snippet); err != nil {
		t.Fatalf("the README's workflow snippet: %v", err)
	}
	wf, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "engine-gate.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// YAML 1.1 reads the key on as true.
	var top map[string]json.RawMessage
	if err := yaml.Unmarshal(wf, &top); err != nil {
		t.Fatal(err)
	}
	var declared struct {
		WorkflowCall struct {
			Inputs map[string]any `json:"inputs"`
		} `json:"workflow_call"`
	}
	on := top["on"]
	if on == nil {
		on = top["true"]
	}
	if err := json.Unmarshal(on, &declared); err != nil {
		t.Fatal(err)
	}
	if len(declared.WorkflowCall.Inputs) < 10 {
		t.Fatalf("engine-gate.yml declares %d inputs; the read is broken", len(declared.WorkflowCall.Inputs))
	}
	job := snippet.Jobs["anvil"]
	if !strings.Contains(job.Uses, ".github/workflows/engine-gate.yml") || len(job.With) < 5 {
		t.Fatalf("the README's workflow snippet: %+v", job)
	}
	for input := range job.With {
		if _, ok := declared.WorkflowCall.Inputs[input]; !ok {
			t.Errorf("the README's workflow snippet passes %q, which engine-gate.yml does not declare", input)
		}
	}
	if job.With["baseline-url"] != "" {
		if n, err := strconv.Atoi(job.With["repeats"]); err != nil || n < 2 {
			t.Errorf("the README's workflow snippet sets baseline-url with repeats %q: a comparison needs at least 2", job.With["repeats"])
		}
	}
}
