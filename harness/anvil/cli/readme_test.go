//go:build unix

package cli

import (
	"encoding/xml"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/gate"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

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
// history starts; a fourth, judged against them, compares every scenario and is passed or
// inconclusive (three runs may not resolve 5%: the verdict says what they resolve and what would),
// never called slower: the engine did not change. A run the harness's own checks call
// invalid (its client could not keep up on a busy machine) is run again, up to three
// times, and the test skips saying so when none was valid.
func TestTheReadmesExampleRunsAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's example four times")
	}
	root, err := config.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	spec := readmeBlock(t, readme, "One test file, `bench/engine_suite_test.go`", "go")
	scenarios := readmeBlock(t, readme, "the scenarios beside it, `bench/scenarios.json`", "json")
	commands := readmeBlock(t, readme, "Run it with the built command", "sh")
	if formatted, err := format.Source([]byte(spec)); err != nil || string(formatted) != spec {
		t.Errorf("the README's Go spec is not gofmt'd (%v):\n%s", err, formatted)
	}
	const endpoint = "ANVIL_BASE_URL=http://127.0.0.1:8080/v1 "
	if !strings.Contains(commands, endpoint) {
		t.Fatalf("the README's commands no longer name the endpoint as %q:\n%s", endpoint, commands)
	}
	onMain := strings.ReplaceAll(commands, endpoint, "")

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
	code, out := valid("the pull request's run", "bin/anvilbench run -r --keep-going ./bench", "ANVIL_SCENARIOS_FILE=bench/scenarios.json", "ANVIL_BASELINE=bench/main-runs")
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
