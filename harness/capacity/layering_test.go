package capacity

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/anvilbench/anvilbench"

// The measuring core depends on nothing above it: not on configuration (which sits at the
// edge and converts into typed scenarios), not on the regression statistics, and not on
// Ginkgo, Gomega or the packages built on them.
func TestTheMeasuringCoreImportsNothingAboveIt(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{
		module + "/harness/config", module + "/harness/compare", module + "/matchers",
		module + "/reporters", module + "/suites", "github.com/onsi/ginkgo", "github.com/onsi/gomega",
	}
	for _, pkg := range []string{"stream", "capacity", "workload", "schedule", "artifact", "stats"} {
		deps := map[string]bool{}
		collectImports(t, root, module+"/harness/"+pkg, deps)
		for dep := range deps {
			if slices.ContainsFunc(forbidden, func(f string) bool { return dep == f || strings.HasPrefix(dep, f+"/") }) {
				t.Errorf("harness/%s depends on %s", pkg, dep)
			}
		}
		if len(deps) < 2 {
			t.Errorf("harness/%s: found only %v; the walk is broken", pkg, deps)
		}
	}
}

// collectImports adds the non-test imports of pkg and, within the module, theirs.
func collectImports(t *testing.T, root, pkg string, seen map[string]bool) {
	t.Helper()
	dir := filepath.Join(root, strings.TrimPrefix(pkg, module))
	p, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatalf("import %s: %v", pkg, err)
	}
	for _, imp := range p.Imports {
		if seen[imp] {
			continue
		}
		seen[imp] = true
		if strings.HasPrefix(imp, module+"/") {
			collectImports(t, root, imp, seen)
		}
	}
}
