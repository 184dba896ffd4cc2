// Command anvilbench works with anvil-serving.benchmark/v1 artifacts outside the suites.
//
//	anvilbench compare [flags] OLD NEW.json
//	anvilbench baseline [-force] OUT_DIR HISTORY_DIR
//	anvilbench history [flags] PATH...
//	anvilbench gate-status [OUT_DIR or gate.json]
//	anvilbench merge -o OUT.json SHARD.json...
//	anvilbench judge [flags] ARTIFACT.json
//	anvilbench report [flags] OUT_DIR
//	anvilbench run [ginkgo flags] [PACKAGES]
//
// compare judges a current artifact against a baseline of the same workload (one stored
// run, a history of runs, or the baseline engine's side of an interleaved run) and exits 0
// when no metric regressed, 1 when one did, 2 when the two cannot be compared or an input
// is bad, and 5 when the samples cannot resolve a change of the gate's size (the reason on
// stderr). See compare -h for the flags. baseline records a passing run's artifacts as one
// more run of a history of baselines. history prints each metric over earlier runs with
// where its level changed, and with -current judges a run against them.
//
// gate-status reads the verdict of the run in ANVIL_OUT_DIR and exits with its code: 0
// pass, 1 regression, 2 not comparable, 3 budget broken, 4 the run itself failed,
// 5 inconclusive, 6 invalid run (the client could not keep up, or the engine served other
// work). Run it built, not with go run: go run exits 1 whatever the program's status.
//
// merge recomputes one artifact of a sharded run from its shards' artifacts, and exits 2
// when they are not one run's. judge gates an artifact (a merged one) as the gated specs
// gate a run, with gate-status's exit codes. report writes an output directory's
// report.html and report.md, as the suites do at the end of a run.
//
// run runs the Ginkgo CLI the module pins (or the binary ANVIL_GINKGO names) with its
// arguments, in a process group of its own, and passes every SIGINT and SIGTERM it
// receives to that group. Ginkgo's CLI does not pass a signal on to the running suite, so
// where one process is signalled (a pod's PID 1, a CI runner, kill PID) run the suites
// under anvilbench run, as a built binary: go run would keep the signal itself. It exits
// with the run's verdict code when the verdict failed (as k6 exits on a broken threshold),
// else with Ginkgo's. Before the run it dry-runs the same suites and refuses, before any
// request, an ANVIL_* variable that no selected spec would read.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/config"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// Exit codes.
const (
	exitOK         = 0
	exitRegression = 1
	exitUnjudged   = 2 // not comparable, insufficient samples, or bad input
)

const usage = `usage: anvilbench compare [flags] OLD NEW.json
       anvilbench baseline [-force] OUT_DIR HISTORY_DIR
       anvilbench history [flags] PATH...
       anvilbench gate-status [OUT_DIR or gate.json]
       anvilbench merge -o OUT.json SHARD.json...
       anvilbench judge [flags] ARTIFACT.json
       anvilbench report [flags] OUT_DIR
       anvilbench run [ginkgo flags] [PACKAGES]

Commands:
  compare      judge NEW.json against the baseline OLD (a run, or a directory or glob of
               earlier runs) metric by metric
  baseline     record the passing run in OUT_DIR as one more run of a history of baselines
  history      print each metric over earlier runs and where its level changed
  gate-status  print the verdict of the run in ANVIL_OUT_DIR and exit with its code
               (0 pass, 1 regression, 2 not comparable, 3 budget broken, 4 run failed,
               5 inconclusive, 6 invalid run)
  merge        merge the shard artifacts of a sharded run into one artifact
  judge        gate an artifact (a merged one) on budgets and a baseline, with
               gate-status's exit codes
  report       write OUT_DIR/report.html and report.md from its artifacts
  run          run the pinned ginkgo CLI (or $ANVIL_GINKGO) with these arguments,
               pass every SIGINT and SIGTERM to it and the suite it runs, and exit
               with the run's verdict code when it failed, else with ginkgo's
`

// run is the whole command with its environment passed in, so tests can drive it.
func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUnjudged
	}
	switch args[0] {
	case "compare":
		return runCompare(args[1:], stdout, stderr, getenv)
	case "baseline":
		return runBaseline(args[1:], stdout, stderr)
	case "history":
		return runHistory(args[1:], stdout, stderr, getenv)
	case "gate-status":
		return runGateStatus(args[1:], stdout, stderr, getenv)
	case "merge":
		return runMerge(args[1:], stdout, stderr)
	case "judge":
		return runJudge(args[1:], stdout, stderr, getenv)
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "run":
		return runSuites(args[1:], stdout, stderr, getenv)
	}
	if isHelp(args[0]) || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "anvilbench: unknown command %q\n%s", args[0], usage)
	return exitUnjudged
}

// anvilEnviron is every ANVIL_* variable getenv sets, as config.Load reads them.
func anvilEnviron(getenv func(string) string) map[string]string {
	environ := map[string]string{}
	for _, v := range config.Variables() {
		if value := getenv(v[0]); value != "" {
			environ[v[0]] = value
		}
	}
	return environ
}

// gateDefaults is the gate the ANVIL_* variables describe, for the flags of the tools
// that judge outside the suites: the rule they apply is then the suites' own.
func gateDefaults(tool string, getenv func(string) string, stderr io.Writer) (gate.Spec, bool) {
	g, err := config.GateOf(anvilEnviron(getenv))
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench %s: %v\n", tool, err)
		return g, false
	}
	return g, true
}

// isHelp reports whether arg asks for help, as the flag package reads -h.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// helpOr is the exit code after a flag-parsing error: 0 when it was a request for help
// (the usage is printed), code otherwise.
func helpOr(err error, code int) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return code
}
