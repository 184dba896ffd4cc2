package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// outDir writes a run's output directory as the suites leave it: a verdict and the
// artifacts of two scenarios, a self-test's, an interleaved baseline build's and an
// earlier run's leftover.
func outDir(t *testing.T, id string, failed bool) string {
	t.Helper()
	out := t.TempDir()
	var failures []gate.Failure
	if failed {
		failures = []gate.Failure{{Suite: "engine", Check: "a budget", Outcome: gate.BudgetBroken, Message: "tpot p50 9ms exceeds 6ms"}}
	}
	if _, err := gate.UpdateSummary(out, id, func(s *gate.Summary) { s.FinishSuite("engine", 4, failures, nil) }); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(out, "scenarios"), 0o755)
	for _, a := range []struct {
		path, scenario, run string
		edit                func(*artifact.Extension)
	}{
		{"scenarios/short-chat.json", "short-chat", id, nil},
		{"scenarios/agent.json", "agent", id, nil},
		{"scenarios/agent-baseline.json", "agent", id, func(x *artifact.Extension) { x.Interleaved = &artifact.Interleaved{Role: artifact.RoleBaseline} }},
		{"scenarios/knee.json", "knee", id, func(x *artifact.Extension) { x.SelfTest = true }},
		{"scenarios/old.json", "old", "run-earlier", nil},
	} {
		variant(t, out, a.path, func(b *artifact.Benchmark) {
			b.RunID, b.Extension = a.run, &artifact.Extension{Scenario: a.scenario, RunID: a.run}
			if a.edit != nil {
				a.edit(b.Extension)
			}
		})
	}
	return out
}

// A passing run is recorded into the history, its scenarios' artifacts only; a failed
// one, or one recorded already, is refused.
func TestBaselineRecordsARunIntoAHistory(t *testing.T) {
	t.Parallel()
	history := filepath.Join(t.TempDir(), "main-runs")
	code, stdout, stderr := invoke("", "baseline", outDir(t, "run-1", false), history)
	if code != exitOK || !strings.Contains(stdout, "recorded run run-1 into "+filepath.Join(history, "run-1")+": agent 1 run, compares from 3; short-chat 1 run, compares from 3") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	for path, want := range map[string]bool{"scenarios/short-chat.json": true, "scenarios/agent.json": true,
		"scenarios/agent-baseline.json": false, "scenarios/knee.json": false, "scenarios/old.json": false} {
		if _, err := os.Stat(filepath.Join(history, "run-1", path)); (err == nil) != want {
			t.Errorf("%s recorded: %v, want %v", path, err == nil, want)
		}
	}
	invoke("", "baseline", outDir(t, "run-2", false), history)
	if _, stdout, _ := invoke("", "baseline", outDir(t, "run-3", false), history); !strings.Contains(stdout, "short-chat 3 runs\n") {
		t.Errorf("the third run: %s", stdout)
	}
	if code, _, stderr := invoke("", "baseline", outDir(t, "run-3", false), history); code != exitUnjudged || !strings.Contains(stderr, "run run-3 is already recorded") {
		t.Errorf("recorded twice: exit %d, %s", code, stderr)
	}
	failed := outDir(t, "run-4", true)
	if code, _, stderr := invoke("", "baseline", failed, history); code != exitUnjudged || !strings.Contains(stderr, "run run-4 failed (budget broken: ") {
		t.Errorf("a failed run: exit %d, %s", code, stderr)
	}
	if code, _, stderr := invoke("", "baseline", "-force", failed, history); code != exitOK {
		t.Errorf("a failed run, forced: exit %d, %s", code, stderr)
	}
	if code, _, stderr := invoke("", "baseline", t.TempDir(), history); code != exitUnjudged || !strings.Contains(stderr, "holds no verdict of a run") {
		t.Errorf("no run: exit %d, %s", code, stderr)
	}
}
