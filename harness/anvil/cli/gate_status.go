package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

const gateStatusUsage = `usage: anvilbench gate-status [OUT_DIR or gate.json]

Prints the verdict of the run in OUT_DIR (default: ANVIL_OUT_DIR, a relative path taken
from the module root as the suites take it, else artifacts/) and exits with its code:
0 pass, 1 regression, 2 not comparable, 3 budget broken, 4 run failed, 5 inconclusive,
6 invalid run. A directory without a verdict, a verdict of another run than the
directory's run.json, or a suite of the run that never reported is a failed run (4).
`

// runGateStatus prints the run's verdict and returns its exit code.
func runGateStatus(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 1 && isHelp(args[0]) {
		fmt.Fprint(stdout, gateStatusUsage)
		return exitOK
	}
	failed := gate.RunFailed.ExitCode()
	if len(args) > 1 {
		fmt.Fprintf(stderr, "anvilbench gate-status: want one path, got %d\n%s", len(args), gateStatusUsage)
		return failed
	}
	dir, path := "", ""
	switch {
	case len(args) == 1:
		path = args[0]
	case getenv(config.Prefix+"OUT_DIR") != "":
		resolved, err := config.Config{OutDir: getenv(config.Prefix + "OUT_DIR")}.ResolveOutDir()
		if err != nil {
			fmt.Fprintf(stderr, "anvilbench gate-status: %v\n", err)
			return failed
		}
		path = resolved
	default:
		path = "artifacts"
		if root, err := config.ModuleRoot(); err == nil {
			path = filepath.Join(root, "artifacts")
		}
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		dir, path = path, filepath.Join(path, runrecord.SummaryFile)
	}
	s, err := gate.ReadSummary(path)
	if err != nil {
		why := ""
		if errors.Is(err, fs.ErrNotExist) {
			why = " (no run has written a verdict there: did the suites run, in this ANVIL_OUT_DIR?)"
		}
		fmt.Fprintf(stderr, "anvilbench gate-status: %v%s\ngate: run failed: no verdict\n", err, why)
		return failed
	}
	if dir != "" {
		if id, err := runrecord.Current(dir); err == nil && id != "" && id != s.RunID {
			fmt.Fprintf(stderr, "anvilbench gate-status: %s is the verdict of run %s, but %s names run %s\ngate: run failed: no verdict of the directory's run\n",
				path, s.RunID, runrecord.ManifestFile, id)
			return failed
		}
	}
	failures := s.Failures()
	word := "PASS"
	if s.Outcome != gate.Pass {
		word = "FAIL (" + s.Outcome.Text() + ")"
	}
	fmt.Fprintf(stdout, "gate: %s, run %s%s: %s judged over %s, %d failed\n", word, s.RunID, age(path, time.Now()), count(s.Checks, "check"), count(len(s.Suites), "suite"), len(failures))
	for _, f := range failures {
		fmt.Fprintf(stdout, "  [%s] %s: %s\n", f.Outcome.Text(), f.Check, f.FirstLine())
		printDetail(stdout, f.Message)
	}
	for _, f := range s.Noted {
		fmt.Fprintf(stdout, "  [%s] %s: %s\n", f.State, f.Check, f.FirstLine())
	}
	return s.ExitCode
}

// maxDetailLines bounds what gate-status prints of one failure beyond its first line; the
// whole message is in gate.json.
const maxDetailLines = 20

// printDetail prints the lines of a failure's message after the first, indented: a
// configuration error lists every problem, and a CI log should show them all.
func printDetail(w io.Writer, message string) {
	lines := strings.Split(strings.TrimSpace(message), "\n")[1:]
	for k, line := range lines {
		if k == maxDetailLines {
			fmt.Fprintf(w, "      (%d more lines in %s)\n", len(lines)-k, runrecord.SummaryFile)
			return
		}
		if line = strings.TrimSpace(line); line != "" {
			fmt.Fprintf(w, "      %s\n", line)
		}
	}
}

// age says when the verdict at path was written, so an old one read from another
// directory is not taken for the run just made: " (written 13m ago, 05:47 UTC)".
func age(path string, now time.Time) string {
	info, err := os.Stat(path)
	if err != nil {
		return ""
	}
	at := info.ModTime()
	ago := now.Sub(at)
	switch {
	case ago < time.Minute:
		return fmt.Sprintf(" (written %ds ago)", int(ago.Seconds()))
	case ago < 24*time.Hour:
		return fmt.Sprintf(" (written %s ago, %s UTC)", strings.TrimSuffix(ago.Truncate(time.Minute).String(), "0s"), at.UTC().Format("15:04"))
	}
	return fmt.Sprintf(" (written %s UTC, %s ago)", at.UTC().Format("2006-01-02 15:04"), count(int(ago.Hours()/24), "day"))
}

// count is n and noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
