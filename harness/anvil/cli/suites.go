package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

// runSuites is anvilbench run: Ginkgo's CLI with args, in a process group of its own, every
// SIGINT and SIGTERM this process receives passed on to that whole group.
//
// Ginkgo's CLI keeps a signal it receives to itself and waits for the suite process
// (onsi/ginkgo#720); Ctrl-C works only because a terminal signals the whole foreground
// group. A Kubernetes pod's PID 1, a CI runner or kill(1) signals one process: when that
// process is this one, the running suite gets the signal as on Ctrl-C, stops its scenario
// and writes its artifacts. It exits with the run's verdict when that failed (withVerdict).
func runSuites(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	help := len(args) > 0 && (isHelp(args[0]) || args[0] == "help")
	if help {
		// What this command adds first; Ginkgo's own flags follow, from its CLI.
		fmt.Fprint(stdout, runUsage)
		args = []string{"help", "run"}
	}
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)

	ginkgo := getenv("ANVIL_GINKGO")
	if ginkgo == "" {
		cache, _ := os.UserCacheDir()
		var signalled os.Signal
		path, done, code, err := pinnedGinkgo(cache, func(path string) (int, error) {
			build := exec.Command("go", "build", "-o", path, ginkgoPackage)
			build.Stdout, build.Stderr = stderr, stderr
			code, sig, err := relay(build, signals, stderr, nil)
			signalled = sig
			return code, err
		})
		if done != nil {
			defer done()
		}
		switch {
		case signalled != nil:
			fmt.Fprintf(stderr, "anvilbench run: %v while building ginkgo: no suite was started\n", signalled)
			return signalExitCode(signalled)
		case err != nil:
			fmt.Fprintf(stderr, "anvilbench run: build the pinned ginkgo: %v (or set ANVIL_GINKGO to a ginkgo binary)\n", err)
			return exitUnjudged
		case code != 0:
			fmt.Fprintf(stderr, "anvilbench run: go build %s failed (is it required in go.mod?)\n", ginkgoPackage)
			return code
		}
		ginkgo = path
	}
	// No stdin: from a terminal, a group other than the foreground one that read it would
	// be stopped (SIGTTIN) and the run would hang.
	// The run's record, as the suites resolve it from the same variables: where they
	// write the verdict, and under which run id.
	environ := anvilEnviron(getenv)
	cfg, _ := config.Load(environ)
	run := cfg.Run()
	verdict := filepath.Join(run.OutDir, runrecord.SummaryFile)
	before, _ := os.Stat(verdict)
	if getenv(runrecord.PlanFileVariable) != runrecord.PlanOff && !help {
		if code, stop := refuseUnused(ginkgo, args, signals, stderr, config.Set(environ), run); stop {
			return code
		}
	}
	cmd := exec.Command(ginkgo, args...)
	var interrupted atomic.Bool
	filtered := &stackFilter{out: stdout, interrupted: &interrupted}
	cmd.Stdout, cmd.Stderr = filtered, stderr
	code, signalled, err := relay(cmd, signals, stderr, &interrupted)
	filtered.Close()
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench run: %v\n", err)
		return exitUnjudged
	}
	if signalled != nil {
		// An interrupted run exits with its verdict, as gate-status reports it: Ginkgo's
		// CLI exits 1 after an interrupt, which is the regression code.
		if v, ok := freshVerdict(verdict, before); ok {
			fmt.Fprintf(stderr, "anvilbench run: interrupted by %v: the run's verdict is %s (exit %d)\n", signalled, v.Outcome.Text(), v.ExitCode)
			return v.ExitCode
		}
		return code
	}
	return withVerdict(code, verdict, before, stderr)
}

const runUsage = `usage: anvilbench run [ginkgo flags] [PACKAGES]

Runs the suites with the Ginkgo CLI the module pins (or the binary ANVIL_GINKGO names),
as ginkgo [flags] [PACKAGES] would, and adds:
  - before any request, a dry run of the same suites that refuses an ANVIL_* variable no
    selected spec would read (a misspelt or misplaced one); ANVILBENCH_PLAN_FILE=off skips it
  - every SIGINT and SIGTERM it receives is passed to the suites, which stop their
    scenario and write its artifacts (Ginkgo's CLI keeps a signal to itself)
  - its exit code is the run's verdict when the verdict failed (1 regression, 2 not
    comparable, 3 budget broken, 4 run failed, 5 inconclusive, 6 invalid run, as
    anvilbench gate-status), an interrupted run's included; else Ginkgo's

Example:
  ANVIL_BASE_URL=http://127.0.0.1:8080/v1 ANVIL_MODEL=my-model \
    anvilbench run -r --keep-going --label-filter=configured ./suites

Ginkgo's run flags follow.

`

// freshVerdict is the verdict at path when the suites wrote it during the run (before is
// what was there when it started).
func freshVerdict(path string, before os.FileInfo) (gate.Summary, bool) {
	info, err := os.Stat(path)
	if err != nil || before != nil && info.ModTime().Equal(before.ModTime()) && info.Size() == before.Size() {
		return gate.Summary{}, false
	}
	s, err := gate.ReadSummary(path)
	return s, err == nil
}

// withVerdict is the exit code of a run whose Ginkgo CLI exited with code: the verdict's
// when the suites wrote one at path during the run (before is what was there when it
// started) and it failed, else Ginkgo's. The specs can all pass while the verdict fails
// (a budget no spec used); a CI step or a pod then fails without a gate-status after it.
func withVerdict(code int, path string, before os.FileInfo, stderr io.Writer) int {
	s, ok := freshVerdict(path, before)
	if !ok || s.ExitCode == exitOK {
		return code
	}
	if code == exitOK {
		fmt.Fprintf(stderr, "anvilbench run: the specs passed, but the run's verdict is FAIL (%s) in %s: exit %d (anvilbench gate-status says why)\n",
			s.Outcome.Text(), path, s.ExitCode)
	}
	return s.ExitCode
}

// relay runs cmd as the leader of a new process group, passes every signal from signals to
// that group (setting passed, when not nil), and returns cmd's exit code (128+n when signal
// n ended it) and the first signal it passed on, if any.
func relay(cmd *exec.Cmd, signals <-chan os.Signal, log io.Writer, passed *atomic.Bool) (code int, first os.Signal, err error) {
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return 0, nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case sig := <-signals:
			if first == nil {
				first = sig
			}
			if passed != nil {
				passed.Store(true)
			}
			fmt.Fprintf(log, "anvilbench run: %v: passing it to %s and every process it started (group %d)\n",
				sig, filepath.Base(cmd.Path), cmd.Process.Pid)
			if err := signalGroup(cmd.Process.Pid, sig); err != nil {
				fmt.Fprintf(log, "anvilbench run: pass %v on: %v\n", sig, err)
			}
		case err := <-done:
			if cmd.ProcessState == nil {
				return 0, first, fmt.Errorf("wait for %s: %w", cmd.Path, err)
			}
			return shellStatus(cmd.ProcessState), first, nil
		}
	}
}

// refuseUnused refuses, before any request, a run in which a variable of set (the ANVIL_*
// variables set) is one no selected spec would read (ANVIL_BUDGETS with a label filter
// that leaves out the scenario it budgets), and records that in run's verdict: Ginkgo
// dry-runs the same suites, each writing what its selected specs would read to a plan
// file (runrecord.SuitePlan), and a variable none names fails the run as its verdict
// would after all the requests. stop reports that the run must not
// go on, with code its exit code. A dry run that fails or finds no anvilbench suite
// decides nothing: the run itself reports what is wrong.
//
// Every suite reads some variables whatever its specs (the endpoint, the identity, where
// it writes): when only those are set, no dry run could refuse anything, and none is
// made (it costs a link of every suite, seconds on a busy machine).
func refuseUnused(ginkgo string, args []string, signals <-chan os.Signal, stderr io.Writer, set []string, run config.Run) (code int, stop bool) {
	always := config.Uses(false, false)
	if !slices.ContainsFunc(set, func(v string) bool { return !slices.Contains(always, v) }) {
		return 0, false
	}
	dir, err := os.MkdirTemp("", "anvilbench-plan-")
	if err != nil {
		return 0, false
	}
	defer os.RemoveAll(dir)
	plan := filepath.Join(dir, "plan.jsonl")
	cmd := exec.Command(ginkgo, dryRunArgs(args)...)
	cmd.Env = append(os.Environ(), runrecord.PlanFileVariable+"="+plan)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	code, signalled, err := relay(cmd, signals, stderr, nil)
	if signalled != nil {
		return code, true
	}
	if err != nil || code != 0 {
		return 0, false
	}
	data, err := os.ReadFile(plan)
	if err != nil {
		return 0, false
	}
	used := map[string]bool{}
	var suites []string
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var p runrecord.SuitePlan
		if json.Unmarshal(line, &p) != nil {
			return 0, false
		}
		suites = append(suites, p.Suite)
		for _, u := range p.Uses {
			used[u] = true
		}
	}
	var failures []gate.Failure
	for _, v := range set {
		if !used[v] {
			failures = append(failures, gate.Failure{Suite: "anvilbench run", Check: v, Kind: gate.KindRun, Outcome: gate.RunFailed,
				Message: fmt.Sprintf("%s is set but no selected spec of %s would read it: what it describes would not run (check the packages and the label filter, or unset it); no request was sent",
					v, count(len(suites), "suite"))})
		}
	}
	if len(failures) == 0 {
		return 0, false
	}
	for _, f := range failures {
		fmt.Fprintf(stderr, "anvilbench run: %s\n", f.Message)
	}
	// The run's verdict says it too, so gate-status agrees and no older pass stands.
	if _, err := gate.UpdateSummary(run.OutDir, run.ID, func(s *gate.Summary) {
		s.Failed = append(s.Failed, failures...)
	}); err != nil {
		fmt.Fprintf(stderr, "anvilbench run: write the run's verdict in %s: %v\n", run.OutDir, err)
	}
	return gate.RunFailed.ExitCode(), true
}

// dryRunArgs are args with --dry-run and without the flags that write report files: a dry
// run reports every spec as passed, and must leave no file saying so.
func dryRunArgs(args []string) []string {
	out := []string{"--dry-run"}
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if strings.HasPrefix(args[i], "-") && slices.Contains([]string{"junit-report", "json-report", "teamcity-report", "output-dir"}, name) {
			if !hasValue {
				i++ // its value is the next argument
			}
			continue
		}
		out = append(out, args[i])
	}
	return out
}
