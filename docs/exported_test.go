package docs_test

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateExported = flag.Bool("update-exported", false, "rewrite exported.txt from the code")

// maxExported bounds the public surface: the exported top-level names of the packages
// outside internal/ and cmd/.
const maxExported = 300

// The public surface is pinned name by name in exported.txt: a name exported, or taken
// back, changes the file on purpose (go test ./docs -update-exported), and the count stays
// within maxExported.
func TestTheExportedNamesArePinned(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	var names []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "internal" || rel == "cmd" || rel == "artifacts") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		add := func(id *ast.Ident) {
			if id.IsExported() {
				names = append(names, pkg+"."+id.Name)
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					add(d.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						add(s.Name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							add(n)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	got := strings.Join(names, "\n") + "\n"
	if *updateExported {
		if err := os.WriteFile("exported.txt", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("exported.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) > maxExported {
		t.Errorf("%d exported top-level names outside internal/ and cmd/, more than %d", len(names), maxExported)
	}
	if got != string(want) {
		wantNames := strings.Fields(string(want))
		var added, gone []string
		for _, n := range names {
			if !slices.Contains(wantNames, n) {
				added = append(added, n)
			}
		}
		for _, n := range wantNames {
			if !slices.Contains(names, n) {
				gone = append(gone, n)
			}
		}
		t.Errorf("the exported names differ from docs/exported.txt (go test ./docs -update-exported rewrites it):\n  new: %v\n  gone: %v", added, gone)
	}
}
