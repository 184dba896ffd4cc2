package docs_test

import (
	"errors"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/anvilbench/anvilbench"

// layers is every package of the module and the packages of the module it may import:
// the floors of docs/layout.md. A package may import only what stands below it; an import
// the table does not name fails, so a new arrow between packages is drawn here on purpose.
var layers = map[string][]string{
	// Floor 1, the ground: nothing of the module.
	"internal/wire": nil, "internal/stats": nil, "internal/fields": nil, "internal/suggest": nil, "internal/busy": nil, "internal/checklog": nil, "internal/units": nil,
	"cmd/tinyllama": nil, "harness/secret": nil, "harness/capacity/internal/schedule": nil, "reporters/report/internal/chart": nil,
	"suites/capacity": nil, "suites/conformance": nil, "suites/curves": nil, "suites/workloads": nil, "docs": nil,
	// Floor 2: the wire format's users.
	"internal/atomicfile":              {"internal/wire"},
	"harness/capacity/internal/stream": {"harness/secret", "internal/wire"},
	"harness/refengine":                {"internal/wire"},
	// Floor 3: the artifact, the run's record.
	"harness/artifact":   {"internal/atomicfile"},
	"internal/runrecord": {"internal/atomicfile"},
	"cmd/refengine":      {"harness/refengine"},
	// Floor 4: over the artifact.
	"harness/budget":                          {"internal/units", "harness/artifact", "internal/atomicfile", "internal/stats", "internal/suggest"},
	"harness/capacity/internal/workload":      {"harness/artifact"},
	"harness/capacity/internal/enginemetrics": {"harness/artifact"},
	"harness/capacity/internal/gpumetrics":    {"harness/artifact"},
	// Floor 5: the runner, and the regression rule.
	"harness/capacity": {"harness/artifact", "harness/budget", "harness/secret", "harness/capacity/internal/stream", "internal/fields", "internal/stats", "internal/suggest",
		"harness/capacity/internal/enginemetrics", "harness/capacity/internal/gpumetrics", "harness/capacity/internal/schedule", "harness/capacity/internal/workload"},
	"harness/internal/compare": {"internal/units", "harness/artifact", "harness/budget", "internal/stats"},
	// Floor 6: the gate judges artifacts; it needs no runner.
	"harness/gate": {"harness/artifact", "harness/budget", "harness/internal/compare", "internal/atomicfile", "internal/fields", "internal/runrecord", "internal/stats"},
	// Floor 7: configuration, matchers, the report, the toolkit's JUnit.
	"harness/anvil/internal/config": {"harness/artifact", "harness/budget", "harness/capacity", "harness/gate", "harness/internal/compare", "harness/secret", "internal/fields",
		"internal/atomicfile", "internal/runrecord", "internal/suggest"},
	"harness/anvil/internal/junit": {"harness/gate", "internal/atomicfile"},
	"matchers":                     {"internal/units", "harness/artifact", "harness/budget", "harness/gate", "internal/checklog"},
	"reporters/report": {"internal/units", "harness/artifact", "harness/budget", "harness/capacity", "harness/gate", "internal/atomicfile", "internal/runrecord",
		"reporters/report/internal/chart"},
	// Floor 8: the toolkit and the command's code.
	"harness/anvil": {"internal/units", "harness/artifact", "harness/budget", "harness/capacity", "harness/gate", "harness/refengine", "internal/atomicfile", "internal/checklog", "internal/stats",
		"harness/anvil/internal/config", "internal/runrecord", "reporters/report", "harness/anvil/internal/junit"},
	"harness/anvil/cli": {"internal/units", "harness/artifact", "harness/budget", "harness/capacity", "harness/gate", "harness/internal/compare", "harness/anvil/internal/config",
		"internal/atomicfile", "internal/runrecord", "reporters/report"},
	// Floor 9: the command.
	"cmd/anvilbench": {"harness/anvil/cli"},
}

// room is the folder a package is drawn in at folder scale: a top-level folder, or under
// harness/ one of its folders (harness/capacity holds its own internal packages).
func room(pkg string) string {
	parts := strings.Split(pkg, "/")
	if parts[0] == "harness" && len(parts) > 1 {
		return "harness/" + parts[1]
	}
	return parts[0]
}

// Every package is in the table and imports only what its row names; the table names no
// package that is gone. Root internal/ is the ground every floor shares: its packages
// import nothing of the module outside it.
func TestEveryPackageImportsOnlyWhatTheLayersAllow(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	found := packages(t, root)
	for _, pkg := range found {
		allowed, listed := layers[pkg]
		if !listed {
			t.Errorf("%s is not in the layering table: add its row, and its floor to docs/layout.md", pkg)
			continue
		}
		for _, dep := range moduleImports(t, root, pkg) {
			if !slices.Contains(allowed, dep) {
				t.Errorf("%s imports %s, which its row does not allow", pkg, dep)
			}
			if strings.HasPrefix(pkg, "internal/") && !strings.HasPrefix(dep, "internal/") {
				t.Errorf("%s, under root internal/ (the ground), imports %s: what stands above the harness belongs beside what uses it", pkg, dep)
			}
		}
	}
	for pkg := range layers {
		if !slices.Contains(found, pkg) {
			t.Errorf("the layering table names %s, which is gone", pkg)
		}
	}
}

// Drawn by folder (room), the imports still run one way: no room imports a room that
// imports it back, through any path, so each folder's path says its floor.
func TestTheFoldersStandOnFloors(t *testing.T) {
	t.Parallel()
	arrows := map[string]map[string]bool{}
	for pkg, deps := range layers {
		for _, dep := range deps {
			if from, to := room(pkg), room(dep); from != to {
				if arrows[from] == nil {
					arrows[from] = map[string]bool{}
				}
				arrows[from][to] = true
			}
		}
	}
	if len(arrows) < 8 {
		t.Fatalf("%d rooms import others; the table is broken", len(arrows))
	}
	var reaches func(from, to string, seen map[string]bool) bool
	reaches = func(from, to string, seen map[string]bool) bool {
		if arrows[from][to] {
			return true
		}
		seen[from] = true
		for next := range arrows[from] {
			if !seen[next] && reaches(next, to, seen) {
				return true
			}
		}
		return false
	}
	for from, tos := range arrows {
		for to := range tos {
			if reaches(to, from, map[string]bool{}) {
				t.Errorf("%s/ imports %s/, which imports it back: drawn by folder, an arrow runs up a floor", from, to)
			}
		}
	}
}

// docs/layout.md draws each package on its floor: one above the highest it imports.
func TestTheLayoutPageDrawsTheFloors(t *testing.T) {
	t.Parallel()
	floor := map[string]int{}
	var of func(pkg string) int
	of = func(pkg string) int {
		if f, ok := floor[pkg]; ok {
			return f
		}
		f := 1
		for _, dep := range layers[pkg] {
			f = max(f, of(dep)+1)
		}
		floor[pkg] = f
		return f
	}
	drawn := map[string]int{}
	row := regexp.MustCompile("(?m)^\\| (\\d+) \\| ([^|]+) \\|")
	for _, m := range row.FindAllStringSubmatch(read(t, "layout.md"), -1) {
		n, _ := strconv.Atoi(m[1])
		for _, pkg := range regexp.MustCompile("`([a-z/]+)`").FindAllStringSubmatch(m[2], -1) {
			drawn[pkg[1]] = n
		}
	}
	for pkg := range layers {
		if pkg == "docs" || strings.HasPrefix(pkg, "suites/") {
			continue // tests only: no floor to stand on
		}
		if want := of(pkg); drawn[pkg] != want {
			t.Errorf("docs/layout.md draws %s on floor %d; it stands on floor %d", pkg, drawn[pkg], want)
		}
	}
	if len(drawn) < 20 {
		t.Errorf("docs/layout.md's floor table names %d packages; the table is gone or malformed", len(drawn))
	}
}

// ./suites holds scenario suites and nothing else, so the README's main job,
// `ginkgo -r ./suites`, runs benchmarks and no package's unit tests: each package under it
// is test files only, one of them starting its Ginkgo suite through the toolkit.
func TestSuitesHoldsScenarioSuitesOnly(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	dirs := map[string][]string{}
	err := filepath.WalkDir(filepath.Join(root, "suites"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		dirs[rel] = append(dirs[rel], path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 3 {
		t.Fatalf("suites/ holds %d packages; the walk is broken", len(dirs))
	}
	for dir, files := range dirs {
		boots := false
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				t.Errorf("%s is not a test file: ./suites holds scenario suites only (code belongs under harness/)", f)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			boots = boots || strings.Contains(string(data), "anvil.Bootstrap(") && strings.Contains(string(data), "RunSpecs(")
		}
		if !boots {
			t.Errorf("%s runs no anvilbench suite (RunSpecs and anvil.Bootstrap): ./suites holds scenario suites only", dir)
		}
	}
}

// The measuring core depends on nothing above it, through any path: not on configuration
// (which sits at the edge and converts into typed scenarios), not on the regression
// statistics or the gate, and not on Ginkgo, Gomega or the packages built on them.
func TestTheMeasuringCoreImportsNothingAboveIt(t *testing.T) {
	t.Parallel()
	forbidden := []string{
		module + "/harness/anvil", module + "/harness/internal/compare", module + "/harness/gate", module + "/matchers",
		module + "/reporters", module + "/suites", "github.com/onsi/ginkgo", "github.com/onsi/gomega",
	}
	for _, pkg := range []string{"harness/capacity/internal/stream", "harness/capacity", "harness/capacity/internal/workload", "harness/capacity/internal/schedule", "harness/artifact", "internal/stats"} {
		deps := importsOf(t, pkg)
		for dep := range deps {
			if slices.ContainsFunc(forbidden, func(f string) bool { return dep == f || strings.HasPrefix(dep, f+"/") }) {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
		if len(deps) < 2 {
			t.Errorf("%s: found only %v; the walk is broken", pkg, deps)
		}
	}
}

// The report renderer and the command-line tool link neither Ginkgo nor Gomega: they read
// artifacts and verdicts, whatever ran the suites.
func TestTheReportAndTheCommandLinkNoTestFramework(t *testing.T) {
	t.Parallel()
	for _, pkg := range []string{"reporters/report", "cmd/anvilbench", "harness/gate"} {
		for dep := range importsOf(t, pkg) {
			if strings.HasPrefix(dep, "github.com/onsi/ginkgo") || strings.HasPrefix(dep, "github.com/onsi/gomega") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}

// What an engine team imports is public; everything else of the module is internal, so
// the public surface is exactly this list (a package added outside internal/ must be added
// here, on purpose).
func TestThePublicSurfaceIsWhatAnEngineTeamImports(t *testing.T) {
	t.Parallel()
	public := []string{
		"cmd/anvilbench", "cmd/refengine", "cmd/tinyllama", // commands
		"docs",                                                                   // tests of pages, no Go API
		"harness/artifact", "harness/budget", "harness/capacity", "harness/gate", // scenario, artifact, budgets, the gate
		"harness/refengine",                                                  // PrivateEngine's options, and the embedded engine
		"harness/secret",                                                     // the API key type of a Target
		"matchers", "reporters/report", "harness/anvil", "harness/anvil/cli", // matchers, the report, the toolkit, the command
		"suites/capacity", "suites/conformance", "suites/curves", "suites/workloads", // this repository's suites
	}
	root := moduleRoot(t)
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "internal") && rel != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !slices.Contains(found, filepath.ToSlash(filepath.Dir(rel))) {
			found = append(found, filepath.ToSlash(filepath.Dir(rel)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range found {
		if !slices.Contains(public, pkg) {
			t.Errorf("%s is public (outside internal/) but not what an engine team imports", pkg)
		}
	}
	for _, pkg := range public {
		if !slices.Contains(found, pkg) {
			t.Errorf("%s is listed but not found", pkg)
		}
	}
}

// No package exports a variable a caller could change under everyone else: exported
// package-level variables are error sentinels only (errors.New, fmt.Errorf).
func TestNoExportedMutableVariables(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "/testdata/") {
			return err
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !name.IsExported() {
						continue
					}
					if i < len(vs.Values) && isErrorSentinel(vs.Values[i]) {
						continue
					}
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s: exported variable %s (make it a function, a constant or unexported)", rel, name.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func isErrorSentinel(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && ((pkg.Name == "errors" && sel.Sel.Name == "New") || (pkg.Name == "fmt" && sel.Sel.Name == "Errorf"))
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// packages lists the module's packages, by their path from the module root: every folder
// holding Go files, outside testdata.
func packages(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !slices.Contains(out, filepath.ToSlash(filepath.Dir(rel))) {
			out = append(out, filepath.ToSlash(filepath.Dir(rel)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// moduleImports are the module's packages that pkg's non-test files import.
func moduleImports(t *testing.T, root, pkg string) []string {
	t.Helper()
	p, err := build.ImportDir(filepath.Join(root, pkg), 0)
	if err != nil {
		var none *build.NoGoError
		if errors.As(err, &none) {
			return nil // test files only
		}
		t.Fatalf("import %s: %v", pkg, err)
	}
	var out []string
	for _, imp := range p.Imports {
		if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
			out = append(out, rest)
		}
	}
	return out
}

// importsOf are the non-test imports of the module's package at path, its own in the
// module followed.
func importsOf(t *testing.T, path string) map[string]bool {
	t.Helper()
	deps := map[string]bool{}
	collectImports(t, moduleRoot(t), module+"/"+path, deps)
	return deps
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

// testdata/engine-repo is an engine team's module built against this one: a dependency
// added here must reach its go.mod and go.sum too, or CI finds it late, in a clean copy.
func TestTheEngineRepositoryModuleListsEveryDependency(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(moduleRoot(t), "testdata", "engine-repo")
	cmd := exec.Command("go", "list", "-mod=readonly", "-deps", "-test", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testdata/engine-repo does not build from its own go.mod and go.sum (run go mod tidy there): %v\n%s", err, out)
	}
}
