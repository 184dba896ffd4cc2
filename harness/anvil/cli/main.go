// Package cli is the anvilbench command, which cmd/anvilbench runs: its
// subcommands compare, baseline, history, gate-status, merge, judge, report, run and bisect. It
// lives beside the toolkit so that both read the configuration (harness/anvil/internal/config)
// and judge with one rule.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/gate"
)

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
       anvilbench bisect [flags] GOOD BAD -- START...

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
  bisect       in an engine's repository, find the first commit between GOOD and BAD
               slower than GOOD's build, each judged by interleaved runs against it
`

// Run is the whole command with its environment passed in, so tests can drive it; it
// returns the exit code.
func Run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
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
	case "bisect":
		return runBisect(args[1:], stdout, stderr, getenv)
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

// newCommand is a subcommand's flag set: its problems on stderr, and its usage there as
// usage says it, then its flags.
func newCommand(name string, stderr io.Writer, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// helpOr is the exit code after a flag-parsing error: 0 when it was a request for help
// (the usage is printed), code otherwise.
func helpOr(err error, code int) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return code
}
