package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
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

// An interleaved run of main's build against a second start of it (A/A), recorded with
// -starts, is where the next interleaved runs find the spread between starts: each of
// three A/A runs differed by its starts (4%, 4%, 3%), and a pull request's comparison counts
// what they measured, saying so, in place of gate_restart_cv's 0.5%.
func TestTheSpreadBetweenStartsIsMeasuredAndFound(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "main-starts")
	rng := rand.New(rand.NewPCG(3, 4))
	for k, sp := range [][2]float64{{1, 1.04}, {1.04, 1}, {1, 1.03}} {
		out := t.TempDir()
		id := fmt.Sprintf("aa-%d", k)
		if _, err := gate.UpdateSummary(out, id, func(s *gate.Summary) { s.FinishSuite("capacity", 4, nil, nil) }); err != nil {
			t.Fatal(err)
		}
		cur, base := simInterleaved(rng, &engineProcess{speed: sp[1]}, &engineProcess{speed: sp[0]}, 4, 8, 0.03)
		for _, a := range []*artifact.Benchmark{cur, base} {
			a.RunID, a.Extension.RunID, a.Extension.Scenario = id, id, "configured"
		}
		os.MkdirAll(filepath.Join(out, "capacity"), 0o755)
		artifact.Write(filepath.Join(out, "capacity", "configured.json"), cur)
		artifact.Write(filepath.Join(out, "capacity", "configured-baseline.json"), base)
		if code, stdout, stderr := invoke("", "baseline", "-starts", out, starts); code != exitOK || !strings.Contains(stdout, "as two starts of one build: configured") {
			t.Fatalf("recording A/A run %d: exit %d %s%s", k, code, stdout, stderr)
		}
	}
	cfg, err := config.Load(map[string]string{"ANVIL_BASELINE_URL": "http://127.0.0.1:9/v1", "ANVIL_REPEATS": "4", "ANVIL_GATE_STARTS": starts})
	if err != nil {
		t.Fatal(err)
	}
	spec := cfg.Configured().Spec
	if spec.RestartCV < 0.015 || !strings.Contains(spec.RestartSource, "measured over 3 runs of main's build against a second start of it") {
		t.Fatalf("the spread between starts counted: %.4f, %q", spec.RestartCV, spec.RestartSource)
	}
	cur, base := simInterleaved(rng, &engineProcess{speed: 1}, &engineProcess{speed: 1}, 4, 8, 0.03)
	r := gate.NoRegression(gate.Against{Baseline: base, Metrics: 2}, "tpot_p50_ms", spec.Comparison).Judge(cur)
	if !strings.Contains(r.Message, fmt.Sprintf("counted at %.1f%%, gate_restart_cv, measured over 3 runs", 100*spec.RestartCV)) {
		t.Errorf("the verdict does not say what it counted and where from: %s", r.Message)
	}
	t.Logf("%s", r.Message)
	if _, err := config.Load(map[string]string{"ANVIL_GATE_STARTS": t.TempDir()}); err == nil || !strings.Contains(err.Error(), "anvilbench baseline -starts") {
		t.Errorf("an empty ANVIL_GATE_STARTS: %v", err)
	}
}
