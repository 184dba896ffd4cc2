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
// artifact, or, when path is a directory or a glob, every artifact under it (recursively)
// or matching it that the scenario wrote ("" matches artifacts anvilbench did not write),
// oldest first: a history. The baseline engine's
// artifacts of interleaved runs are left out: main's build measured beside another is not
// a run of main's on its own.
func ReadBaseline(path, scenario string) (Baseline, error) {
	var files []string
	if strings.ContainsAny(path, "*?[") {
		var err error
		if files, err = filepath.Glob(path); err != nil {
			return Baseline{}, fmt.Errorf("pattern: %w", err)
		}
	} else if info, err := os.Stat(path); err != nil {
		return Baseline{}, err
	} else if info.IsDir() {
		err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			return Baseline{}, err
		}
	} else {
		one, err := artifact.Read(path)
		return Baseline{One: one}, err
	}
	var history []*artifact.Benchmark
	for _, f := range files {
		a, err := artifact.Read(f)
		if err != nil || ScenarioOf(a) != scenario {
			continue // not an artifact, or another scenario's
		}
		if a.Extension != nil && a.Extension.Interleaved != nil && a.Extension.Interleaved.Role == artifact.RoleBaseline {
			continue
		}
		history = append(history, a)
	}
	if len(history) == 0 {
		return Baseline{}, fmt.Errorf("no artifact of scenario %s there (a history is the artifacts earlier runs of it wrote)", scenario)
	}
	slices.SortStableFunc(history, func(a, b *artifact.Benchmark) int { return cmp.Compare(a.StartedAtUnixNs, b.StartedAtUnixNs) })
	return Baseline{History: history}, nil
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
