package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	dir := t.TempDir()
	ref, err := os.ReadFile("../../../testdata/reference/benchmark-v1-example.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "capacity"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "capacity", "reference.json"), ref, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := invoke("", "report", "-budgets", "e2e_p50_ms<=1", dir)
	if code != exitOK || !strings.HasPrefix(stdout, "FAIL (budget broken): reference meets the budget e2e_p50_ms<=1: e2e p50 12063.64ms exceeds budget 1.00ms over 6 samples\n") {
		t.Fatalf("report exited %d:\n%s%s", code, stdout, stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || !strings.HasPrefix(string(md), "# ❌ FAIL (budget broken): reference meets the budget") {
		t.Fatalf("report.md: %v\n%.300s", err, md)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = invoke("", "report", dir)
	if code != exitOK || !strings.HasPrefix(stdout, "NOT GATED: 1 scenario measured") {
		t.Errorf("without budgets: exit %d: %s", code, stdout)
	}
	for _, args := range [][]string{{"report"}, {"report", "-budgets", "tpot<=", dir}, {"report", filepath.Join(dir, "missing")}} {
		if code, _, _ := invoke("", args...); code != exitUnjudged {
			t.Errorf("%q exited %d, want %d", args, code, exitUnjudged)
		}
	}
}
