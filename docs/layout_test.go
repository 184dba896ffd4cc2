package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// maxFeatureFiles is how many non-test Go files outside the reference engine may name one
// traffic feature: its file, its parsed values, its block, its conformance row and one more.
const maxFeatureFiles = 5

// Every traffic feature is named only in the files docs/layout.md lists for it, five at most,
// and every file listed names it: a feature stays in its place, and the page says where.
func TestEachTrafficFeatureIsNamedOnlyWhereTheLayoutSays(t *testing.T) {
	root := moduleRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := featureRows(string(page))
	if len(rows) < 4 {
		t.Fatalf("docs/layout.md lists %d features; want images, adapters, requests left and priority classes", len(rows))
	}
	var sources []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, path)
		switch {
		case err != nil:
			return err
		case d.IsDir() && (strings.HasPrefix(d.Name(), ".") || rel == filepath.Join("harness", "refengine") || rel == filepath.Join("cmd", "refengine") || rel == "testdata"):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go"):
			sources = append(sources, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		pattern := regexp.MustCompile(strings.Join(quoteAll(row.names), "|"))
		var naming []string
		for _, rel := range sources {
			text, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Fatal(err)
			}
			if pattern.Match(text) {
				naming = append(naming, rel)
			}
		}
		slices.Sort(naming)
		slices.Sort(row.files)
		if !slices.Equal(naming, row.files) {
			t.Errorf("%s: named in %v; docs/layout.md lists %v", row.feature, naming, row.files)
		}
		if len(naming) > maxFeatureFiles {
			t.Errorf("%s: named in %d files, more than %d", row.feature, len(naming), maxFeatureFiles)
		}
	}
}

type featureRow struct {
	feature      string
	names, files []string
}

// featureRows reads the table of features' names and files from the layout page.
func featureRows(page string) []featureRow {
	var out []featureRow
	code := regexp.MustCompile("`([^`]+)`")
	in := false
	for line := range strings.SplitSeq(page, "\n") {
		if strings.HasPrefix(line, "| feature | its names |") {
			in = true
			continue
		}
		if !in || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			break
		}
		row := featureRow{feature: strings.TrimSpace(cells[0])}
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			row.names = append(row.names, m[1])
		}
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			row.files = append(row.files, m[1])
		}
		out = append(out, row)
	}
	return out
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = regexp.QuoteMeta(x)
	}
	return out
}
