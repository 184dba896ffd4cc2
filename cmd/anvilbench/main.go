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
	"os"

	"github.com/anvilbench/anvilbench/harness/anvil/cli"
)

func main() { os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv)) }
