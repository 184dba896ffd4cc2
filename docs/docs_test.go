// Package docs_test checks the reference pages against the code they describe and the
// README that links them.
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/gate"
)

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Every page of docs/ is reachable from the README, and every relative link of the README
// and the pages leads to a file that exists.
func TestEveryPageIsReachable(t *testing.T) {
	t.Parallel()
	link := regexp.MustCompile(`\]\(([^)#:]+)(#[^)]*)?\)`)
	readme := read(t, filepath.Join("..", "README.md"))
	linked := map[string]bool{}
	for _, m := range link.FindAllStringSubmatch(readme, -1) {
		linked[filepath.Clean(filepath.Join("..", m[1]))] = true
	}
	pages, _ := filepath.Glob("*.md")
	if len(pages) == 0 {
		t.Fatal("no pages")
	}
	for _, p := range pages {
		if !linked[filepath.Clean(filepath.Join("..", "docs", p))] {
			t.Errorf("docs/%s is not linked from the README", p)
		}
		for _, m := range link.FindAllStringSubmatch(read(t, p), -1) {
			if _, err := os.Stat(m[1]); err != nil {
				t.Errorf("docs/%s links %s, which does not exist", p, m[1])
			}
		}
	}
	for target := range linked {
		if _, err := os.Stat(target); err != nil {
			t.Errorf("the README links %s, which does not exist", target)
		}
	}
	if n := strings.Count(readme, "\n"); n > 150 {
		t.Errorf("the README has %d lines; keep it to the first screens (150) and move the reference to docs/", n)
	}
}

// The outcomes, their exit codes and their order on the gating page are the gate's.
func TestTheGatingPageMatchesTheGate(t *testing.T) {
	t.Parallel()
	page := read(t, "gating.md")
	last := -1
	for _, o := range gate.Outcomes() {
		row := "| `" + string(o) + "` | " + strconv.Itoa(o.ExitCode()) + " |"
		at := strings.Index(page, row)
		if at < 0 {
			t.Errorf("docs/gating.md lacks the row %q", row)
			continue
		}
		if at < last {
			t.Errorf("docs/gating.md lists %s out of the gate's order of precedence", o)
		}
		last = at
	}
}
