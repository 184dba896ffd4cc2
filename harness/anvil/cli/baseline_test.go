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
func outDir(t *testing.T, id string, outcome gate.Outcome) string {
	t.Helper()
	out := t.TempDir()
	var failures []gate.Failure
	if outcome != gate.Pass {
		failures = []gate.Failure{{Suite: "engine", Check: "a check", Outcome: outcome, Message: "it failed: " + string(outcome)}}
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

// A valid run is recorded into the history, its scenarios' artifacts only, whatever its
// comparison or budgets said; a failed or an invalid one is not (said, and no error), and
// one recorded already is refused.
func TestBaselineRecordsARunIntoAHistory(t *testing.T) {
	t.Parallel()
	history := filepath.Join(t.TempDir(), "main-runs")
	code, stdout, stderr := invoke("", "baseline", outDir(t, "run-1", gate.Pass), history)
	if code != exitOK || !strings.Contains(stdout, "recorded run run-1 into "+filepath.Join(history, "run-1")+": agent 1 run, compares from 3; short-chat 1 run, compares from 3") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	for path, want := range map[string]bool{"scenarios/short-chat.json": true, "scenarios/agent.json": true,
		"scenarios/agent-baseline.json": false, "scenarios/knee.json": false, "scenarios/old.json": false} {
		if _, err := os.Stat(filepath.Join(history, "run-1", path)); (err == nil) != want {
			t.Errorf("%s recorded: %v, want %v", path, err == nil, want)
		}
	}
	invoke("", "baseline", outDir(t, "run-2", gate.Inconclusive), history)
	if _, stdout, _ := invoke("", "baseline", outDir(t, "run-3", gate.Regression), history); !strings.Contains(stdout, "short-chat 3 runs\n") {
		t.Errorf("the third run, after an inconclusive one: %s", stdout)
	}
	if code, _, stderr := invoke("", "baseline", outDir(t, "run-3", gate.Pass), history); code != exitUnjudged || !strings.Contains(stderr, "run run-3 is already recorded") {
		t.Errorf("recorded twice: exit %d, %s", code, stderr)
	}
	if code, stdout, _ := invoke("", "baseline", outDir(t, "run-4", gate.BudgetBroken), history); code != exitOK || !strings.Contains(stdout, "short-chat 4 runs") {
		t.Errorf("a run that broke a budget is a valid measurement: exit %d, %s", code, stdout)
	}
	for _, o := range []gate.Outcome{gate.RunFailed, gate.InvalidRun} {
		out := outDir(t, "run-"+string(o), o)
		if code, stdout, stderr := invoke("", "baseline", out, history); code != exitOK || !strings.Contains(stdout, "not recorded: a "+o.Text()) {
			t.Errorf("a %s: exit %d, %s%s", o, code, stdout, stderr)
		}
		if _, err := os.Stat(filepath.Join(history, "run-"+string(o))); err == nil {
			t.Errorf("a %s was recorded", o)
		}
		if code, stdout, stderr := invoke("", "baseline", "-force", out, history); code != exitOK || !strings.Contains(stdout, "recorded run ") {
			t.Errorf("a %s, forced: exit %d, %s%s", o, code, stdout, stderr)
		}
	}
	if code, _, stderr := invoke("", "baseline", t.TempDir(), history); code != exitUnjudged || !strings.Contains(stderr, "holds no verdict of a run") {
		t.Errorf("no run: exit %d, %s", code, stderr)
	}
}
