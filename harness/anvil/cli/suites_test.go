//go:build unix

package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

// The test binary also plays the processes of a run, chosen by ANVIL_TEST_ROLE: anvilbench
// itself; a ginkgo CLI that, as Ginkgo's does, keeps every signal to itself and waits for
// its suite; and a suite that writes down the signal it got and exits with a code naming it.
func TestMain(m *testing.M) {
	switch os.Getenv("ANVIL_TEST_ROLE") {
	case "anvilbench":
		os.Unsetenv("ANVIL_TEST_ROLE")
		os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
	case "ginkgo":
		os.Exit(fakeGinkgo())
	case "suite":
		os.Exit(fakeSuite())
	case "engine":
		os.Exit(fakeEngine())
	}
	os.Exit(m.Run())
}

func fakeGinkgo() int {
	swallowed := make(chan os.Signal, 4)
	signal.Notify(swallowed, os.Interrupt, syscall.SIGTERM)
	suite := exec.Command(os.Args[0])
	suite.Env = append(os.Environ(), "ANVIL_TEST_ROLE=suite")
	suite.Stdout, suite.Stderr = os.Stdout, os.Stderr
	suite.Run()
	return suite.ProcessState.ExitCode()
}

// fakeSuite exits 3 on SIGINT, 4 on SIGTERM, 9 when no signal came within 30 s; with
// ANVIL_TEST_VERDICT, on a signal it writes a run-failed verdict there and exits 1, as an
// interrupted Ginkgo suite does.
func fakeSuite() int {
	got := make(chan os.Signal, 1)
	signal.Notify(got, os.Interrupt, syscall.SIGTERM)
	os.WriteFile(os.Getenv("ANVIL_TEST_READY"), []byte("running"), 0o644)
	select {
	case sig := <-got:
		fmt.Printf("suite: got %v\n", sig)
		if dir := os.Getenv("ANVIL_TEST_VERDICT"); dir != "" {
			// As an anvilbench suite does: the interrupted run's verdict, then Ginkgo's 1.
			gate.UpdateSummary(dir, os.Getenv("ANVIL_RUN_ID"), func(s *gate.Summary) {
				s.Failed = append(s.Failed, gate.Failure{Suite: "fake", Check: "interrupted", Kind: gate.KindRun, Outcome: gate.RunFailed, Message: "interrupted"})
			})
			return 1
		}
		if sig == os.Interrupt {
			return 3
		}
		return 4
	case <-time.After(30 * time.Second):
		return 9
	}
}

// A signal sent to anvilbench run alone, as a pod's PID 1 or a CI runner gets it, reaches
// the suite that Ginkgo's CLI runs; the run exits with the verdict the interrupted suite
// wrote (gate-status's code), else with the suite's own exit code.
func TestRunPassesASignalToTheSuite(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sig     syscall.Signal
		verdict bool
	}{{syscall.SIGINT, false}, {syscall.SIGTERM, false}, {syscall.SIGTERM, true}, {syscall.SIGINT, true}} {
		sig := c.sig
		name := sig.String()
		if c.verdict {
			name += " with a verdict"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ginkgo := filepath.Join(dir, "ginkgo")
			script := fmt.Sprintf("#!/bin/sh\nANVIL_TEST_ROLE=ginkgo exec %q \"$@\"\n", os.Args[0])
			if err := os.WriteFile(ginkgo, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			ready := filepath.Join(dir, "ready")
			var out bytes.Buffer
			cmd := exec.Command(os.Args[0], "run", "-r", "./suites")
			cmd.Env = append(os.Environ(), "ANVIL_TEST_ROLE=anvilbench", "ANVIL_GINKGO="+ginkgo, "ANVIL_TEST_READY="+ready,
				"ANVIL_OUT_DIR="+filepath.Join(dir, "out"), "ANVIL_RUN_ID=run-interrupted")
			if c.verdict {
				cmd.Env = append(cmd.Env, "ANVIL_TEST_VERDICT="+filepath.Join(dir, "out"))
			}
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if _, err := os.Stat(ready); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the suite never started:\n%s", out.String())
				}
			}
			sent := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("anvilbench run still running 20 s after %v:\n%s", sig, out.String())
			}
			// Without a verdict, the suite's own code comes back; with one, the verdict's:
			// run failed, 4, where Ginkgo's CLI exits 1, the regression code.
			want := map[syscall.Signal]int{syscall.SIGINT: 3, syscall.SIGTERM: 4}[sig]
			if c.verdict {
				want = gate.RunFailed.ExitCode()
			}
			if code := cmd.ProcessState.ExitCode(); code != want {
				t.Errorf("exit code %d, want %d\n%s", code, want, out.String())
			}
			for _, line := range []string{"anvilbench run: " + sig.String() + ": passing it to ginkgo and every process it started", "suite: got " + sig.String()} {
				if !strings.Contains(out.String(), line) {
					t.Errorf("output lacks %q:\n%s", line, out.String())
				}
			}
			t.Logf("%v: the suite exited %v after the signal", sig, time.Since(sent).Round(time.Millisecond))
		})
	}
}

// Exit codes come back as a shell reports them, 128+n after signal n.
func TestRunReturnsGinkgosStatus(t *testing.T) {
	t.Parallel()
	cases := []struct {
		script string
		code   int
	}{
		{"exit 0", 0},
		{"exit 1", 1},
		{"kill -KILL $$", 128 + 9},
	}
	for _, c := range cases {
		dir := t.TempDir()
		ginkgo := filepath.Join(dir, "ginkgo")
		os.WriteFile(ginkgo, []byte("#!/bin/sh\n"+c.script+"\n"), 0o755)
		code, _, stderr := invokeEnv(map[string]string{"ANVIL_GINKGO": ginkgo}, "run", "-r")
		if code != c.code {
			t.Errorf("ginkgo that runs %q: exit %d, want %d (%s)", c.script, code, c.code, stderr)
		}
	}
	code, _, stderr := invokeEnv(map[string]string{"ANVIL_GINKGO": filepath.Join(t.TempDir(), "absent")}, "run")
	if code != exitUnjudged || !strings.Contains(stderr, "anvilbench run: start ") {
		t.Errorf("absent ginkgo: exit %d, %q", code, stderr)
	}
}

func invokeEnv(env map[string]string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Run(args, &out, &errOut, func(k string) string { return env[k] })
	return code, out.String(), errOut.String()
}

// The specs can all pass while the run's verdict fails (a budget no spec used): run exits
// with the verdict's code, and a verdict left from an earlier run is not this run's.
func TestRunExitsWithTheVerdictsCode(t *testing.T) {
	t.Parallel()
	out, staged := t.TempDir(), t.TempDir()
	if _, err := gate.UpdateSummary(staged, "run-test", func(s *gate.Summary) {
		s.FinishSuite("engine", 3, []gate.Failure{{Suite: "engine", Check: "a budget", Outcome: gate.BudgetBroken, Message: "tpot p50 5ms exceeds 1ms"}}, nil)
	}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writes := filepath.Join(dir, "writes-verdict")
	os.WriteFile(writes, []byte(fmt.Sprintf("#!/bin/sh\ncp %q %q\nexit 0\n", filepath.Join(staged, runrecord.SummaryFile), out)), 0o755)
	code, _, stderr := invokeEnv(map[string]string{"ANVIL_GINKGO": writes, "ANVIL_OUT_DIR": out}, "run", "-r")
	if want := gate.BudgetBroken.ExitCode(); code != want || !strings.Contains(stderr, "the run's verdict is FAIL (budget broken)") {
		t.Errorf("specs passed, verdict budget broken: exit %d, want %d; stderr %q", code, want, stderr)
	}
	// The same verdict, already there before this run started: Ginkgo's code stands.
	passes := filepath.Join(dir, "passes")
	os.WriteFile(passes, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	if code, _, stderr := invokeEnv(map[string]string{"ANVIL_GINKGO": passes, "ANVIL_OUT_DIR": out}, "run", "-r"); code != exitOK {
		t.Errorf("an earlier run's verdict decided this run's exit: %d (%s)", code, stderr)
	}
}

// A variable no selected spec would read is refused after a dry run of the suites and
// before the run itself: no request is sent, and the verdict says why.
func TestRunRefusesAVariableNoSelectedSpecReads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	ginkgo := func(uses string) string {
		path := filepath.Join(dir, "ginkgo-"+uses)
		script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >>%q\n[ -n \"$%s\" ] && echo '{\"suite\":\"engine\",\"uses\":[%s]}' >>\"$%s\"\nexit 0\n",
			calls, runrecord.PlanFileVariable, uses, runrecord.PlanFileVariable)
		os.WriteFile(path, []byte(script), 0o755)
		return path
	}
	out := filepath.Join(dir, "out")
	env := map[string]string{"ANVIL_GINKGO": ginkgo(`"ANVIL_OUT_DIR"`), "ANVIL_OUT_DIR": out, "ANVIL_BUDGETS": "tpot_p50_ms<=9"}
	code, _, stderr := invokeEnv(env, "run", "-r", "--label-filter=sessions", "--junit-report=j.xml", "./suites")
	if code != gate.RunFailed.ExitCode() || !strings.Contains(stderr, "ANVIL_BUDGETS is set but no selected spec of 1 suite would read it") {
		t.Errorf("an unused ANVIL_BUDGETS: exit %d, %q", code, stderr)
	}
	got, _ := os.ReadFile(calls)
	if string(got) != "--dry-run -r --label-filter=sessions ./suites\n" {
		t.Errorf("ginkgo was called with:\n%s\nwant one dry run, without the report flags", got)
	}
	if s, err := gate.ReadSummary(filepath.Join(out, runrecord.SummaryFile)); err != nil || s.Outcome != gate.RunFailed || len(s.Failed) != 1 {
		t.Errorf("the verdict: %+v, %v", s, err)
	}
	// Read by a selected spec: the run goes on.
	os.Remove(calls)
	env["ANVIL_GINKGO"] = ginkgo(`"ANVIL_OUT_DIR", "ANVIL_BUDGETS"`)
	if code, _, stderr := invokeEnv(env, "run", "-r", "./suites"); code != 0 {
		t.Errorf("a used ANVIL_BUDGETS: exit %d, %q", code, stderr)
	}
	if got, _ := os.ReadFile(calls); string(got) != "--dry-run -r ./suites\n-r ./suites\n" {
		t.Errorf("ginkgo was called with:\n%s", got)
	}
	// Only what every suite reads (the endpoint, the model, where it writes): no dry run
	// could refuse it, and none is made.
	os.Remove(calls)
	delete(env, "ANVIL_BUDGETS")
	env["ANVIL_BASE_URL"], env["ANVIL_MODEL"] = "http://127.0.0.1:1/v1", "m"
	if code, _, stderr := invokeEnv(env, "run", "-r", "./suites"); code != 0 {
		t.Errorf("endpoint variables alone: exit %d, %q", code, stderr)
	}
	if got, _ := os.ReadFile(calls); string(got) != "-r ./suites\n" {
		t.Errorf("ginkgo was called with:\n%s\nwant the run alone", got)
	}
}

// anvilbench run --help says what it adds to Ginkgo's CLI (the dry run, the signals, the
// verdict's exit code) before Ginkgo's own run flags.
func TestRunHelpSaysWhatItAdds(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	env := map[string]string{"ANVIL_GINKGO": "/bin/echo", "ANVIL_OUT_DIR": t.TempDir()}
	code := Run([]string{"run", "--help"}, &stdout, &stderr, func(k string) string { return env[k] })
	out := stdout.String()
	if code != 0 || !strings.HasPrefix(out, "usage: anvilbench run") || !strings.Contains(out, "ANVIL_* variable no") ||
		!strings.Contains(out, "4 run failed") || !strings.HasSuffix(out, "help run\n") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, stderr.String())
	}
}
