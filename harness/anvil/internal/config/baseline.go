package config

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// Baseline is what a scenario is judged against: one stored artifact, or a history of
// earlier runs of the scenario (a directory or a glob), oldest first.
type Baseline struct {
	One     *artifact.Benchmark
	History []*artifact.Benchmark
}

// ReadBaseline reads a baseline named by path for the scenario named scenario: a v1
// artifact, or, when path is a directory or a glob, the artifacts of the scenario's earlier
// runs there ("" matches artifacts anvilbench did not write), oldest first: a history (see
// ReadRuns).
func ReadBaseline(path, scenario string) (Baseline, error) {
	b, err := readBaselines(path)
	if err != nil {
		return Baseline{}, err
	}
	one := b.of(scenario, true)
	if one.One == nil && len(one.History) == 0 {
		return Baseline{}, fmt.Errorf("no artifact of scenario %s there%s (a history is the artifacts earlier runs of it wrote)", scenario, b.holding())
	}
	return one, nil
}

// baselines are what a baseline path holds: one artifact, or every run of a history.
type baselines struct {
	one  *artifact.Benchmark
	runs []*artifact.Benchmark
}

// readBaselines reads path: one artifact, or every run under a directory or matching a glob.
func readBaselines(path string) (baselines, error) {
	if !strings.ContainsAny(path, "*?[") {
		info, err := os.Stat(path)
		if err != nil {
			return baselines{}, err
		}
		if !info.IsDir() {
			one, err := artifact.Read(path)
			return baselines{one: one}, err
		}
	}
	runs, err := ReadRuns(path)
	return baselines{runs: runs}, err
}

// of is the baseline of the scenario named name: a history's runs of it; or the one
// artifact, when it is that scenario's or any is taken (the configured scenario takes any
// artifact, ours or the original tool's).
func (b baselines) of(name string, any bool) Baseline {
	if b.one != nil {
		if any || ScenarioOf(b.one) == name {
			return Baseline{One: b.one}
		}
		return Baseline{}
	}
	var out Baseline
	for _, a := range b.runs {
		if ScenarioOf(a) == name {
			out.History = append(out.History, a)
		}
	}
	return out
}

// history reports whether b is a history (a directory or a glob), not one artifact.
func (b baselines) history() bool { return b.one == nil }

// holding is ", which holds runs of a, b" naming the scenarios a history holds, or "".
func (b baselines) holding() string {
	var names []string
	for _, a := range b.runs {
		if n := cmp.Or(ScenarioOf(a), "(not anvilbench's)"); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ", which holds no artifact"
	}
	return ", which holds runs of " + strings.Join(names, ", ")
}

// ReadRuns reads the v1 artifacts each path names: a file, every .json file under a
// directory (recursively), or the files a glob matches; files that are not artifacts are
// passed over, and so are a sharded run's shards (their merge is the run), the baseline
// engine's artifacts of interleaved runs (main's build measured beside another is not a run
// of main's on its own) and copies of one run. They come oldest first.
func ReadRuns(paths ...string) ([]*artifact.Benchmark, error) {
	var files []string
	for _, path := range paths {
		found, err := filesOf(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		files = append(files, found...)
	}
	type key struct {
		id    string
		start int64
		name  string
	}
	seen := map[key]bool{}
	var runs []*artifact.Benchmark
	for _, f := range files {
		a, err := artifact.Read(f)
		if err != nil {
			continue
		}
		if !IsRun(a) {
			continue
		}
		k := key{a.RunID, a.StartedAtUnixNs, ScenarioOf(a)}
		if seen[k] {
			continue
		}
		seen[k] = true
		runs = append(runs, a)
	}
	slices.SortStableFunc(runs, func(a, b *artifact.Benchmark) int { return cmp.Compare(a.StartedAtUnixNs, b.StartedAtUnixNs) })
	return runs, nil
}

// IsRun reports whether a stands for a run of its scenario on its own: not a shard (a part
// of a run; its merge is the run) and not the baseline build's side of an interleaved run
// (main's build measured beside another is not a run of main's on its own).
func IsRun(a *artifact.Benchmark) bool {
	x := a.Extension
	return x == nil || x.Shard == nil && (x.Interleaved == nil || x.Interleaved.Role != artifact.RoleBaseline)
}

// filesOf is the file path names, the .json files under it when it is a directory, or
// the files it matches when it is a glob.
func filesOf(path string) ([]string, error) {
	if strings.ContainsAny(path, "*?[") {
		files, err := filepath.Glob(path)
		if err != nil {
			return nil, fmt.Errorf("pattern: %w", err)
		}
		return files, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return err
	})
	return files, err
}

// ScenarioOf is the scenario an artifact measured: "" for one anvilbench did not write.
func ScenarioOf(a *artifact.Benchmark) string {
	if a.Extension == nil {
		return ""
	}
	return a.Extension.Scenario
}

// judgedAgainst sets what spec judges a run against: the baseline read from path, or an
// interleaved baseline build.
func judgedAgainst(spec *gate.Spec, path string, b Baseline, interleave *capacity.Interleaving) {
	spec.BaselinePath, spec.Baseline, spec.History = path, b.One, b.History
	spec.Interleaved = interleave != nil
}

// errBaselineAndURL is the problem of a scenario with a stored baseline and a baseline build.
var errBaselineAndURL = errors.New("set one: a baseline build to interleave with (baseline_url), or earlier runs (baseline)")
