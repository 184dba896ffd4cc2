package capacity

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/anvilbench/anvilbench"

// The measuring core depends on nothing above it: not on configuration (which sits at the
// edge and converts into typed scenarios), not on the regression statistics or the gate,
// and not on Ginkgo, Gomega or the packages built on them.
func TestTheMeasuringCoreImportsNothingAboveIt(t *testing.T) {
	t.Parallel()
	forbidden := []string{
		module + "/internal/config", module + "/internal/compare", module + "/harness/gate", module + "/matchers",
		module + "/reporters", module + "/internal/junit", module + "/suites", "github.com/onsi/ginkgo", "github.com/onsi/gomega",
	}
	for _, pkg := range []string{"harness/stream", "harness/capacity", "harness/capacity/internal/workload", "harness/capacity/internal/schedule", "harness/artifact", "internal/stats"} {
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
		"cmd/anvilbench", "cmd/refengine", // commands
		"deploy/kubernetes", "docs", // tests of manifests and pages, no Go API
		"harness/artifact", "harness/budget", "harness/capacity", "harness/gate", // scenario, artifact, budgets, the gate
		"harness/refengine",                            // PrivateEngine's options, and the embedded engine
		"harness/secret",                               // the API key type of a Target and stream.Options
		"harness/stream",                               // a precise streaming client on its own
		"matchers", "reporters/report", "suites/anvil", // matchers, the report, the toolkit
		"suites/capacity", "suites/curves", "suites/workloads", // this repository's suites
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
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
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
