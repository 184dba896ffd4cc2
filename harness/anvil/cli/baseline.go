package cli

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/internal/compare"
	"github.com/anvilbench/anvilbench/internal/atomicfile"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

const baselineUsage = `usage: anvilbench baseline [-force] [-starts] OUT_DIR HISTORY_DIR

Records the run in OUT_DIR as one more run of a history of baselines: each scenario's
artifact of the endpoint under test (not a self-test's, a shard's or an interleaved
baseline build's) is copied to HISTORY_DIR/<run id>/ at its path in OUT_DIR.
ANVIL_BASELINE=HISTORY_DIR, or a scenario's "baseline", then judges a run against the
runs of its scenario there; a history compares from 3 runs.

Every valid run is recorded, whatever its comparison with the history said (inconclusive,
or a step of main's own: the history must see main as it is) and a run that broke its
budgets too (leaving out the slow runs would make the history faster than main). A run
that failed or was invalid measured nothing to keep: it is not recorded, which is said
and is not an error (run it after every run of main's, whatever the verdict); -force
records it anyway.

With -starts, the run in OUT_DIR was main's build interleaved against a second start of it
(ANVIL_BASELINE_URL at the second start): both sides of each interleaved scenario are
recorded, and ANVIL_GATE_STARTS=HISTORY_DIR has the next interleaved runs count the spread
between starts they measure (docs/gating.md, the spread between starts).
`

// runBaseline copies the run's artifacts into a history directory.
func runBaseline(args []string, stdout, stderr io.Writer) int {
	fs := newCommand("baseline", stderr, baselineUsage+"\nFlags:\n")
	force := fs.Bool("force", false, "record a run that failed or was invalid")
	starts := fs.Bool("starts", false, "the run was main's build against a second start of it: record both sides of its interleaved scenarios")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return helpOr(err, exitUnjudged)
	}
	if len(paths) != 2 {
		fmt.Fprintf(stderr, "anvilbench baseline: want OUT_DIR and HISTORY_DIR, got %d arguments\n%s", len(paths), baselineUsage)
		return exitUnjudged
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "anvilbench baseline: "+format+"\n", a...)
		return exitUnjudged
	}
	out, history := paths[0], paths[1]
	s, err := gate.ReadSummary(filepath.Join(out, runrecord.SummaryFile))
	if err != nil {
		return fail("%s holds no verdict of a run: %v", out, err)
	}
	if !valid(s.Outcome) && !*force {
		fmt.Fprintf(stdout, "run %s not recorded: a %s measured nothing a history keeps (%s); -force records it anyway\n", s.RunID, s.Outcome.Text(), s.Reason)
		return exitOK
	}
	into := filepath.Join(history, s.RunID)
	if _, err := os.Stat(into); err == nil {
		return fail("run %s is already recorded in %s", s.RunID, into)
	}
	recorded, err := recordRun(out, into, s.RunID, *starts)
	if err != nil {
		return fail("%v", err)
	}
	if len(recorded) == 0 && *starts {
		return fail("%s holds no interleaved artifact of run %s to record as two starts of one build (run it with ANVIL_BASELINE_URL at the second start)", out, s.RunID)
	}
	if len(recorded) == 0 {
		return fail("%s holds no artifact of run %s's scenarios to record", out, s.RunID)
	}
	if *starts {
		fmt.Fprintf(stdout, "recorded run %s into %s as two starts of one build: %s\n", s.RunID, into, strings.Join(recorded, ", "))
		return exitOK
	}
	runs, err := config.ReadRuns(history)
	if err != nil {
		return fail("read back %s: %v", history, err)
	}
	runsOf := map[string]int{}
	for _, a := range runs {
		runsOf[config.ScenarioOf(a)]++
	}
	var held []string
	for _, name := range recorded {
		n := runsOf[name]
		more := ""
		if n < compare.MinHistory {
			more = fmt.Sprintf(", compares from %d", compare.MinHistory)
		}
		held = append(held, fmt.Sprintf("%s %s%s", name, count(n, "run"), more))
	}
	fmt.Fprintf(stdout, "recorded run %s into %s: %s\n", s.RunID, into, strings.Join(held, "; "))
	return exitOK
}

// valid reports whether a run of this outcome measured its engine: every outcome but a
// failed run and an invalid one (a running suite's verdict is a failed run).
func valid(o gate.Outcome) bool { return o != gate.RunFailed && o != gate.InvalidRun }

// recordRun copies every artifact of run id's scenarios under out to the same path under
// into, each written atomically, and returns the scenarios recorded; with starts, both
// sides of each interleaved scenario and nothing else.
func recordRun(out, into, id string, starts bool) ([]string, error) {
	var names []string
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		a, err := artifact.Read(path)
		if err != nil || a.Extension == nil || a.Extension.RunID != id {
			return nil // not an artifact, not anvilbench's, or another run's
		}
		switch {
		case a.Extension.SelfTest:
			return nil
		case starts && a.Extension.Interleaved == nil:
			return nil
		case !starts && !config.IsRun(a):
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, path)
		dst := filepath.Join(into, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := atomicfile.Write(dst, data); err != nil {
			return fmt.Errorf("record %s: %w", rel, err)
		}
		names = append(names, cmp.Or(config.ScenarioOf(a), rel))
		return nil
	})
	slices.Sort(names)
	return slices.Compact(names), err
}
