// Command anvilbench works with anvil-serving.benchmark/v1 artifacts outside the suites.
//
//	anvilbench compare [flags] OLD.json NEW.json
//
// compares a current artifact with a baseline of the same workload and exits 0 when no
// metric regressed, 1 when one did, and 2 when the two cannot be compared or an input is
// bad (the reason on stderr). See compare -h for the flags.
package main

import (
	"fmt"
	"io"
	"os"
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

const usage = `usage: anvilbench compare [flags] OLD.json NEW.json

Commands:
  compare  judge NEW.json against the baseline OLD.json metric by metric
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
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "anvilbench: unknown command %q\n%s", args[0], usage)
	return exitUnjudged
}
